#pragma once
// Least-jerk paths for a foot's height corrections (metres a frame): the least sum of squared
// jerk, the central third difference metrics.cpp measures (0.5 x[f+2] - x[f+1] + x[f-1] -
// 0.5 x[f-2]), over a run of frames, never below a floor there, every other frame held.
#include <functional>
#include <span>
#include <vector>

#include "core/fix/contacts.hpp"

namespace ikfix::core {

// x[v0 .. v0+k) re-made with the least sum of squared jerk that keeps each of those frames at or
// above `low` and, when `high` is given, at or below it (both indexed like x, high >= low), every
// other frame of x held: a primal active set (a frame held at the bound the free solve would
// cross, released when the jerk would pull it back inside). The
// jerk terms reach three frames either side: needs v0 >= 3 and v0 + k + 3 <= x.size(). False (x
// unchanged) if it does not settle.
bool least_jerk_above(std::vector<double>& x, int v0, int k, std::span<const double> low,
                      std::span<const double> high = {});

// Whether the frames [first, last] of a swing are to be re-made (it may read the four frames
// either side, which their jerk terms reach).
using SwingTest = std::function<bool(int first, int last)>;

// Each swing (a run of frames not planted) re-made by least_jerk_above from up to `lead_frames`
// before its lift-off (planted frames, floored by `low` like the swing's) to its last frame, the
// rest of the plants held: whole when that is at most `max_frames` long, else its first and last
// `max_frames` / 2 frames, each where `eases` says so, and never above the highest `low` on it
// and the four frames either side (a path that must meet a plant right after a steep drop would
// otherwise swing far up to spread its jerk). A run within four frames of the clip's ends is left
// as it is. Below 2, nothing changes.
// Returns the runs re-made, in frame order.
std::vector<Interval> least_jerk_swings(std::span<const char> planted, std::span<const double> low,
                                        const SwingTest& eases, int max_frames, int lead_frames,
                                        std::vector<double>& x);

}  // namespace ikfix::core
