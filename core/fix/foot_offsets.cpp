#include "core/fix/foot_offsets.hpp"

#include <algorithm>

#include "core/fix/contacts.hpp"
#include "core/fix/fix_math.hpp"
#include "core/fix/smooth.hpp"

namespace ikfix::core {
namespace {

// Solves m x = r in place (m: k x k row-major, symmetric positive definite, nonzero only within
// `band` of the diagonal; Gaussian elimination without pivoting, which keeps the band).
void solve_banded(std::vector<double>& m, std::vector<double>& r, int k, int band) {
  for (int i = 0; i < k; ++i)
    for (int j = i + 1; j < std::min(k, i + band + 1); ++j) {
      const double q = m[j * k + i] / m[i * k + i];
      for (int c = i; c < std::min(k, i + band + 1); ++c) m[j * k + c] -= q * m[i * k + c];
      r[j] -= q * r[i];
    }
  for (int i = k; i-- > 0;) {
    for (int c = i + 1; c < std::min(k, i + band + 1); ++c) r[i] -= m[i * k + c] * r[c];
    r[i] /= m[i * k + i];
  }
}

// The held frame of x[v0 .. v0+k) (y there, x elsewhere) that the sum of squared jerk pulls
// up hardest, or -1 when none is pulled up.
int frame_to_release(const std::vector<double>& x, int v0, int k, const std::vector<double>& y,
                     const std::vector<char>& held) {
  auto value = [&](int f) { return f >= v0 && f < v0 + k ? y[f - v0] : x[f]; };
  int release = -1;
  double pull = -1e-12;
  for (int i = 0; i < k; ++i) {
    if (!held[i]) continue;
    double grad = 0;
    const int f0 = v0 + i;
    // Jerk at f = 0.5 x[f+2] - x[f+1] + x[f-1] - 0.5 x[f-2]: x[f0]'s weight in it.
    for (int f = f0 - 2; f <= f0 + 2; ++f) {
      if (f == f0) continue;
      const int d = f0 - f;
      const double w = d == 2 ? 0.5 : d == 1 ? -1.0 : d == -1 ? 1.0 : -0.5;
      const double j = 0.5 * value(f + 2) - value(f + 1) + value(f - 1) - 0.5 * value(f - 2);
      grad += 2.0 * w * j;
    }
    if (grad < pull) pull = grad, release = i;
  }
  return release;
}

// The least sum of squared jerk (the central third difference metrics.cpp measures) over
// x[v0 .. v0+k) with x >= low there and every other frame of x held: a primal active set
// (frames held at `low` while the unheld solve would go below it, released when the jerk would
// pull them up). False (x unchanged) if it does not settle.
bool least_jerk_above(std::vector<double>& x, int v0, int k, const std::vector<double>& low) {
  std::vector<char> held(k, 0);
  for (int round = 0; round < 4 * k; ++round) {
    std::vector<double> y(x.begin() + v0, x.begin() + v0 + k);
    for (int i = 0; i < k; ++i)
      if (held[i]) y[i] = low[v0 + i];
    // Normal equations of the jerk terms over the free frames.
    std::vector<int> free, slot_of(k, -1);
    for (int i = 0; i < k; ++i)
      if (!held[i]) slot_of[i] = static_cast<int>(free.size()), free.push_back(i);
    const int m = static_cast<int>(free.size());
    std::vector<double> h(m * m, 0.0), g(m, 0.0);
    auto value = [&](int f) { return f >= v0 && f < v0 + k ? y[f - v0] : x[f]; };
    for (int f = v0 - 2; f < v0 + k + 2; ++f) {
      static constexpr int kTap[4] = {-2, -1, 1, 2};
      static constexpr double kWeight[4] = {-0.5, 1.0, -1.0, 0.5};
      double fixed = 0, c[4] = {0, 0, 0, 0};
      int at[4] = {-1, -1, -1, -1};
      for (int t = 0; t < 4; ++t) {
        const int i = f + kTap[t] - v0;
        const int slot = i >= 0 && i < k ? slot_of[i] : -1;
        if (slot >= 0)
          at[t] = slot, c[t] = kWeight[t];
        else
          fixed += kWeight[t] * value(f + kTap[t]);
      }
      for (int t = 0; t < 4; ++t) {
        if (at[t] < 0) continue;
        g[at[t]] -= c[t] * fixed;
        for (int u = 0; u < 4; ++u)
          if (at[u] >= 0) h[at[t] * m + at[u]] += c[t] * c[u];
      }
    }
    // A jerk term spans 5 frames: the free frames' matrix is nonzero within 4 of its diagonal.
    if (m > 0) solve_banded(h, g, m, 4);
    for (int s = 0; s < m; ++s) y[free[s]] = g[s];
    int worst = -1;
    for (int i = 0; i < k; ++i)
      if (!held[i] && y[i] < low[v0 + i] &&
          (worst < 0 || y[i] - low[v0 + i] < y[worst] - low[v0 + worst]))
        worst = i;
    if (worst >= 0) {
      held[worst] = 1;
      continue;
    }
    // A held frame whose jerk would pull it up (gradient below 0) is released.
    const int release = frame_to_release(x, v0, k, y, held);
    if (release >= 0) {
      held[release] = 0;
      continue;
    }
    std::copy(y.begin(), y.end(), x.begin() + v0);
    return true;
  }
  return false;
}

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
