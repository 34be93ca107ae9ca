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
// widths are sigmas in frames; `max_rise_per_frame` in metres.
std::vector<double> foot_offsets(const std::vector<char>& planted, const std::vector<double>& need,
                                 const std::vector<double>& ground_rel,
                                 const std::vector<double>& ease, double smoothing_frames,
                                 double clearance_frames, double max_rise_per_frame,
                                 bool follow_need, const std::vector<char>& keep_constant);

}  // namespace ikfix::core
