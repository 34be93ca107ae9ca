#pragma once
// Helpers shared by the solver tests.
#include <limits>
#include <random>

#include "core/math.hpp"

namespace ikfix::core::test_util {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A direction drawn uniformly on the unit sphere (seeded, so tests are repeatable). The three
// draws are sequenced, z then y then x: the order in which g++ evaluates `Vec3(g(rng), g(rng),
// g(rng))`, whose argument order C++ leaves unspecified (clang goes left to right), so every
// compiler tests the same vectors. A test that draws a direction and another number for one
// target draws the number first, g++'s order for `random_unit(rng) * frac(rng)`, for the same
// reason.
inline Vec3 random_unit(std::mt19937& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  for (;;) {
    const double z = g(rng);
    const double y = g(rng);
    const double x = g(rng);
    const Vec3 v(x, y, z);
    const double len = glm::length(v);
    if (len > 1e-3) return v / len;
  }
}

}  // namespace ikfix::core::test_util
