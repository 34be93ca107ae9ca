#pragma once
// FABRIK (Aristidou & Lasenby 2011) on a chain of joints, as a job: inputs with safe defaults,
// outputs through spans and nullable pointers, validate() then run(). No allocation, no
// exceptions, thread-safe (the job is const while running).
#include <span>

#include "core/math.hpp"

namespace ikfix::core {

struct FabrikJob {
  // Start pose of the chain, root first, world metres. At least 2 joints. The root stays put.
  std::span<const Vec3> start_ws;
  // Bone lengths, metres: lengths[i] = |joint i+1 - joint i|; start_ws.size() - 1 entries, >= 0.
  std::span<const double> lengths;
  // Where the last joint should go, world metres.
  Vec3 target_ws{0.0};
  // Optional bend direction (world, need not be unit): middle joints are kept in the half-plane
  // of the root->target axis on this side, so knees keep the animated bend and never flip.
  // Null: no plane constraint. A pole parallel to the axis is ignored for that iteration.
  // Three joints with align_start: applied once before the passes (which then keep the chain in
  // that plane) and once after, not after every pass.
  const Vec3* pole_dir_ws = nullptr;
  // Stop when the end is this close to the target, metres (> 0).
  double tolerance = 1e-6;
  // Forward+backward passes at most (>= 1). Near full extension FABRIK creeps; see below.
  int max_iterations = 64;
  // For 3-joint chains with a reachable target, finish with the exact two-bone placement in the
  // current bend plane when iterations did not reach `tolerance` (FABRIK converges slowly on
  // almost straight legs: measured up to 4 cm off after 10 iterations on real walk poses).
  // With a pole and a target the placement is well defined for (not on the root, pole not along
  // the root->target axis), that placement does not depend on the passes: they stop as soon as
  // their convergence rate shows they will not reach `tolerance` in the passes left, and
  // `iterations` counts only the passes run.
  bool exact_final_step = true;
  // Three-joint chains only: start by turning the chain about the root so its end points at the
  // target; the passes then only have to fix the bend. (Longer chains converge better without.)
  bool align_start = true;

  // Output pose, same size as start_ws. May alias nothing else.
  std::span<Vec3> out_ws;
  // Optional outputs.
  int* iterations = nullptr;   // passes used
  bool* reached = nullptr;     // true when the end is within tolerance of the target
  double* residual = nullptr;  // final |end - target|, metres (the shortfall when unreachable)

  bool validate() const;
  // Returns false only when validate() fails. Unreachable targets stretch the chain straight
  // toward the target (reached = false, residual = shortfall).
  bool run() const;
};

// Runs two independent jobs (a character's two legs), a pass of one then a pass of the other,
// so the CPU overlaps their chains of square roots and divisions: the same outputs, bit for bit,
// as a.run() and b.run(). ok[i]: what run() would return. The jobs' outputs must not alias.
void run_fabrik_pair(const FabrikJob& a, const FabrikJob& b, bool ok[2]);

}  // namespace ikfix::core
