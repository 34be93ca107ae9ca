#pragma once
// Kernel: the toe tips of one leg over a frame range, two frames at a time in the lanes of SSE
// registers (lanes.hpp), the same bits as one frame at a time.
#include <span>

#include "core/fix/sample_legs.hpp"

namespace ikfix::core {

// For frames [0, frames) of leg `l` (split over `runner`): `tip_y`, the animated toe tip's world
// Y, and `tip`, the tip carried rigidly by the foot's new pose (the ball at `toe_target_ws`, the
// toe turned by `foot_rotation` times the input ankle's inverse). `tip_offset`: the toe's end
// site in the toe joint's frame.
void toe_tips(const LegSamples& samples, int l, int toe_joint, const Vec3& tip_offset,
              std::span<const Quat> foot_rotation, std::span<const Vec3> toe_target_ws,
              const ParallelRunner* runner, std::span<Vec3> tip, std::span<double> tip_y);

}  // namespace ikfix::core
