#pragma once
// Small numeric helpers shared by the fix's steps.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "core/math.hpp"

namespace ikfix::core {

inline constexpr Vec3 kUp{0.0, 1.0, 0.0};

// The q-quantile (q in [0, 1]) of `values` by rank (no interpolation); 0 when empty.
inline double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  const auto k =
      static_cast<std::size_t>(std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

// 0 at t = 0, 1 at t = 1, flat at both ends; t in [0, 1].
inline double smoothstep(double t) { return t * t * (3.0 - 2.0 * t); }

// 0 at t = 0, 1 at t = 1, with velocity and acceleration zero at both ends (C2); t in [0, 1].
// Where a path eases between two holds, smoothstep's acceleration steps at the ends would show
// as spikes of jerk.
inline double smootherstep(double t) { return t * t * t * (t * (t * 6.0 - 15.0) + 10.0); }

}  // namespace ikfix::core
