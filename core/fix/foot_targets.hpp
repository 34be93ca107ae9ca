#pragma once
// Step 8 (planned before 6, so the pelvis drop knows the final targets): foot targets and foot
// orientation per frame — the ankle target on the terrain, the foot turned by the ground's tilt.
#include <span>
#include <vector>

#include "core/fix/sample_legs.hpp"

namespace ikfix::core {

struct FootTargetsJob {
  const FootTrack* feet = nullptr;               // the locked feet, world metres
  std::span<const double> offset;                // per frame: the foot's vertical offset, metres
  std::span<const Quat> input_ankle_rotation;    // per frame, world
  std::span<const Quat> ankle_rotation_inverse;  // per frame: inverse of the above
  bool align_feet = true;
  std::span<const double> align_weight;  // per frame: > 0 where the foot turns to the ground
  std::span<const double> ground_tilt;   // per frame: radians (weighted, limited)
  std::span<const Vec3> tilt_axis;       // per frame, world
  std::span<const Quat> ground_turn;     // per frame: axis_angle(tilt_axis, ground_tilt)
  std::span<const double> toe_ground;    // per frame: terrain Y under the toe
  double toe_planted_level = 0;          // the toe's planted level, world Y
  double floor = 0;                      // clip floor, world Y

  // Per frame: the ankle target, the foot's new world rotation, and the toe carried rigidly by
  // it. The toe stays at or above its own level over the ground under it: where the ground
  // under the toe differs from the ankle's slope (bumps, a step edge), the tilt is reduced.
  // Each frame is made from that frame's inputs alone. `only` (empty: every frame): the frames
  // to make; the others keep the outputs' values (the outputs must then hold every frame).
  void run(std::vector<Vec3>& ankle_target_ws, std::vector<Quat>& foot_rotation,
           std::vector<Vec3>& toe_target_ws, std::span<const char> only = {}) const;
};

}  // namespace ikfix::core
