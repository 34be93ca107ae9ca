#pragma once
// Offline filters: the whole signal is known, so they look ahead and add no lag.
#include <span>
#include <vector>

namespace ikfix::core {

// Zero-phase Gaussian smoothing, sigma in samples, as three centred box passes (O(n) for any
// sigma; support 3 box half-widths, about 3 sigma). Edges average only the samples that exist,
// so a constant stays constant. sigma <= 0 copies. `out` may not alias `in`.
void gaussian_smooth(std::span<const double> in, double sigma, std::span<double> out);

// Running maximum over [i - radius, i + radius]. With a smoothing kernel no wider than
// `radius`, smooth(dilate(x)) >= x everywhere: used so a smoothed pelvis drop is never less
// than what a frame needs.
void dilate_max(std::span<const double> in, int radius, std::span<double> out);

// Blend weight around plants: 1 on every planted frame, easing (smoothstep) to 0 over the
// `ease_frames` frames before each plant and after it, 0 further away. A change faded with it
// happens in the swing, never while the foot is planted.
std::vector<double> plant_ease_weight(std::span<const char> planted, int ease_frames);

// Raises samples (never lowers them) until no sample is more than `step` above or below its
// neighbour: the least such signal >= `x`. Used so a needed rise is reached by a ramp instead of
// a jump; `step` > 0. Samples with `frozen` set (empty: none) keep their value; the ramp stops
// at them, so a jump next to one can remain.
void raise_to_rate_limit(std::span<double> x, double step, std::span<const char> frozen = {});

// Per frame: 1 on planted frames except the last `free_frames` of each plant, 0 elsewhere. The
// frames a foot may start rising in before lift-off (as a person lifts a foot to step up), and
// never at touchdown or in the middle of a plant.
std::vector<char> planted_except_last(std::span<const char> planted, int free_frames);

// Kernel half-width in samples used by gaussian_smooth for a given sigma.
int gaussian_radius(double sigma);

}  // namespace ikfix::core
