#include "core/fix/toe_bend_step.hpp"

#include <algorithm>
#include <limits>

#include "core/fix/fix_math.hpp"
#include "core/fix/fix_parallel.hpp"
#include "core/fix/ground_track.hpp"
#include "core/fix/smooth.hpp"
#include "core/fix/toe_bend.hpp"
#include "core/fix/toe_tips.hpp"

namespace ikfix::core {

ToeBend ToeBendJob::run() const {
  ToeBend out;
  const Skeleton& sk = *skeleton;
  const int frames = static_cast<int>(toe_target_ws.size());
  const auto& tip_offset = leg->toe >= 0 ? sk.end_sites[leg->toe] : std::nullopt;
  if (!align_feet || !tip_offset || sk.parents[leg->toe] != leg->ankle) return out;
  std::vector<Vec3> tip(frames);
  std::vector<double> tip_y(frames);  // the animated tip's height
  toe_tips(*samples, leg_index, leg->toe, *tip_offset, foot_rotation, toe_target_ws, runner, tip,
           tip_y);
  const double tip_level = percentile(tip_y, 0.05);
  // Only aligned frames bend by themselves (the others' raw bend is 0, and the bend's axis
  // does not depend on the ground), so only their tips need the ground under them.
  std::vector<Vec3> aligned_tip;
  std::vector<int> aligned_index(frames, -1);  // per frame: index in aligned_tip
  for (int f = 0; f < frames; ++f)
    if (align_weight[f] > 0) {
      aligned_index[f] = static_cast<int>(aligned_tip.size());
      aligned_tip.push_back(tip[f]);
    }
  const GroundTrack under_tip = query_ground(*terrain, aligned_tip, floor, runner);
  std::vector<double> raw(frames, 0.0), dilated(frames), smoothed(frames);
  out.axis.resize(frames);
  parallel_ranges(runner, frames, kMinLightFramesPerRange, [&](int begin, int end) {
    for (int f = begin; f < end; ++f) {
      const bool bends = aligned_index[f] >= 0;
      const double min_y = bends ? under_tip.height[aligned_index[f]] + (tip_level - floor)
                                 : -std::numeric_limits<double>::infinity();
      const ToeLift lift = toe_lift(toe_target_ws[f], tip[f], min_y, max_toe_bend);
      out.axis[f] = lift.axis;
      if (bends) raw[f] = lift.angle;
    }
  });
  const double sigma = smoothing_frames;
  dilate_max(raw, gaussian_radius(sigma), dilated);
  gaussian_smooth(dilated, sigma, smoothed);
  for (double& a : smoothed) a = std::clamp(a, 0.0, max_toe_bend);
  out.angle = std::move(smoothed);
  return out;
}

}  // namespace ikfix::core
