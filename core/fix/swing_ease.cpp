#include "core/fix/swing_ease.hpp"

#include <algorithm>
#include <vector>

#include "core/fix/foot_contacts.hpp"
#include "core/fix/least_jerk.hpp"
#include "core/metrics.hpp"

namespace ikfix::core {
namespace {

// Per frame of `asked` (others 0), how fast the check would see the foot slide (metrics.hpp
// plant_slide; 0 off its plants) with its heel (ankle) and toe raised by `rise`.
std::vector<double> seen_slide(std::span<const Vec3> ankle_ws, std::span<const Vec3> toe_ws,
                               const std::vector<double>& rise,
                               std::span<const GroundHit> under_heel,
                               std::span<const GroundHit> under_toe, double fps,
                               const ContactSettings& settings, const std::vector<char>& asked) {
  const int frames = static_cast<int>(rise.size());
  std::vector<Vec3> heel(ankle_ws.begin(), ankle_ws.end()), toe(toe_ws.begin(), toe_ws.end());
  for (int f = 0; f < frames; ++f) {
    heel[f].y += rise[f];
    toe[f].y += rise[f];
  }
  const FootContacts seen =
      foot_contacts_on_ground(heel, toe, under_heel, under_toe, fps, settings);
  std::vector<double> slide(frames, 0.0);
  for (const Interval& plant : contact_intervals(seen.planted))
    for (int f = plant.first; f <= plant.last; ++f) {
      if (!asked[f]) continue;
      int pivot = -1;
      slide[f] = std::max(0.0, plant_slide(heel, toe, seen.point_planted, plant, f, fps, pivot));
    }
  return slide;
}

// The runs of `made` that raise a frame, the only ones that change anything (the runs are
// disjoint, and the path is made again only on them); `compared` marks the frames within two
// of them, the only ones whose slide is compared.
std::vector<Interval> raising_runs(const std::vector<Interval>& made,
                                   const std::vector<double>& rise, std::vector<char>& compared) {
  const int frames = static_cast<int>(rise.size());
  std::vector<Interval> raising;
  compared.assign(frames, 0);
  for (const Interval& run : made) {
    if (std::none_of(rise.begin() + run.first, rise.begin() + run.last + 1,
                     [](double r) { return r > 0; }))
      continue;
    raising.push_back(run);
    std::fill(compared.begin() + std::max(0, run.first - 2),
              compared.begin() + std::min(frames - 1, run.last + 2) + 1, 1);
  }
  return raising;
}

}  // namespace

bool SwingEaseJob::validate() const {
  return input_ankle.size() == planted.size() && under_heel.size() == planted.size() &&
         under_toe.size() == planted.size() && contact_settings && fps > 0 && lead_frames >= 0 &&
         max_frames >= 0 && min_change >= 0;
}

int SwingEaseJob::run(std::span<Vec3> ankle_target_ws, std::span<Vec3> toe_target_ws) const {
  const int frames = static_cast<int>(planted.size());
  std::vector<double> height(frames);
  for (int f = 0; f < frames; ++f) height[f] = ankle_target_ws[f].y;
  const std::vector<double> low = height;
  const auto changed = [&](int first, int last) {
    double lo = 1e300, hi = -1e300;
    for (int f = first - 3; f <= last + 3; ++f) {
      const double change = low[f] - input_ankle[f];
      lo = std::min(lo, change);
      hi = std::max(hi, change);
    }
    return hi - lo > min_change;
  };
  const std::vector<Interval> made =
      least_jerk_swings(planted, low, changed, max_frames, lead_frames, height);
  if (made.empty()) return 0;
  std::vector<double> rise(frames, 0.0);
  for (int f = 0; f < frames; ++f) rise[f] = std::max(0.0, height[f] - low[f]);
  std::vector<char> compared;
  const std::vector<Interval> raising = raising_runs(made, rise, compared);
  if (raising.empty()) return 0;
  // Raising a foot does not move it horizontally: the ground under it stays.
  const std::vector<double> none(frames, 0.0);
  const std::vector<double> before = seen_slide(ankle_target_ws, toe_target_ws, none, under_heel,
                                                under_toe, fps, *contact_settings, compared);
  const std::vector<double> after = seen_slide(ankle_target_ws, toe_target_ws, rise, under_heel,
                                               under_toe, fps, *contact_settings, compared);
  // Each swing's ease is dropped where the check would see the foot slide faster on a frame
  // within two of it (its speeds are central differences, its plants' ends one-sided): a raised
  // foot no longer counted planted, or one now counted planted, where the other point turns
  // about it.
  int raised = 0;
  for (const Interval& run : raising) {
    bool slides = false;
    for (int f = std::max(0, run.first - 2); f <= std::min(frames - 1, run.last + 2); ++f)
      slides = slides || after[f] > before[f];
    if (slides) continue;
    for (int f = run.first; f <= run.last; ++f) {
      if (!(rise[f] > 0)) continue;
      ankle_target_ws[f].y += rise[f];
      toe_target_ws[f].y += rise[f];
      ++raised;
    }
  }
  return raised;
}

}  // namespace ikfix::core
