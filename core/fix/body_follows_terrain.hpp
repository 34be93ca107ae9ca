#pragma once
// Step 4: the body follows the terrain under the feet that carry it — the planted feet (a swing
// foot's offset is only a plan), both equally in flight; smoothed, zero phase.
#include <span>
#include <vector>

namespace ikfix::core {

// How much a leg carries the body per frame, in [0, 1]: its plants, smoothed over 0.05 s.
std::vector<double> plant_support(std::span<const char> planted, double fps);

// The body's rise per frame (metres, world Y): the feet's offsets weighted by their legs'
// support, then smoothed with sigma `smoothing_frames`. `body_raw` is the unsmoothed rise
// (scratch); both have one entry per frame.
void body_follows_terrain(std::span<const double> (&support)[2],
                          std::span<const double> (&foot_offset)[2], double smoothing_frames,
                          std::span<double> body_raw, std::span<double> body);

}  // namespace ikfix::core
