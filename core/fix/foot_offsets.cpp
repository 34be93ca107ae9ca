#include "core/fix/foot_offsets.hpp"

#include <algorithm>

#include "core/fix/contacts.hpp"
#include "core/fix/fix_math.hpp"
#include "core/fix/least_jerk.hpp"
#include "core/fix/smooth.hpp"

namespace ikfix::core {
namespace {

// Each lift-off toward a higher plant: the swing's first frames (up to `frames`, ending at
// least three frames before the touchdown) re-made with the least jerk that keeps every frame at
// `need`, the plant and the later frames held. The offset's rise otherwise starts at the rate
// of what the swing needs a few frames later and then brakes hard: a jerk spike at lift-off.
void ease_out_of_plants(const std::vector<char>& planted, const std::vector<double>& need,
                        int frames, std::vector<double>& offset) {
  const int n = static_cast<int>(offset.size());
  for (int a = 3; a + 1 < n; ++a) {  // the jerk terms reach 3 frames back from a + 1
    if (!planted[a] || planted[a + 1]) continue;
    int b = a + 1;  // the next plant's first frame
    while (b < n && !planted[b]) ++b;
    if (b + 2 >= n || !(offset[b] > offset[a])) continue;
    const int k = std::min(frames, b - a - 4);
    if (k >= 2) least_jerk_above(offset, a + 1, k, need);
  }
}

}  // namespace

std::vector<double> foot_offsets(const std::vector<char>& planted, const std::vector<double>& need,
                                 const std::vector<double>& ground_rel,
                                 const std::vector<double>& ease, double smoothing_frames,
                                 double clearance_frames, double max_rise_per_frame,
                                 bool follow_need, const std::vector<char>& keep_constant,
                                 int rise_in_frames) {
  const int n = static_cast<int>(need.size());
  const auto plants = contact_intervals(planted);
  std::vector<double> base(n);
  if (plants.empty()) {
    gaussian_smooth(ground_rel, smoothing_frames * 4.0, base);
  } else {
    // Offset at each plant's first and last frame (equal unless `follow_need`).
    std::vector<double> plant_in(plants.size()), plant_out(plants.size());
    for (std::size_t i = 0; i < plants.size(); ++i) {
      double m = -1e300;
      for (int f = plants[i].first; f <= plants[i].last; ++f) m = std::max(m, need[f]);
      bool follow = follow_need;
      for (int f = plants[i].first; f <= plants[i].last && follow; ++f) follow = !keep_constant[f];
      for (int f = plants[i].first; f <= plants[i].last; ++f) base[f] = follow ? need[f] : m;
      plant_in[i] = base[plants[i].first];
      plant_out[i] = base[plants[i].last];
    }
    for (int f = 0; f < plants.front().first; ++f) base[f] = plant_in.front();
    for (int f = plants.back().last + 1; f < n; ++f) base[f] = plant_out.back();
    for (std::size_t i = 0; i + 1 < plants.size(); ++i) {
      const int a = plants[i].last, b = plants[i + 1].first;
      // Stepping up, the swing foot rises early (it must clear the step it lands on); stepping
      // down it stays high and drops late (it must clear the edge it leaves).
      const bool up = plant_in[i + 1] > plant_out[i];
      for (int f = a + 1; f < b; ++f) {
        const double u = static_cast<double>(f - a) / (b - a);
        const double t = smoothstep(std::clamp(up ? u * 1.5 : (u - 1.0 / 3.0) * 1.5, 0.0, 1.0));
        base[f] = plant_out[i] + (plant_in[i + 1] - plant_out[i]) * t;
      }
    }
  }
  // Clearance in swing: a smooth envelope over what the swing frames need (dilated, then
  // smoothed, so the foot rises before a step edge instead of popping up at it).
  std::vector<double> swing_need(n), dilated(n), envelope(n);
  for (int f = 0; f < n; ++f) swing_need[f] = planted[f] ? -10.0 : need[f];
  dilate_max(swing_need, gaussian_radius(clearance_frames), dilated);
  gaussian_smooth(dilated, clearance_frames, envelope);
  std::vector<double> lifted(n), smoothed(n);
  for (int f = 0; f < n; ++f) lifted[f] = std::max({base[f], need[f], envelope[f]});
  gaussian_smooth(lifted, smoothing_frames, smoothed);
  // A planted foot keeps its plant's offset exactly (any change would move the planted
  // pivot); the swing eases out of it and into the next one (`ease` is 1 in plants).
  for (int f = 0; f < n; ++f)
    smoothed[f] = planted[f] ? base[f] : ease[f] * base[f] + (1.0 - ease[f]) * smoothed[f];
  // No swing frame below `need`. What that floor adds can jump (a toe crossing a step edge);
  // the swing foot reaches it by a ramp instead. Not into the plant: the contact passes would
  // then see the foot leave the ground earlier and plan differently; a jump at lift-off is left
  // to step 5a, after the passes.
  std::vector<double> floor_lift(n, 0.0);
  for (int f = 0; f < n; ++f)
    if (!planted[f]) floor_lift[f] = std::max(0.0, need[f] - smoothed[f]);
  raise_to_rate_limit(floor_lift, max_rise_per_frame, planted);
  for (int f = 0; f < n; ++f) smoothed[f] += floor_lift[f];
  ease_out_of_plants(planted, need, rise_in_frames, smoothed);
  return smoothed;
}

}  // namespace ikfix::core
