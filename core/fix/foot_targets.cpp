#include "core/fix/foot_targets.hpp"

namespace ikfix::core {

void FootTargetsJob::run(std::vector<Vec3>& ankle_target_ws, std::vector<Quat>& foot_rotation,
                         std::vector<Vec3>& toe_target_ws, std::span<const char> only) const {
  const int frames = static_cast<int>(offset.size());
  ankle_target_ws.resize(frames);
  foot_rotation.resize(frames);
  for (int f = 0; f < frames; ++f) {
    if (!only.empty() && !only[f]) continue;
    const Quat& animated_rot = input_ankle_rotation[f];
    Quat ankle_rot = animated_rot;
    Vec3 target = feet->ankle[f] + Vec3(0, offset[f], 0);
    if (align_feet && align_weight[f] > 0) {
      const double full_tilt = ground_tilt[f];
      const Vec3& axis = tilt_axis[f];
      const Vec3 toe_from_ankle = feet->toe[f] - feet->ankle[f];
      const double toe_floor = toe_ground[f] + (toe_planted_level - floor);
      Quat turn = identity_quat();
      for (double fraction : {1.0, 0.75, 0.5, 0.25, 0.0}) {
        turn = fraction == 1.0 ? ground_turn[f] : axis_angle(axis, full_tilt * fraction);
        const double toe_y = target.y + (turn * toe_from_ankle).y;
        if (full_tilt == 0.0 || toe_y >= toe_floor - 1e-9 ||
            toe_y >= target.y + toe_from_ankle.y - 1e-9)
          break;
      }
      ankle_rot = turn * animated_rot;
    }
    ankle_target_ws[f] = target;
    foot_rotation[f] = ankle_rot;
  }
  toe_target_ws.resize(frames);
  for (int f = 0; f < frames; ++f)
    if (only.empty() || only[f])
      toe_target_ws[f] = ankle_target_ws[f] + foot_rotation[f] * ankle_rotation_inverse[f] *
                                                  (feet->toe[f] - feet->ankle[f]);
}

}  // namespace ikfix::core
