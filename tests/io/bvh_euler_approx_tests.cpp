// The BVH writer's fast Euler angles (approx_euler_from_quat_deg, approx_atan2) against the
// exact ones (euler_from_quat_deg, std::atan2), and the certainty test that lets the writer
// print them (io::fixed_units_certain): the same text as the exact angles, or no answer.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "io/bvh/euler.hpp"
#include "io/bvh/number_format.hpp"
#include "io/decimal.hpp"

namespace {

using ikfix::core::Quat;
using ikfix::io::fixed_units_certain;
using ikfix::io::bvh::approx_atan2;
using ikfix::io::bvh::approx_euler_from_quat_deg;
using ikfix::io::bvh::euler_from_quat_deg;
using ikfix::io::bvh::kApproxEulerErrorDeg;
using ikfix::io::bvh::quat_from_euler_deg;
using Angles = std::array<double, 3>;
using Axes = std::array<int, 3>;

const Axes kOrders[6] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

std::string printed(double v, int decimals) {
  char buffer[ikfix::io::bvh::kNumberBuffer];
  return std::string(buffer, ikfix::io::bvh::format_fixed(v, decimals, buffer));
}

TEST(BvhEulerApprox, Atan2IsWithinOneFemtoradianEverywhere) {
  double worst = 0.0;
  const double scales[] = {1e-300, 1e-8, 1.0, 3.0, 1e8, 1e300};
  for (double scale : scales)
    for (int n = -200000; n <= 200000; ++n) {
      const double a = n * (ikfix::core::kPi / 200000.0);
      const double y = std::sin(a) * scale, x = std::cos(a) * scale;
      worst = std::max(worst, std::abs(approx_atan2(y, x) - std::atan2(y, x)));
    }
  EXPECT_LT(worst, 1e-15);
  // Axes, signed zeros, the table's own entries.
  for (double y : {0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324})
    for (double x : {0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324}) {
      if (y == 0.0 && x == 0.0) continue;
      EXPECT_EQ(approx_atan2(y, x), std::atan2(y, x)) << y << ", " << x;
      EXPECT_EQ(std::signbit(approx_atan2(y, x)), std::signbit(std::atan2(y, x)));
    }
  for (int k = 0; k <= 8; ++k) EXPECT_EQ(approx_atan2(k, 8.0), std::atan(k / 8.0)) << k;
  EXPECT_TRUE(std::isnan(approx_atan2(0.0, 0.0)));
  EXPECT_TRUE(std::isnan(approx_atan2(std::numeric_limits<double>::quiet_NaN(), 1.0)));
}

TEST(BvhEulerApprox, AnglesAreTheExactOnesWithinTheBound) {
  std::mt19937_64 rng(16);
  std::uniform_real_distribution<double> angle(-180.0, 180.0), nudge(-20.0, 20.0);
  int answered = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    const Axes& axes = kOrders[trial % 6];
    const Angles truth{angle(rng), angle(rng) / 2.0, angle(rng)};
    const Quat q = quat_from_euler_deg(axes, truth);
    const Angles reference{truth[0] + nudge(rng), truth[1] + nudge(rng), truth[2] + nudge(rng)};
    const Angles exact = euler_from_quat_deg(q, axes, reference);
    Angles fast{};
    if (!approx_euler_from_quat_deg(q, axes, reference, fast)) continue;
    ++answered;
    for (int n = 0; n < 3; ++n)
      ASSERT_LE(std::abs(fast[n] - exact[n]), kApproxEulerErrorDeg / 1000.0)
          << "trial " << trial << " angle " << n;
  }
  EXPECT_GT(answered, 190000);  // the writer's common case is answered
}

TEST(BvhEulerApprox, LeavesTheCloseCallsToTheExactAngles) {
  const Axes axes{2, 1, 0};
  Angles out{};
  // Gimbal lock and just around it.
  for (double b : {90.0, 89.999, -89.9999, 89.99999})
    EXPECT_FALSE(approx_euler_from_quat_deg(quat_from_euler_deg(axes, {10.0, b, 20.0}), axes,
                                            {10.0, b, 20.0}, out))
        << b;
  // An angle far from its reference (another turn or the other branch may be nearer), and the
  // sum of squared gaps about the exact function's sure-branch limit (8000).
  const Quat q = quat_from_euler_deg(axes, {170.0, 10.0, 20.0});
  EXPECT_FALSE(approx_euler_from_quat_deg(q, axes, {-10.5, 10.0, 20.0}, out));
  EXPECT_FALSE(approx_euler_from_quat_deg(q, axes, {-9.0, 10.0, 20.0}, out));
  EXPECT_FALSE(approx_euler_from_quat_deg(q, axes, {170.0 + 89.44, 10.0, 20.0}, out));
  EXPECT_TRUE(approx_euler_from_quat_deg(q, axes, {170.0 + 89.43, 10.0, 20.0}, out));
  EXPECT_TRUE(approx_euler_from_quat_deg(q, axes, {100.0, 10.0, 20.0}, out));
  // Repeated axes, non-finite rotations.
  EXPECT_FALSE(approx_euler_from_quat_deg(q, {0, 0, 1}, {0.0, 0.0, 0.0}, out));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(approx_euler_from_quat_deg(Quat(nan, 0.0, 0.0, 0.0), axes, {0.0, 0.0, 0.0}, out));
}

