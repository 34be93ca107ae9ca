#pragma once
// Analytic two-bone IK (hip-knee-ankle) as a job: exact, no iterations.
#include "core/math.hpp"

namespace ikfix::core {

struct TwoBoneJob {
  // Start pose, world metres: root (hip), middle (knee), end (ankle). Bone lengths are taken
  // from it, so they are preserved exactly.
  Vec3 root_ws{0.0}, mid_ws{0.0}, end_ws{0.0};
  Vec3 target_ws{0.0};
  // Bend direction (world, need not be unit). Null: keep the start pose's bend plane; when the
  // start pose is straight too, an arbitrary perpendicular is used (the chain may flip: give a
  // pole).
  const Vec3* pole_dir_ws = nullptr;
  double tolerance = 1e-6;  // metres, for `reached`

  Vec3* out_mid_ws = nullptr;  // required
  Vec3* out_end_ws = nullptr;  // required
  bool* reached = nullptr;
  double* residual = nullptr;  // metres

  bool validate() const;
  bool run() const;  // unreachable: straight toward the target (too far) or folded (too close)
};

}  // namespace ikfix::core
