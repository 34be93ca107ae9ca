#include "core/fix/least_jerk.hpp"

#include <algorithm>
#include <vector>

namespace ikfix::core {
namespace {

// Forward elimination of m x = r (m: k x k, symmetric positive definite, nonzero only within
// `band` of the diagonal, stored by rows of 2 band + 1: element (row, col) at row (2 band + 1) +
// col - row + band; Gaussian elimination without pivoting, which keeps the band). Rows before
// `from` are taken as eliminated already: an eliminated row depends only on the rows above it
// as given, so rows kept from an earlier system whose rows up to there were the same are the
// ones this would make, bit for bit, and the rows from `from` on get the same operations.
void eliminate(std::vector<double>& m, std::vector<double>& r, int k, int band, int from) {
  const int width = 2 * band + 1;
  auto at = [&](int row, int col) -> double& { return m[row * width + col - row + band]; };
  for (int i = std::max(0, from - band); i < k; ++i)
    for (int j = std::max(i + 1, from); j < std::min(k, i + band + 1); ++j) {
      const double q = at(j, i) / at(i, i);
      for (int c = i; c < std::min(k, i + band + 1); ++c) at(j, c) -= q * at(i, c);
      r[j] -= q * r[i];
    }
}

// The solution of the system `eliminate` left (m, r) into `x` (k values), m and r unchanged.
void back_substitute(const std::vector<double>& m, const std::vector<double>& r, int k, int band,
                     double* x) {
  const int width = 2 * band + 1;
  auto at = [&](int row, int col) { return m[row * width + col - row + band]; };
  for (int i = k; i-- > 0;) {
    double v = r[i];
    for (int c = i + 1; c < std::min(k, i + band + 1); ++c) v -= at(i, c) * x[c];
    x[i] = v / at(i, i);
  }
}

// A frame of the run: free, or held at its floor or at its ceiling.
enum Hold : char { kFree = 0, kAtLow = 1, kAtHigh = 2 };

// The frames a jerk term of the run reaches past either end of it.
constexpr int kPad = 4;
// A jerk term spans 5 frames: the free frames' matrix is nonzero within 4 of its diagonal.
constexpr int kBand = 4;
constexpr int kTap[4] = {-2, -1, 1, 2};
constexpr double kWeight[4] = {-0.5, 1.0, -1.0, 0.5};

// The held frame of the run (`win`: x[v0 - kPad .. v0 + k + kPad), the run's frames as they
// stand) that the sum of squared jerk pulls hardest off its bound (up from a floor, down from a
// ceiling), or -1 when none is.
int frame_to_release(const std::vector<double>& win, int k, const std::vector<char>& held) {
  int release = -1;
  double pull = -1e-12;
  for (int i = 0; i < k; ++i) {
    if (held[i] == kFree) continue;
    double grad = 0;
    const int f0 = kPad + i;
    // Jerk at f = 0.5 x[f+2] - x[f+1] + x[f-1] - 0.5 x[f-2]: x[f0]'s weight in it.
    for (int f = f0 - 2; f <= f0 + 2; ++f) {
      if (f == f0) continue;
      const int d = f0 - f;
      const double w = d == 2 ? 0.5 : d == 1 ? -1.0 : d == -1 ? 1.0 : -0.5;
      const double j = 0.5 * win[f + 2] - win[f + 1] + win[f - 1] - 0.5 * win[f - 2];
      grad += 2.0 * w * j;
    }
    if (held[i] == kAtHigh) grad = -grad;
    if (grad < pull) pull = grad, release = i;
  }
  return release;
}

// The normal equations of the jerk terms over the free frames of the run (`slot_of`: each
// frame's index among them, -1 when held), the others at their values in `win`: the banded
// matrix into `h` (rows of 2 kBand + 1), the right-hand side into `g`; only their rows from
// slot `from` on (the run's frame `from_frame`, or past the end when from == m), the rows before
// left as they are.
void normal_equations(const std::vector<double>& win, int k, const std::vector<int>& slot_of, int m,
                      int from, int from_frame, std::vector<double>& h, std::vector<double>& g) {
  constexpr int kWidth = 2 * kBand + 1;
  h.resize(static_cast<std::size_t>(m) * kWidth);
  g.resize(m);
  std::fill(h.begin() + static_cast<std::ptrdiff_t>(from) * kWidth, h.end(), 0.0);
  std::fill(g.begin() + from, g.end(), 0.0);
  if (from >= m) return;
  // A term centred on f reaches the run's frames f - kPad - 2 .. f - kPad + 2.
  for (int f = std::max(kPad - 2, from_frame + kPad - 2); f < kPad + k + 2; ++f) {
    double fixed = 0, c[4] = {0, 0, 0, 0};
    int at[4] = {-1, -1, -1, -1};
    for (int t = 0; t < 4; ++t) {
      const int i = f + kTap[t] - kPad;
      const int slot = i >= 0 && i < k ? slot_of[i] : -1;
      if (slot >= 0)
        at[t] = slot, c[t] = kWeight[t];
      else
        fixed += kWeight[t] * win[f + kTap[t]];
    }
    for (int t = 0; t < 4; ++t) {
      if (at[t] < from) continue;
      g[at[t]] -= c[t] * fixed;
      for (int u = 0; u < 4; ++u)
        if (at[u] >= 0) h[at[t] * kWidth + at[u] - at[t] + kBand] += c[t] * c[u];
    }
  }
}

}  // namespace

bool least_jerk_above(std::vector<double>& x, int v0, int k, std::span<const double> low,
                      std::span<const double> high) {
  std::vector<char> held(k, kFree);
  std::vector<double> win(x.begin() + (v0 - kPad), x.begin() + (v0 + k + kPad)), h, g, solved;
  std::vector<int> free, slot_of(k);
  // Each round changes one frame's hold: the free frames more than kBand before it share no
  // jerk term with it, so their rows of the system, eliminated (h, g), are the last round's.
  int changed = -1;
  for (int round = 0; round < 4 * k; ++round) {
    double* y = win.data() + kPad;  // the run's frames
    std::copy(x.begin() + v0, x.begin() + v0 + k, y);
    for (int i = 0; i < k; ++i)
      if (held[i] != kFree) y[i] = held[i] == kAtLow ? low[v0 + i] : high[v0 + i];
    free.clear();
    int kept = 0;
    for (int i = 0; i < k; ++i) {
      slot_of[i] = held[i] ? -1 : static_cast<int>(free.size());
      if (held[i]) continue;
      if (changed >= 0 && i < changed - kBand) ++kept;
      free.push_back(i);
    }
    const int m = static_cast<int>(free.size());
    normal_equations(win, k, slot_of, m, kept, kept < m ? free[kept] : k, h, g);
    eliminate(h, g, m, kBand, kept);
    solved.resize(m);
    back_substitute(h, g, m, kBand, solved.data());
    for (int s = 0; s < m; ++s) y[free[s]] = solved[s];
    // The free frame furthest outside its bounds is held at the bound it crosses.
    int worst = -1;
    char bound = kFree;
    double beyond = 0;
    for (int i = 0; i < k; ++i) {
      if (held[i] != kFree) continue;
      if (y[i] < low[v0 + i] && (worst < 0 || y[i] - low[v0 + i] < beyond))
        worst = i, bound = kAtLow, beyond = y[i] - low[v0 + i];
      if (!high.empty() && y[i] > high[v0 + i] && (worst < 0 || high[v0 + i] - y[i] < beyond))
        worst = i, bound = kAtHigh, beyond = high[v0 + i] - y[i];
    }
    if (worst >= 0) {
      held[worst] = bound;
      changed = worst;
      continue;
    }
    // A held frame the jerk would pull off its bound is released.
    const int release = frame_to_release(win, k, held);
    if (release >= 0) {
      held[release] = kFree;
      changed = release;
      continue;
    }
    std::copy(y, y + k, x.begin() + v0);
    return true;
  }
  return false;
}

std::vector<Interval> least_jerk_swings(std::span<const char> planted, std::span<const double> low,
                                        const SwingTest& eases, int max_frames, int lead_frames,
                                        std::vector<double>& x) {
  const int n = static_cast<int>(x.size());
  std::vector<Interval> made;
  if (max_frames < 2) return made;
  std::vector<double> high(n);
  auto ease = [&](int first, int last) {
    if (!eases(first, last)) return;
    // Never above the highest `low` on the run and the four frames either side.
    double peak = low[first - 4];
    for (int f = first - 3; f <= last + 4; ++f) peak = std::max(peak, low[f]);
    std::fill(high.begin() + first, high.begin() + last + 1, peak);
    if (least_jerk_above(x, first, last - first + 1, low, high)) made.push_back({first, last});
  };
  for (int first = 0; first < n;) {
    if (planted[first]) {
      ++first;
      continue;
    }
    int last = first;
    while (last + 1 < n && !planted[last + 1]) ++last;
    int start = first;  // up to lead_frames into the plant before
    while (start > 0 && first - start < lead_frames && planted[start - 1]) --start;
    // The jerk terms reach four frames past the run (least_jerk_above).
    if (start >= 4 && last + 4 < n && last - start + 1 >= 2) {
      if (last - start + 1 <= max_frames) {
        ease(start, last);
      } else {
        ease(start, start + max_frames / 2 - 1);
        ease(last - max_frames / 2 + 1, last);
      }
    }
    first = last + 1;
  }
  return made;
}

}  // namespace ikfix::core
