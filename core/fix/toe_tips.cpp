#include "core/fix/toe_tips.hpp"

#include "core/fix/fix_parallel.hpp"
#include "core/lanes.hpp"

namespace ikfix::core {

void toe_tips(const LegSamples& samples, int l, int toe_joint, const Vec3& tip_offset,
              std::span<const Quat> foot_rotation, std::span<const Vec3> toe_target_ws,
              const ParallelRunner* runner, std::span<Vec3> tip, std::span<double> tip_y) {
  const int frames = static_cast<int>(tip.size());
  const std::vector<Quat>& ankle_inverse = samples.ankle_rotation_inverse[l];
  auto W = [&](int f) -> const Transform& { return samples.at(f, toe_joint); };
  parallel_ranges(runner, frames, kMinLightFramesPerRange, [&](int begin, int end) {
    int f = begin;
    // Frames in pairs, in the two lanes of SSE registers (the same bits as one by one below).
    const LaneVec3 offset = lanes_of(tip_offset, tip_offset);
    for (; f + 1 < end; f += 2) {
      const LaneTransform toe = lanes_of(W(f), W(f + 1));
      tip_y[f] = transform_point(toe, offset).y[0];
      tip_y[f + 1] = transform_point(toe, offset).y[1];
      const LaneQuat toe_rot = lanes_of(foot_rotation[f], foot_rotation[f + 1]) *
                               lanes_of(ankle_inverse[f], ankle_inverse[f + 1]) * toe.rotation;
      const LaneVec3 pair_tip = transform_point(
          LaneTransform{lanes_of(toe_target_ws[f], toe_target_ws[f + 1]), toe_rot, toe.scale},
          offset);
      tip[f] = lane(pair_tip, 0);
      tip[f + 1] = lane(pair_tip, 1);
    }
    for (; f < end; ++f) {
      tip_y[f] = transform_point(W(f), tip_offset).y;
      const Quat toe_rot = foot_rotation[f] * ankle_inverse[f] * W(f).rotation;
      tip[f] = transform_point(Transform{toe_target_ws[f], toe_rot, W(f).scale}, tip_offset);
    }
  });
}

}  // namespace ikfix::core
