#pragma once
// Step 5: how far each foot moves up or down to stand on the terrain.
#include <vector>

namespace ikfix::core {

// Vertical offset of one foot per frame (metres, world Y): constant during each plant (the foot
// moved onto the terrain), eased between plants, and never less than what keeps every foot point
// at or above its planted level over the terrain (`need`). With `follow_need` (contacts given
// from another motion, e.g. a retarget source) the offset during a plant is exactly `need`: the
// animated foot was not planted on this skeleton, so it may rise or sink inside the given plant,
// and a constant offset would leave the foot floating and moving where the source's foot stands.
// A plant with any `keep_constant` frame keeps the constant offset.
// `ground_rel`: the ground under the foot above the clip floor (used where nothing is planted);
// `ease`: 1 in plants, easing to 0 in the swing (plant_ease_weight). Smoothing and clearance
// widths are sigmas in frames; `max_rise_per_frame` in metres. After each lift-off toward a
// higher plant, the swing's first `rise_in_frames` frames (ending at least 3 frames before the
// touchdown) are re-made with the least sum of squared jerk (the central third difference
// metrics measure) that keeps them at `need`, the plant and the later frames held: the foot
// leaves the ground curving up, where the swing's rise would otherwise start at the rate the
// need asks a few frames later and then brake hard. Below 2 leaves the offsets as they are.
std::vector<double> foot_offsets(const std::vector<char>& planted, const std::vector<double>& need,
                                 const std::vector<double>& ground_rel,
                                 const std::vector<double>& ease, double smoothing_frames,
                                 double clearance_frames, double max_rise_per_frame,
                                 bool follow_need, const std::vector<char>& keep_constant,
                                 int rise_in_frames = 0);

}  // namespace ikfix::core
