#pragma once
// Step 3, foot lock: during a plant the pivot (heel while it is down, then the toe) stays where
// it landed; after the plant the horizontal correction fades out over the blend window
// (smootherstep: no step in acceleration, no pop of jerk). The rest of the foot lock lives beside
// it: pivot_timing (when the pivot switches), pivot_hold (holding the pivot on the final targets),
// pivot_repair (after the passes).
#include <vector>

#include "core/math.hpp"

namespace ikfix::core {

// Horizontal correction per frame (world metres, y = 0) that keeps a planted foot's pivot still.
// The pivot is the lower of heel and toe (heights above their planted levels), switching only
// when the other is lower by `switch_margin`: heel strike, then the toe as soon as the heel rolls
// up, so a rolling foot turns about the point that is really on the ground. Where only one of
// them is marked `on_ground` (non-empty: per frame, heel and toe) that one is the pivot.
// A held pivot whose animation runs `run_away` or more (metres; 0 = never) within the last
// `blend_frames` of its hold, while the other point moved less than half that and stands at
// most `run_away` above it (not below: a held point already lifted above the other is left to
// the height rule and the retimed hand-over), hands the hold to that other point; it is not
// handed back in that plant while the point that ran away still runs that far within the
// window. A foot turning in place about its ball, the heel swinging, is then held at the ball
// (holding the heel drags the ball along and leaves a correction as long as the swing to undo
// after the plant); a slow drift over a long plant is held as it was.
// `pivots` receives per frame 0 heel, 1 toe, -1 not planted.
std::vector<Vec3> foot_lock(const std::vector<char>& planted,
                            const std::vector<double>& heel_height,
                            const std::vector<double>& toe_height,
                            const std::vector<char> (&on_ground)[2], const std::vector<Vec3>& ankle,
                            const std::vector<Vec3>& toe, double unlock_radius, int blend_frames,
                            double switch_margin, double run_away,
                            std::vector<signed char>& pivots);

}  // namespace ikfix::core
