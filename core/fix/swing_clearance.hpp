#pragma once
// Step 5a: swing feet above the terrain where they finally are. The pivot holds, and their fade
// after lift-off, move a foot horizontally after its height was planned, which can carry a toe
// over a step edge into the riser. Such a swing foot rises by what it lacks, over a dilated and
// smoothed envelope so it does not pop; planted frames are not moved.
#include <span>

#include "core/math.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

struct SwingClearanceJob {
  std::span<const char> planted;          // per frame
  std::span<const GroundHit> under_heel;  // the terrain under each frame's ankle target
  std::span<const GroundHit> under_toe;   // and under its toe target
  double floor = 0;                       // clip floor, world Y (off the terrain)
  double smoothing_frames = 0;            // sigma of the envelope, frames
  double max_rise_per_frame = 0;          // metres
  // Frames before lift-off the foot may start rising in (0 for given plants).
  int rise_lead_frames = 0;

  bool validate() const;
  // Raises the swing frames of both targets (world metres) by the same amount.
  void run(std::span<Vec3> ankle_target_ws, std::span<Vec3> toe_target_ws) const;
};

}  // namespace ikfix::core
