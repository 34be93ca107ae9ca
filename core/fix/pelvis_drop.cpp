#include "core/fix/pelvis_drop.hpp"

#include <algorithm>
#include <cstdio>
#include <span>
#include <string>

#include "core/fix/fix_parallel.hpp"
#include "core/fix/heel_lift.hpp"
#include "core/fix/smooth.hpp"

namespace ikfix::core {
namespace {

// Clamps each frame's needed drop to `max_drop`, noting where it bites as ranges.
void clamp_to_limit(std::vector<double>& drop_raw, double max_drop, FixDiagnostics& diag) {
  const int frames = static_cast<int>(drop_raw.size());
  for (int f = 0; f < frames; ++f) {
    double d = drop_raw[f];
    if (d > max_drop) {
      ++diag.pelvis_limit_frames;
      if (diag.pelvis_limit.empty() || diag.pelvis_limit.back().last != f - 1)
        diag.pelvis_limit.push_back({f, f, d, f});
      PelvisLimitRange& range = diag.pelvis_limit.back();
      range.last = f;
      if (d > range.max_needed_drop_m) {
        range.max_needed_drop_m = d;
        range.worst_frame = f;
      }
      d = max_drop;
    }
    drop_raw[f] = d;
  }
}

// Names where the limit bites (the first few ranges), so a user can go and look.
void warn_where_limited(double max_pelvis_drop, FixDiagnostics& diag) {
  if (diag.pelvis_limit_frames <= 0) return;
  std::string where;
  for (std::size_t i = 0; i < diag.pelvis_limit.size() && i < 3; ++i) {
    const PelvisLimitRange& r = diag.pelvis_limit[i];
    where += (i ? ", " : "") + std::to_string(r.first) +
             (r.last > r.first ? "-" + std::to_string(r.last) : "");
  }
  if (diag.pelvis_limit.size() > 3) where += ", ...";
  char limit[32];
  std::snprintf(limit, sizeof limit, "%.2f", max_pelvis_drop);
  diag.warnings.push_back(std::string("pelvis drop limit (") + limit +
                          " x leg length) reached on " + std::to_string(diag.pelvis_limit_frames) +
                          " frames (" + where + ")");
}

// The pelvis's rise per frame (metres): the body's rise smoothed with sigma `trend_frames` (the
// staircase of one level per plant becomes a ramp), lowered by the smoothed dilation of how far
// each frame's `ceiling` (the highest rise at which both legs reach) is below that trend. With a
// kernel no wider than the dilation, the result never rises above a frame's ceiling.
std::vector<double> pelvis_rise(std::span<const double> body, std::span<const double> ceiling,
                                double trend_frames, double smoothing_frames) {
  const int frames = static_cast<int>(body.size());
  std::vector<double> trend(frames), below(frames), dilated(frames), lowered(frames);
  gaussian_smooth(body, trend_frames, trend);
  for (int f = 0; f < frames; ++f) below[f] = std::max(0.0, trend[f] - ceiling[f]);
  dilate_max(below, gaussian_radius(smoothing_frames), dilated);
  gaussian_smooth(dilated, smoothing_frames, lowered);
  for (int f = 0; f < frames; ++f) trend[f] -= lowered[f];
  return trend;
}

}  // namespace

bool PelvisDropJob::validate() const {
  const std::size_t frames = body.size();
  return samples && rig && ankle_target_ws[0].size() == frames &&
         ankle_target_ws[1].size() == frames && samples->leg_span[0].size() == frames &&
         max_pelvis_drop >= 0 && leg_length >= 0;
}

std::vector<double> PelvisDropJob::run(FixDiagnostics& diag) const {
  const int frames = static_cast<int>(body.size());
  const double max_drop = max_pelvis_drop * leg_length;
  std::vector<double> drop_raw(frames);
  parallel_ranges(runner, frames, kMinLightFramesPerRange, [&](int begin, int end) {
    for (int f = begin; f < end; ++f) {
      double d = 0;
      for (int l = 0; l < 2; ++l) {
        const Vec3 hip = samples->at(f, rig->legs[l].hip).translation + Vec3(0, body[f], 0);
        d = std::max(d, pelvis_drop_needed(hip, ankle_target_ws[l][f],
                                           leg_reach(*samples, max_reach, leg_length, l, f)));
      }
      drop_raw[f] = d;
    }
  });
  clamp_to_limit(drop_raw, max_drop, diag);
  std::vector<double> ceiling(frames);
  for (int f = 0; f < frames; ++f) ceiling[f] = body[f] - drop_raw[f];
  std::vector<double> drop = pelvis_rise(body, ceiling, trend_frames, smoothing_frames);
  for (int f = 0; f < frames; ++f) {
    drop[f] = std::min(body[f] - drop[f], max_drop);
    diag.max_pelvis_drop_m = std::max(diag.max_pelvis_drop_m, drop[f]);
    diag.mean_pelvis_drop_m += std::max(0.0, drop[f]) / frames;
  }
  warn_where_limited(max_pelvis_drop, diag);
  return drop;
}

}  // namespace ikfix::core
