#pragma once
// Step 6: the pelvis's height. It follows a smooth trend of the body's rise (step 4's staircase,
// one level per plant, smoothed into a ramp, so the hips do not bob up at each plant), lowered
// just enough for both legs to reach their ankle targets, within a limit; what each frame needs
// below the trend is dilated before it is smoothed, so the pelvis never ends above what a frame
// allows. Only the pelvis moves: the ankle targets, planted or not, stay where steps 3-5 put
// them, and the legs take up the difference.
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
  double trend_frames = 0;                   // sigma, frames: the body's rise as a trend
  double smoothing_frames = 0;               // sigma, frames: the lowering below the trend
  const ParallelRunner* runner = nullptr;

  bool validate() const;
  // Per frame, the pelvis's drop below the body's rise `body` (metres, at most max_pelvis_drop
  // leg lengths; negative where the trend runs above the body's rise, e.g. just before a step
  // up). Notes the frames where the limit bites (pelvis_limit, a warning), the largest drop and
  // the mean of its positive part in `diag`.
  std::vector<double> run(FixDiagnostics& diag) const;
};

}  // namespace ikfix::core
