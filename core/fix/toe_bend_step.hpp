#pragma once
// Toe bend (with step 8's foot orientation): where a planted foot's toe tips would go below their
// level over the ground under them (a foot turned to a rising slope, a heel up on the ball), they
// turn up about the ball joint instead (toe_bend.hpp has the math). Dilated, then smoothed, so
// the bend is never short of what a frame needs and does not pop.
#include <span>
#include <vector>

#include "core/fix/sample_legs.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

struct ToeBend {
  std::vector<double> angle;  // per frame, radians in [0, max_toe_bend]; empty: no bend
  std::vector<Vec3> axis;     // per frame, world (toe_lift)
};

struct ToeBendJob {
  const Skeleton* skeleton = nullptr;
  const LegSamples* samples = nullptr;
  int leg_index = 0;
  const Leg* leg = nullptr;
  bool align_feet = true;                // no bend without foot alignment
  std::span<const Quat> foot_rotation;   // per frame: the ankle's new world rotation
  std::span<const Vec3> toe_target_ws;   // per frame: the ball's target
  std::span<const double> align_weight;  // per frame: > 0 where the foot is aligned (bends)
  const Terrain* terrain = nullptr;
  double floor = 0;             // clip floor, world Y
  double max_toe_bend = 0;      // radians
  double smoothing_frames = 0;  // sigma, frames
  const ParallelRunner* runner = nullptr;

  // The leg's bend; empty when the toe has no end site below the ankle or feet are not aligned.
  ToeBend run() const;
};

}  // namespace ikfix::core
