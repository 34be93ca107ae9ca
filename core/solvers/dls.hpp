#pragma once
// Damped least squares (Wampler 1986; Nakamura & Hanafusa 1986; see Buss 2004) on a chain of
// joints, as a job (same shape as FabrikJob and CcdJob): every joint but the end is a ball joint
// turning the joints after it, and each step turns them by
//   d_theta = J^T (J J^T + lambda^2 I)^-1 d_e
// where J (3 x 3(n-1)) maps the joints' rotation vectors (world axes, radians) to the end's
// velocity (metres) and d_e is the end's error to the target, clamped to a step length.
// J J^T is 3 x 3, so each step solves one 3 x 3 symmetric positive definite system (Cholesky).
// No allocation, no exceptions, thread-safe (the job is const while running), deterministic.
#include <span>

#include "core/math.hpp"

namespace ikfix::core {

struct DlsJob {
  // Start pose of the chain, root first, world metres. At least 2 joints. The root stays put.
  // Bone lengths are taken from it and preserved (the solver only turns joints).
  std::span<const Vec3> start_ws;
  // Where the last joint should go, world metres.
  Vec3 target_ws{0.0};
  // Optional bend direction (world, need not be unit): after the start and after every accepted
  // step, middle joints are turned about the root->end axis into the half-plane on this side
  // (apply_bend_plane), so knees keep the animated bend and never flip. Null: no plane
  // constraint. A pole parallel to the axis leaves the chain as it is for that step.
  const Vec3* pole_dir_ws = nullptr;
  // Stop when the end is this close to the target, metres (> 0).
  double tolerance = 1e-6;
  // Damped steps tried at most (>= 1), accepted or not.
  int max_iterations = 64;
  // Damping lambda at the first step, as a fraction of the chain's length (lambda is in metres
  // per radian, as J is; relative to the length it is scale-free). Adaptive, Levenberg-Marquardt
  // style: a step that lowers the error is kept and lambda shrinks by 4 (down to
  // min_damping), toward Gauss-Newton's fast convergence; a step that does not is dropped and
  // lambda grows by 4 (up to max_damping), toward a short gradient step. So the error never
  // grows, and near a singularity (a straight leg, a target at the edge of reach) the steps stay
  // short instead of exploding as the undamped pseudoinverse's do. (> 0 each, min <= initial <=
  // max.)
  double initial_damping = 0.1;
  double min_damping = 1e-7;
  double max_damping = 10.0;
  // The error asked of one step is clamped to this fraction of the chain's length (Buss & Kim's
  // clamp of the target: the linear model holds only near the pose). (> 0)
  double max_step = 0.25;
  // No joint turns more than this in one step, radians (all rotations are scaled down together,
  // so the step's direction is kept). (> 0)
  double max_step_angle = 0.5;

  // Output pose, same size as start_ws. May alias nothing else.
  std::span<Vec3> out_ws;
  // Optional outputs.
  int* iterations = nullptr;   // damped steps tried
  bool* reached = nullptr;     // true when the end is within tolerance of the target
  double* residual = nullptr;  // final |end - target|, metres (the shortfall when unreachable)

  bool validate() const;
  // Returns false only when validate() fails. A target at or beyond the chain's length is
  // answered in closed form, as least squares has it: the chain straight toward the target
  // (reached = false, residual = shortfall). A target inside reach that the chain cannot meet
  // (closer to the root than the bones allow) ends at a least-squares pose, reached = false.
  bool run() const;
};

}  // namespace ikfix::core
