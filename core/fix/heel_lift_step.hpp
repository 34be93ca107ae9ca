#pragma once
// Step 5b: heel lift before pelvis drop (heel_lift.hpp has the math): a foot beyond its leg's
// reach turns up about its ball first, so the pelvis drops only for what is left. Runs before
// the toe bend, which then keeps the toes of a lifted heel on the ground.
#include <span>

#include "core/diagnostics.hpp"
#include "core/fix/sample_legs.hpp"

namespace ikfix::core {

struct HeelLiftJob {
  const LegSamples* samples = nullptr;  // the input's hips
  const LegRig* rig = nullptr;
  std::span<const double> body;            // per frame: the body's rise, metres (step 4)
  std::span<const signed char> pivots[2];  // per leg and frame: 0 heel held, 1 toe, -1 none
  double max_reach = 0;                    // x leg length
  double leg_length = 0;                   // metres
  double max_heel_lift = 0;                // radians (> 0, else nothing to do)
  double smoothing_frames = 0;             // sigma, frames
  const ParallelRunner* runner = nullptr;
  const ParallelRunner* leg_runner = nullptr;  // for per-leg parts (fix_parallel.hpp)

  bool validate() const;
  // Turns the feet that need it about their balls: moves their ankle targets, turns their foot
  // rotations; counts the lifted leg-frames and the largest lift in `diag`. Never while the heel
  // is a planted foot's locked pivot: turning about the ball would slide the heel it stands on.
  void run(std::span<Vec3> (&ankle_target_ws)[2], std::span<const Vec3> (&toe_target_ws)[2],
           std::span<Quat> (&foot_rotation)[2], FixDiagnostics& diag) const;
};

}  // namespace ikfix::core
