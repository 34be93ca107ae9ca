#include "core/fix/foot_clearance.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <vector>

#include "core/fix/contacts.hpp"
#include "core/fix/fix_parallel.hpp"
#include "core/fix/ground_memo.hpp"
#include "core/fix/smooth.hpp"
#include "core/fix/toe_bend.hpp"

namespace ikfix::core {
namespace {

PlannedFoot planned_foot(const Vec3& ankle_target_ws, const Quat& foot_rotation,
                         const ToeBend& bend, int f) {
  PlannedFoot p{ankle_target_ws, foot_rotation, Vec3(1, 0, 0), 0.0};
  if (!bend.angle.empty()) {
    p.bend_axis_ws = bend.axis[f];
    p.bend_angle = bend.angle[f];
  }
  return p;
}

// `raw` (>= 0 per frame) dilated then smoothed, so the result is never below it and moves
// without a jump (smooth.hpp).
std::vector<double> envelope(std::span<const double> raw, double sigma) {
  const int frames = static_cast<int>(raw.size());
  std::vector<double> dilated(frames), smoothed(frames);
  dilate_max(raw, gaussian_radius(sigma), dilated);
  gaussian_smooth(dilated, sigma, smoothed);
  return smoothed;
}

// Before each plant the swing's raise comes down to the plant's own by touchdown: d frames
// before it, at most `max_step` d^2 / (2 `ease`) above it (the foot lands without a jump of
// speed), then `max_step` a frame further out; never below what a frame itself needs (`need`,
// already a floor of `rise`). A smoothed envelope left high up to touchdown would drop the foot
// onto the plant in one frame.
void land_softly(const std::vector<Interval>& plants, std::span<const double> need,
                 std::span<const char> planted, double max_step, double ease,
                 std::vector<double>& rise) {
  ease = std::max(1.0, ease);
  for (const Interval& plant : plants) {
    const double level = rise[plant.first];
    for (int f = plant.first - 1; f >= 0 && !planted[f]; --f) {
      const double d = plant.first - f;
      const double above = d <= ease ? max_step * d * d / (2 * ease) : max_step * (d - ease / 2);
      if (rise[f] > level + above) rise[f] = std::max(need[f], level + above);
    }
  }
}

}  // namespace

bool all_above_mesh(const Terrain& terrain, std::span<const Vec3> points_ws) {
  if (!(terrain.held_margin(0.0, 0.0) == std::numeric_limits<double>::infinity())) return false;
  const double top = terrain.bounds_max().y;
  for (const Vec3& p : points_ws)
    if (!(p.y >= top)) return false;
  return true;
}

bool FootClearanceJob::validate() const {
  return foot && terrain && foot_rotation.size() == planted.size() && max_rise_per_frame > 0 &&
         rise_lead_frames >= 0 && max_planted_rise >= 0 && bend_smoothing_frames >= 0 &&
         rise_smoothing_frames >= 0;
}

// The points of `frames` posed (into `points`, frame-major, foot->point_count() a frame) and how
// far each lies under the terrain straight above it (into `lack`, metres; <= 0 above it or off
// the terrain). Both are sized for every frame of the clip; other frames are left as they are.
void FootClearanceJob::lacks(std::span<const Vec3> ankle_target_ws, const ToeBend& toe_bend,
                             std::span<const int> frames, std::vector<Vec3>& points,
                             std::vector<double>& lack) const {
  const int n = foot->point_count();
  const std::size_t all = planted.size() * static_cast<std::size_t>(n);
  points.resize(all);
  lack.resize(all, -1.0);
  std::vector<Vec3> some(frames.size() * n);
  parallel_ranges(
      runner, static_cast<int>(frames.size()), kMinLightFramesPerRange, [&](int begin, int end) {
        std::vector<Vec3> posed;
        for (int k = begin; k < end; ++k) {
          const int f = frames[k];
          foot->pose(f, planned_foot(ankle_target_ws[f], foot_rotation[f], toe_bend, f), posed);
          std::copy(posed.begin(), posed.end(), some.begin() + static_cast<std::ptrdiff_t>(k) * n);
        }
      });
  // Queried point-major: a planted point stands still from frame to frame, and a run of equal
  // points is cast once (Terrain::ground_at); a point's answer is its own whatever the order. A
  // point at or above the terrain's ceiling there is not under it: not queried, its lack left
  // at -1 (only a positive lack is used: bend_more, run).
  const std::size_t m = frames.size();
  std::vector<char> above(some.size());
  if (!all_above_mesh(*terrain, some))
    terrain->above_ground_ceiling(some, above);
  else
    std::fill(above.begin(), above.end(), char{1});
  constexpr std::size_t kAbove = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> asked(some.size(), kAbove);  // [i * m + k]: its index in xz
  std::vector<std::array<double, 2>> xz;
  xz.reserve(some.size());
  for (int i = 0; i < n; ++i)
    for (std::size_t k = 0; k < m; ++k) {
      if (above[k * n + i]) continue;
      asked[i * m + k] = xz.size();
      xz.push_back({some[k * n + i].x, some[k * n + i].z});
    }
  std::vector<GroundHit> ground(xz.size());
  ground_at_parallel(*terrain, xz, ground, runner);
  for (std::size_t k = 0; k < m; ++k)
    for (int i = 0; i < n; ++i) {
      const std::size_t from = k * n + i, to = static_cast<std::size_t>(frames[k]) * n + i;
      points[to] = some[from];
      const std::size_t query = asked[i * m + k];
      const GroundHit* under = query == kAbove ? nullptr : &ground[query];
      lack[to] = under && under->hit ? under->height - some[from].y : -1.0;
    }
}

// The toes turned further up about the ball where a toe point is under the terrain: per frame
// the least extra turn that brings each such point up to the surface above it (toe_bend.hpp),
// dilated and smoothed, the total within max_toe_bend. `points` and `lack`: lacks() of every
// frame with `toe_bend` as it was. Returns the frames bent further.
int FootClearanceJob::bend_more(const std::vector<Vec3>& points, const std::vector<double>& lack,
                                ToeBend& toe_bend) const {
  const int frames = static_cast<int>(planted.size());
  const int n = foot->point_count();
  const int ball = foot->index_of(FootPointKind::Ball), tip = foot->index_of(FootPointKind::ToeTip);
  if (ball < 0 || tip < 0) return 0;
  const bool fresh = toe_bend.angle.empty();  // no bend yet: its axes are made here
  if (fresh) {
    toe_bend.angle.assign(frames, 0.0);
    toe_bend.axis.assign(frames, Vec3(1, 0, 0));
  }
  std::vector<double> extra(frames, 0.0);
  parallel_ranges(runner, frames, kMinLightFramesPerRange, [&](int begin, int end) {
    for (int f = begin; f < end; ++f) {
      const Vec3* p = &points[static_cast<std::size_t>(f) * n];
      const double* under = &lack[static_cast<std::size_t>(f) * n];
      const double room = max_toe_bend - toe_bend.angle[f];
      double wanted = 0;
      for (int i = 0; i < n; ++i) {
        if (!foot->on_toe(i)) continue;
        const ToeLift lift = toe_lift(p[ball], p[i], p[i].y + under[i], kPi);
        if (fresh && i == tip) toe_bend.axis[f] = lift.axis;
        if (under[i] > 0) wanted = std::max(wanted, lift.angle);
      }
      // A planted foot's toes bend as far as they may (the raise does the rest); a swing
      // foot's only where that clears them (else it is raised, toes as they were).
      if (planted[f] || wanted <= room) extra[f] = std::min(wanted, room);
    }
  });
  int bent = 0;
  for (double e : extra) bent += e > 0 ? 1 : 0;
  if (bent == 0) return 0;
  const std::vector<double> smoothed = envelope(extra, bend_smoothing_frames);
  for (int f = 0; f < frames; ++f)
    toe_bend.angle[f] = std::clamp(toe_bend.angle[f] + smoothed[f], 0.0, max_toe_bend);
  return bent;
}

// One amount over each plant, the swing's need under a dilated, smoothed envelope brought down
// to each plant's raise by touchdown (land_softly), ramped at the rise speed and started before
// lift-off where needed (as swing_clearance does).
std::vector<double> clearance_rise(std::span<const double> need, std::span<const char> planted,
                                   double smoothing_frames, double max_rise_per_frame,
                                   int lead_frames) {
  const int frames = static_cast<int>(need.size());
  std::vector<double> per_frame(need.begin(), need.end());
  const std::vector<Interval> plants =
      contact_intervals(std::vector<char>(planted.begin(), planted.end()));
  for (const Interval& plant : plants) {
    double most = 0;
    for (int f = plant.first; f <= plant.last; ++f) most = std::max(most, need[f]);
    for (int f = plant.first; f <= plant.last; ++f) per_frame[f] = most;
  }
  const std::vector<double> smooth = envelope(per_frame, smoothing_frames);
  std::vector<double> rise(frames);
  for (int f = 0; f < frames; ++f)
    rise[f] = planted[f] ? per_frame[f] : std::max(per_frame[f], smooth[f]);
  land_softly(plants, per_frame, planted, max_rise_per_frame, smoothing_frames, rise);
  raise_to_rate_limit(rise, max_rise_per_frame, planted_except_last(planted, lead_frames));
  return rise;
}

FootClearance FootClearanceJob::run(std::span<Vec3> ankle_target_ws, std::span<Vec3> toe_target_ws,
                                    ToeBend& toe_bend) const {
  FootClearance out;
  const int frames = static_cast<int>(planted.size());
  if (frames == 0) return out;
  std::vector<int> every(static_cast<std::size_t>(frames));
  std::iota(every.begin(), every.end(), 0);
  std::vector<Vec3> points;
  std::vector<double> lack;
  lacks(ankle_target_ws, toe_bend, every, points, lack);
  // With no point under the terrain, bend_more bends nothing: it only makes the axes of a bend
  // not made yet (an empty toe_bend). Nothing else below changes then either.
  const bool any_under = std::any_of(lack.begin(), lack.end(), [](double d) { return d > 0; });
  if (can_bend && max_toe_bend > 0 && (any_under || toe_bend.angle.empty())) {
    const std::vector<double> angle_before = toe_bend.angle;  // empty: no bend yet
    out.bent_frames = bend_more(points, lack, toe_bend);
    // Posed again only where the bend changed (a zero bend, whatever its axis, poses the same).
    std::vector<int> changed;
    for (int f = 0; out.bent_frames > 0 && f < frames; ++f)
      if (toe_bend.angle[f] != (angle_before.empty() ? 0.0 : angle_before[f])) changed.push_back(f);
    lacks(ankle_target_ws, toe_bend, changed, points, lack);
  }
  const int n = foot->point_count();
  std::vector<double> need(frames, 0.0);
  bool lacking = false;
  for (int f = 0; f < frames; ++f) {
    for (int i = 0; i < n; ++i) {
      const double under = lack[static_cast<std::size_t>(f) * n + i];
      if (!planted[f] || under <= max_planted_rise) need[f] = std::max(need[f], under);
    }
    lacking = lacking || need[f] > 0;
  }
  if (!lacking) return out;
  const std::vector<double> rise =
      clearance_rise(need, planted, rise_smoothing_frames, max_rise_per_frame, rise_lead_frames);
  for (int f = 0; f < frames; ++f) {
    if (!(rise[f] > 0)) continue;
    ankle_target_ws[f].y += rise[f];
    toe_target_ws[f].y += rise[f];
    ++out.lifted_frames;
    out.max_lift_m = std::max(out.max_lift_m, rise[f]);
  }
  return out;
}

}  // namespace ikfix::core
