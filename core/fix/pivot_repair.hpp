#pragma once
// Last resort for a planted foot that `ikfix check` would still see sliding after the fix's
// contact passes (whose plans can alternate between two that each slide, e.g. when a heel's
// speed sits at the contact threshold so one plan sees it down and the next does not). Each
// plant frame check measures takes the slowest planted point of the two; where the worst one
// moves, holding that very point over the frames check measures it on stops it. This tries
// such holds around the worst frame, one at a time, and keeps one only when check, measured
// again, shows less worst sliding: it never makes the worst sliding of the foot larger.
#include <functional>
#include <vector>

#include "core/math.hpp"
#include "core/metrics.hpp"

namespace ikfix::core {

// Check's view of a foot whose heel and toe are at these positions (world metres, Y up, one per
// frame) with these pivots (the measure may still adjust what a pivot does not hold, e.g. lift
// a toe-held foot's heel out of a tread): its worst within-plant sliding and where, and how deep
// a point goes below the terrain under it on a planted frame (metres, >= 0).
struct FootCheck {
  PlantSlideAt slide;
  double penetration_m = 0;
};
using SlideMeasure =
    std::function<FootCheck(const std::vector<Vec3>& heel, const std::vector<Vec3>& toe,
                            const std::vector<signed char>& pivots)>;

// `pivots[f]`: 0 heel, 1 toe, -1 not planted (changed in place; frames at -1 stay so).
// `heel`, `toe`: the foot's planned points before the pivot hold. The hold is hold_pivots(pivots,
// heel, toe, blend_frames, drag_radius). While check (`measure`) sees sliding above `goal`, one
// change is made: a point becomes the pivot on one frame window around the worst frame f, either
// the point check measures there or the other, on {f+1}, {f, f+1}, {f-1, f, f+1}, {f} or
// {f-1, f} (that point's measuring window, one-sided or central) or on a whole pivot run at
// f - 1, f or f + 1. Of all these, the change with least worst sliding is taken if that is less
// than before; at most `max_changes` times. A change that puts a point on a planted frame deeper
// below the terrain than the plan did is never taken. Returns the hold for the final pivots
// (horizontal, metres, as hold_pivots).
std::vector<Vec3> repair_pivot_holds(std::vector<signed char>& pivots,
                                     const std::vector<Vec3>& heel, const std::vector<Vec3>& toe,
                                     int blend_frames, double drag_radius, double goal,
                                     int max_changes, const SlideMeasure& measure);

}  // namespace ikfix::core
