#pragma once
// The last word on a planted foot's pivot: after the foot has been moved onto the terrain and
// turned to its slope, the pivot point (heel = ankle joint, or toe) must not move horizontally
// while planted. Tilting the foot about the ankle moves the toe, and a pivot switch between two
// differently tilted poses would pop; this pass removes both by holding the final positions.
#include <vector>

#include "core/math.hpp"

namespace ikfix::core {

// Horizontal correction per frame (Y = 0, metres) to add to the whole foot so that during each
// planted run the pivot point stays exactly where it was when it became the pivot. `pivots[f]`:
// 0 heel (`heel[f]`), 1 toe (`toe[f]`), -1 not planted. On a switch the new pivot is held where
// it was on the frame before (corrected), so it does not move on the switch frame either. If the
// correction would exceed `drag_radius` it is dragged along instead (the animation really walked
// away). After a plant the correction fades out (smootherstep: no step in acceleration) over
// `blend_frames` or until the next plant.
std::vector<Vec3> hold_pivots(const std::vector<signed char>& pivots, const std::vector<Vec3>& heel,
                              const std::vector<Vec3>& toe, int blend_frames, double drag_radius);

}  // namespace ikfix::core
