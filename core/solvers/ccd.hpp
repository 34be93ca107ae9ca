#pragma once
// Cyclic Coordinate Descent on a chain of joints, as a job (same shape as FabrikJob).
#include <span>

#include "core/math.hpp"

namespace ikfix::core {

struct CcdJob {
  std::span<const Vec3> start_ws;  // root first, world metres, >= 2 joints; the root stays put
  Vec3 target_ws{0.0};
  const Vec3* pole_dir_ws = nullptr;  // optional bend side for middle joints (see FabrikJob)
  double tolerance = 1e-6;            // metres
  int max_iterations = 64;            // sweeps end->root

  std::span<Vec3> out_ws;  // same size as start_ws; bone lengths preserved (rotations only)
  int* iterations = nullptr;
  bool* reached = nullptr;
  double* residual = nullptr;

  bool validate() const;
  bool run() const;
};

}  // namespace ikfix::core
