#pragma once
// Step 6b: a foot skinned to the shin kept out of the terrain. A leg whose ankle has no skinned
// vertices (a 2-bone Blender leg) carries its foot mesh on the shin bone (FootModel::sole_on_shin):
// the sole turns with the shin, so where it goes depends on how the leg solve bends the knee,
// which the steps before the solve cannot see (step 5c carries it with the ankle). This step
// runs after the pelvis drop, when the write-back's solves are known: it solves each frame's
// legs as the write-back will (WriteBackJob::solve_frame), poses the sole with the solved shin
// (output_foot.hpp) and raises the ankle target by what the sole lacks straight down, one amount
// over each plant (clearance_rise, as step 5c), so a planted foot never moves; a planted point
// inside a riser is left to the plant's placement (kRiserDepthFraction). A raise bends the
// knee further and tilts the shin, so the step repeats on the raised targets until the sole is
// out (or kMaxShinSolePasses).
#include <cstddef>
#include <span>
#include <vector>

#include "core/fix/output_foot.hpp"
#include "core/fix/write_back.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

// Most solve-pose-raise passes: each adds the raise the last one still lacked.
inline constexpr int kMaxShinSolePasses = 12;
// Metres: a sole lacking no more than this after a pass is out.
inline constexpr double kShinSoleTolerance = 1e-4;

// A planted sole point whose nearest-surface depth is below this fraction of its depth under
// the surface straight above it is inside a riser or a wall, not under the tread: not raised for.
inline constexpr double kRiserDepthFraction = 0.5;

// What the step did to one leg, for the report's diagnostics.
struct ShinSoleClearance {
  int lifted_frames = 0;  // frames whose ankle target was raised
  double max_lift_m = 0;  // the largest raise, metres
  int passes = 0;         // solve-pose-raise passes run
};

struct ShinSoleClearanceJob {
  const WriteBackJob* solves = nullptr;  // the write-back's solves (its targets are raised here)
  // Per leg: its foot (null: a foot not on the shin, left alone) and that foot's model.
  const OutputFoot* foot[2] = {nullptr, nullptr};
  const FootModel* model[2] = {nullptr, nullptr};
  const Terrain* terrain = nullptr;
  std::span<const char> planted[2];  // per leg and frame
  double rise_smoothing_frames = 0;  // sigma of the raise's envelope, frames
  double max_rise_per_frame = 0;     // metres
  int rise_lead_frames[2] = {0, 0};  // per leg: frames before lift-off a raise may start in
  const ParallelRunner* runner = nullptr;

  bool validate() const;
  // Raises ankle_target_ws[l] and toe_target_ws[l] (world metres; the spans the write-back job
  // reads) of each leg with a foot where its sole would be under the terrain.
  void run(std::span<Vec3> ankle_target_ws[2], std::span<Vec3> toe_target_ws[2],
           ShinSoleClearance (&out)[2]) const;

 private:
  // Each leg's `count[l]` sole vertices (world metres) posed with the leg solved to its target,
  // frame-major: sole[l][f * count[l] + k].
  void pose_soles(std::vector<Vec3> (&sole)[2], const std::size_t (&count)[2]) const;
  // Per leg and frame: how far the sole lies under the terrain straight above it (metres,
  // >= 0) with the targets as they are.
  void lacks(std::vector<double> (&lack)[2]) const;
};

}  // namespace ikfix::core
