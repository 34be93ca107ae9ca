#pragma once
// Helpers shared by the solver tests.
#include <limits>
#include <random>

#include "core/math.hpp"

namespace ikfix::core::test_util {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A direction drawn uniformly on the unit sphere (seeded, so tests are repeatable).
inline Vec3 random_unit(std::mt19937& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  for (;;) {
    const Vec3 v(g(rng), g(rng), g(rng));
    const double len = glm::length(v);
    if (len > 1e-3) return v / len;
  }
}

}  // namespace ikfix::core::test_util
