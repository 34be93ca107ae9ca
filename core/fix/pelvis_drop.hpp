#pragma once
// Step 6: the pelvis lowered just enough for both legs to reach their ankle targets, within a
// limit; dilated before smoothing so the smoothed drop never falls short of what a frame needs.
#include <span>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/fix/sample_legs.hpp"

namespace ikfix::core {

struct PelvisDropJob {
  const LegSamples* samples = nullptr;  // the input's hips
  const LegRig* rig = nullptr;
  std::span<const double> body;              // per frame: the body's rise, metres (step 4)
  std::span<const Vec3> ankle_target_ws[2];  // per leg and frame, world metres
  double max_reach = 0;                      // x leg length (FixSettings::max_reach)
  double leg_length = 0;                     // metres
  double max_pelvis_drop = 0;                // x leg length
  double smoothing_frames = 0;               // sigma, frames
  const ParallelRunner* runner = nullptr;

  bool validate() const;
  // Per frame, the drop (metres, >= 0, at most max_pelvis_drop leg lengths). Notes the frames
  // where the limit bites (pelvis_limit, a warning) and the drop's extremes in `diag`.
  std::vector<double> run(FixDiagnostics& diag) const;
};

}  // namespace ikfix::core
