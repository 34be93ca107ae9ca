#pragma once
// Step 5d: a swing whose height the fix changed leaves and meets its plants without a pop. The
// plan eases a swing out of a plant only from lift-off on (the passes decide contacts from the
// plant as planned), and steps 5a and 5c add their raises after it: where the swing must climb
// at once (a step up just ahead of the toes) the foot's height jumps in speed at lift-off, a
// spike of jerk. Here each such swing's ankle height is re-made as the least-jerk path at or
// above the height the steps before made (least_jerk.hpp), starting up to `lead_frames` before
// lift-off, the foot rising straight up there (its horizontal lock holds), as a person lifts a
// foot to step up. Only raised, never lowered: every clearance made before holds.
//
// A foot that rises more slowly can look planted to `ikfix check` (foot_contacts.hpp: low and
// slower than its speed threshold) on a frame where the fix does not hold it: such a swing is
// left as it was, so the check sees no plant the fix has not locked.
#include <span>

#include "core/fix/contacts.hpp"
#include "core/math.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

// Metres, for a leg of FixSettings::reference_leg_length: SwingEaseJob::min_change.
inline constexpr double kSwingEaseMinChange = 0.005;

struct SwingEaseJob {
  std::span<const char> planted;          // per frame
  std::span<const double> input_ankle;    // per frame: the animation's ankle height, world Y metres
  std::span<const GroundHit> under_heel;  // the terrain under each frame's ankle target
  std::span<const GroundHit> under_toe;   // and under its toe target
  const ContactSettings* contact_settings = nullptr;  // scaled to the leg, as the check's
  double fps = 0;
  int lead_frames = 0;  // frames before lift-off the rise may start in
  int max_frames = 0;   // a longer swing is eased over max_frames / 2 frames at each end
  // Metres: a swing is eased when the fix's change of its ankle height (target minus the
  // animation's) varies by more than this over it and the three frames either side.
  double min_change = 0;

  bool validate() const;
  // Raises the eased frames of both targets (world metres) by the same amount. Returns the
  // frames raised.
  int run(std::span<Vec3> ankle_target_ws, std::span<Vec3> toe_target_ws) const;
};

}  // namespace ikfix::core
