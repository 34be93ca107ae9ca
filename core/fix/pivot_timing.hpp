#pragma once
// When a planted foot hands its pivot from heel to toe (or back) while both are on the ground,
// the hand-over frame decides how far a point that check measures as planted moves: the old
// pivot is held up to the switch and the new one from the frame before it, so the foot's own
// turn across the switch (the change of its heel->toe vector) shows up as sliding of one or the
// other. This moves each such switch, within the frames where both points are on the ground,
// to where that turn is smallest (usually with the foot flat): a rolling foot hands over while
// it is not turning.
#include <vector>

#include "core/math.hpp"

namespace ikfix::core {

// `pivots[f]`: 0 heel, 1 toe, -1 not planted (changed in place). `heel`, `toe`: the foot's
// planned points per frame (world metres, Y up; only their horizontal difference is used).
// `on_ground[p][f]`: point p (0 heel, 1 toe) is on the ground as check sees it; empty = unknown,
// nothing is moved. A switch keeps its pivots' order and stays inside their runs.
// `touchdown`: whether a switch just after the new pivot touches down (check measures that
// point one-sided there, while it is already held, so the switch shows no sliding) is taken
// instead of the one the foot's turn alone picks: never, when the foot turns no more across it,
// or always.
enum class TouchdownSwitch { Never, WhenTurningLess, Always };
void retime_pivot_switches(std::vector<signed char>& pivots, const std::vector<Vec3>& heel,
                           const std::vector<Vec3>& toe, const std::vector<char> (&on_ground)[2],
                           TouchdownSwitch touchdown = TouchdownSwitch::WhenTurningLess);

}  // namespace ikfix::core