TEST(BvhEulerApprox, CertainRoundingPrintsEveryNearbyValueAlike) {
  std::mt19937_64 rng(1616);
  std::uniform_real_distribution<double> value(-400.0, 400.0), unit(-1.0, 1.0);
  int certain = 0;
  for (int trial = 0; trial < 300000; ++trial) {
    const int decimals = trial % 18;
    double v = value(rng);
    // Every third value sits within a few errors of a rounding tie.
    if (trial % 3 == 0) {
      const double scale = std::pow(10.0, decimals);
      v = (std::floor(v * scale) + 0.5) / scale + unit(rng) * 4.0 * kApproxEulerErrorDeg;
    }
    if (!fixed_units_certain(v, kApproxEulerErrorDeg, decimals)) continue;
    ++certain;
    const std::string text = printed(v, decimals);
    for (double d : {-1.0, -0.5, 0.5, 1.0}) {
      const double near = v + d * kApproxEulerErrorDeg;
      ASSERT_EQ(printed(near, decimals), text) << v << " with " << decimals << " decimals";
      std::uint64_t a = 0, b = 0;
      ASSERT_TRUE(ikfix::io::fixed_units(near, decimals, a));
      ASSERT_TRUE(ikfix::io::fixed_units(v, decimals, b));
      ASSERT_EQ(a, b);
    }
  }
  EXPECT_GT(certain, 100000);
  // Exact ties and values too large to tell are never certain.
  EXPECT_FALSE(fixed_units_certain(0.5, kApproxEulerErrorDeg, 0));
  EXPECT_FALSE(fixed_units_certain(-1.25, kApproxEulerErrorDeg, 1));
  EXPECT_FALSE(fixed_units_certain(0.12345 + 1e-10, kApproxEulerErrorDeg, 4));
  EXPECT_FALSE(fixed_units_certain(1e300, kApproxEulerErrorDeg, 2));
  EXPECT_FALSE(fixed_units_certain(std::numeric_limits<double>::quiet_NaN(), 1e-9, 2));
  EXPECT_FALSE(fixed_units_certain(1.0, kApproxEulerErrorDeg, 23));
  EXPECT_TRUE(fixed_units_certain(1.0, kApproxEulerErrorDeg, 4));
}

TEST(BvhEulerApprox, SingleAxisRotationsPrintAsTheExactOnes) {
  // Turns about one axis: the exact conversion's other two angles are zeros of either sign (or
  // within an ulp of zero), whose sign the fast angles need not share; the text is the same
  // because a zero prints without its sign (format_fixed, and the writer's zero units).
  std::mt19937_64 rng(1603);
  std::uniform_real_distribution<double> angle(-170.0, 170.0);
  int printed_fast = 0;
  for (int trial = 0; trial < 60000; ++trial) {
    const Axes& axes = kOrders[trial % 6];
    Angles turn{0.0, 0.0, 0.0};
    turn[(trial / 6) % 3] = angle(rng);
    if (trial % 5 == 0) turn[(trial / 6 + 1) % 3] = -0.0;
    Quat q = quat_from_euler_deg(axes, turn);
    if (trial % 2 == 1) q = -q;
    const Angles reference{0.0, 0.0, 0.0};
    const Angles exact = euler_from_quat_deg(q, axes, reference);
    Angles fast{};
    if (!approx_euler_from_quat_deg(q, axes, reference, fast)) continue;
    for (int n = 0; n < 3; ++n) {
      if (!fixed_units_certain(fast[n], kApproxEulerErrorDeg, 6)) continue;
      ++printed_fast;
      ASSERT_EQ(printed(fast[n], 6), printed(exact[n], 6)) << "trial " << trial << " angle " << n;
    }
  }
  EXPECT_GT(printed_fast, 50000);
}

TEST(BvhEulerApprox, CertainAnglesPrintAsTheExactOnes) {
  // The writer's use: where approx_euler_from_quat_deg answers and each angle's rounding is
  // certain, the text is the exact angle's; file-like references (rounded to the decimals).
  std::mt19937_64 rng(160316);
  std::uniform_real_distribution<double> angle(-180.0, 180.0), nudge(-3.0, 3.0);
  int printed_fast = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    const Axes& axes = kOrders[trial % 6];
    const int decimals = 2 + trial % 7;
    const double scale = std::pow(10.0, decimals);
    Angles reference{};
    for (double& r : reference) r = std::round(angle(rng) * scale) / scale;
    reference[1] /= 2.0;
    const Quat q = quat_from_euler_deg(
        axes, {reference[0] + nudge(rng), reference[1] + nudge(rng), reference[2] + nudge(rng)});
    const Angles exact = euler_from_quat_deg(q, axes, reference);
    Angles fast{};
    if (!approx_euler_from_quat_deg(q, axes, reference, fast)) continue;
    for (int n = 0; n < 3; ++n) {
      if (!fixed_units_certain(fast[n], kApproxEulerErrorDeg, decimals)) continue;
      ++printed_fast;
      ASSERT_EQ(printed(fast[n], decimals), printed(exact[n], decimals)) << "trial " << trial;
    }
  }
  EXPECT_GT(printed_fast, 550000);
}

}  // namespace
