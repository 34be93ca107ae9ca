#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/fix/smooth.hpp"

namespace ikfix::core {
namespace {

std::vector<double> smooth(const std::vector<double>& in, double sigma) {
  std::vector<double> out(in.size(), -1e300);
  gaussian_smooth(in, sigma, out);
  return out;
}

std::vector<double> dilate(const std::vector<double>& in, int radius) {
  std::vector<double> out(in.size(), -1e300);
  dilate_max(in, radius, out);
  return out;
}

std::vector<double> random_signal(std::mt19937& rng, int n) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = u(rng);
  return v;
}

TEST(SmoothGaussianRadius, IsTheFilterSupportNearThreeSigma) {
  EXPECT_EQ(gaussian_radius(0.0), 0);
  EXPECT_EQ(gaussian_radius(-2.0), 0);
  EXPECT_GE(gaussian_radius(0.1), 1);  // any positive sigma smooths a little
  for (double sigma : {1.0, 1.5, 2.0, 10.0, 40.0}) {
    EXPECT_GE(gaussian_radius(sigma), static_cast<int>(2.0 * sigma)) << sigma;
    EXPECT_LE(gaussian_radius(sigma), static_cast<int>(std::ceil(4.0 * sigma))) << sigma;
  }
}

TEST(SmoothGaussian, ConstantStaysConstantIncludingEdges) {
  for (double value : {0.0, 1.0, -3.25, 0.1, 1e6}) {
    for (double sigma : {0.5, 1.0, 2.5, 7.0, 100.0}) {
      for (int n : {1, 2, 5, 40, 301}) {
        const std::vector<double> in(static_cast<std::size_t>(n), value);
        const auto out = smooth(in, sigma);
        for (int i = 0; i < n; ++i)
          ASSERT_NEAR(out[i], value, 1e-13 * std::max(1.0, std::abs(value)))
              << "value " << value << " sigma " << sigma << " n " << n << " i " << i;
      }
    }
  }
}

TEST(SmoothGaussian, NonPositiveSigmaCopies) {
  std::mt19937 rng(1);
  const auto in = random_signal(rng, 50);
  for (double sigma : {0.0, -1.0}) EXPECT_EQ(smooth(in, sigma), in);
}

TEST(SmoothGaussian, EmptyInputIsFine) {
  const std::vector<double> in;
  EXPECT_TRUE(smooth(in, 2.0).empty());
  EXPECT_TRUE(dilate(in, 3).empty());
}

TEST(SmoothGaussian, ZeroPhaseSymmetricBumpStaysCentred) {
  // A bump centred at sample 60 of 121: the output is symmetric about 60 and peaks there.
  const int n = 121, centre = 60;
  for (double sigma : {1.0, 3.0, 8.0}) {
    std::vector<double> in(n, 0.0);
    for (int i = 50; i <= 70; ++i) in[i] = 1.0 - std::abs(i - centre) / 10.0;
    const auto out = smooth(in, sigma);
    for (int k = 0; k <= centre; ++k) EXPECT_NEAR(out[centre - k], out[centre + k], 1e-14) << sigma;
    EXPECT_EQ(std::max_element(out.begin(), out.end()) - out.begin(), centre) << sigma;
    // Weighted centroid unchanged (no lag, no lead).
    double m0 = 0, m1 = 0;
    for (int i = 0; i < n; ++i) {
      m0 += out[i];
      m1 += out[i] * i;
    }
    EXPECT_NEAR(m1 / m0, centre, 1e-10) << sigma;
  }
  // An off-centre step: the half-way crossing stays between the same samples.
  std::vector<double> step(100, 0.0);
  for (int i = 50; i < 100; ++i) step[i] = 1.0;
  const auto s = smooth(step, 4.0);
  EXPECT_NEAR(s[49] + s[50], 1.0, 1e-14);  // antisymmetric about 49.5
  EXPECT_LT(s[49], 0.5);
  EXPECT_GT(s[50], 0.5);
}

TEST(SmoothGaussian, ImpulseResponseIsANormalisedNearGaussian) {
  const int n = 201, c = 100;
  const double sigma = 6.0;
  std::vector<double> in(n, 0.0);
  in[c] = 1.0;
  const auto out = smooth(in, sigma);
  double total = 0, variance = 0;
  for (int i = 0; i < n; ++i) {
    total += out[i];
    variance += out[i] * (i - c) * (i - c);
  }
  EXPECT_NEAR(total, 1.0, 1e-14);
  // Three box passes: the variance matches sigma^2 to within the rounding of the box width.
  EXPECT_NEAR(std::sqrt(variance), sigma, 0.1 * sigma);
  for (int k = 1; k < 20; ++k) {
    EXPECT_NEAR(out[c + k], out[c - k], 1e-15) << k;     // symmetric: zero phase
    EXPECT_LE(out[c + k], out[c + k - 1] + 1e-15) << k;  // decreasing away from the centre
  }
  // Finite support: exactly gaussian_radius samples either side.
  const int r = gaussian_radius(sigma);
  EXPECT_GT(out[c + r], 0.0);
  // (Running sums leave rounding dust of ~1e-17 outside the support.)
  EXPECT_NEAR(out[c + r + 1], 0.0, 1e-15);
  EXPECT_NEAR(out[c - r - 1], 0.0, 1e-15);
}

TEST(SmoothGaussian, LinearRampIsPreservedAwayFromTheEdges) {
  std::vector<double> ramp(80);
  for (int i = 0; i < 80; ++i) ramp[i] = 0.25 * i - 3.0;
  const double sigma = 2.0;
  const int r = gaussian_radius(sigma);
  const auto out = smooth(ramp, sigma);
  for (int i = r; i < 80 - r; ++i) EXPECT_NEAR(out[i], ramp[i], 1e-12) << i;
}

TEST(SmoothGaussian, StaysWithinTheInputRange) {
  std::mt19937 rng(2);
  for (int t = 0; t < 20; ++t) {
    const auto in = random_signal(rng, 200);
    const auto [lo, hi] = std::minmax_element(in.begin(), in.end());
    const auto out = smooth(in, 0.5 + t * 0.7);
    for (double v : out) {
      EXPECT_GE(v, *lo - 1e-15);
      EXPECT_LE(v, *hi + 1e-15);
    }
  }
}

// The three box passes of gaussian_smooth, each a running sum over the window clipped to the
// signal: the filter's definition, which its faster loops must give bit for bit (the fix's
// outputs depend on every bit).
std::vector<double> three_box_passes(std::vector<double> x, int h) {
  const int n = static_cast<int>(x.size());
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<double> out(x.size());
    double sum = 0;
    int lo = 0, hi = -1;
    for (int i = 0; i < n; ++i) {
      while (hi < std::min(n - 1, i + h)) sum += x[++hi];
      while (lo < std::max(0, i - h)) sum -= x[lo++];
      out[i] = sum / (hi - lo + 1);
    }
    x = out;
  }
  return x;
}

TEST(SmoothGaussian, SameBitsAsThreeClippedRunningSums) {
  std::mt19937 rng(7);
  for (int n : {1, 2, 3, 4, 5, 6, 7, 10, 57, 400}) {
    for (double sigma : {0.3, 1.0, 2.5, 6.0, 30.0, 500.0}) {
      const auto in = random_signal(rng, n);
      const int h = gaussian_radius(sigma) / 3;  // the box half-width
      const auto out = smooth(in, sigma);
      const auto want = three_box_passes(in, h);
      for (int i = 0; i < n; ++i)
        ASSERT_EQ(std::memcmp(&out[i], &want[i], sizeof(double)), 0)
            << "n " << n << " sigma " << sigma << " i " << i;
    }
  }
}

TEST(SmoothDilate, MatchesBruteForceRunningMax) {
  std::mt19937 rng(3);
  for (int n : {1, 2, 7, 50, 200}) {
    for (int radius : {0, 1, 2, 5, 49, 500}) {
      auto in = random_signal(rng, n);
      // Plateaus and repeated values exercise the ties in the monotonic queue.
      for (int i = 0; i + 1 < n; i += 5) in[i + 1] = in[i];
      const auto out = dilate(in, radius);
      for (int i = 0; i < n; ++i) {
        double want = -1e300;
        for (int j = std::max(0, i - radius); j <= std::min(n - 1, i + radius); ++j)
          want = std::max(want, in[j]);
        ASSERT_EQ(out[i], want) << "n " << n << " radius " << radius << " i " << i;
      }
    }
  }
}

TEST(SmoothDilate, RadiusZeroCopies) {
  std::mt19937 rng(4);
  const auto in = random_signal(rng, 30);
  EXPECT_EQ(dilate(in, 0), in);
}

TEST(SmoothDilateThenSmooth, NeverBelowTheInput) {
  // What the pelvis drop relies on: smooth(dilate(x, r), sigma) >= x with r = radius(sigma).
  std::mt19937 rng(5);
  for (int t = 0; t < 100; ++t) {
    const double sigma = 0.3 + 0.1 * t;
    const int r = gaussian_radius(sigma);
    std::vector<double> in = random_signal(rng, 150);
    // Sparse spikes too: the typical shape of a per-frame requirement.
    if (t % 2) {
      for (double& v : in) v = v > 0.9 ? v * 10 : 0.0;
    }
    const auto out = smooth(dilate(in, r), sigma);
    for (std::size_t i = 0; i < in.size(); ++i) {
      // Up to rounding of the weighted mean (exact in real arithmetic; the sum of up to 2r+1
      // rounded terms can land a few ulps below).
      EXPECT_GE(out[i], in[i] - 1e-13 * std::max(1.0, std::abs(in[i])))
          << "sigma " << sigma << " i " << i;
    }
  }
}

TEST(SmoothDilateThenSmooth, SinglePeakIsFullyCovered) {
  // One frame needs 0.1 m: after dilate + smooth the frame still gets at least 0.1 and the
  // plateau is not wider than needed plus the kernel.
  std::vector<double> need(60, 0.0);
  need[30] = 0.1;
  const double sigma = 2.0;
  const int r = gaussian_radius(sigma);
  const auto out = smooth(dilate(need, r), sigma);
  EXPECT_GE(out[30], 0.1 - 1e-16);
  EXPECT_NEAR(out[30 - 2 * r - 1], 0.0, 1e-15);
  EXPECT_NEAR(out[30 + 2 * r + 1], 0.0, 1e-15);
}

}  // namespace
}  // namespace ikfix::core

namespace ikfix::core {
namespace {

TEST(PlantEaseWeight, OneWhilePlantedEasingToZeroOutsideOnly) {
  //                              0  1  2  3  4  5  6  7  8  9 10 11 12 13
  const std::vector<char> planted{0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0};
  const auto w = plant_ease_weight(planted, 3);
  for (int f = 5; f <= 7; ++f) EXPECT_EQ(w[f], 1.0);
  // Strictly rising towards the plant, strictly falling after it, zero beyond 3 frames.
  EXPECT_EQ(w[1], 0.0);
  EXPECT_GT(w[2], 0.0);
  EXPECT_LT(w[2], w[3]);
  EXPECT_LT(w[3], w[4]);
  EXPECT_LT(w[4], 1.0);
  EXPECT_GT(w[8], w[9]);
  EXPECT_GT(w[10], 0.0);
  EXPECT_EQ(w[11], 0.0);
  EXPECT_DOUBLE_EQ(w[4], w[8]);  // symmetric
}

}  // namespace
}  // namespace ikfix::core

namespace ikfix::core {
namespace {

// The least signal >= x whose neighbours differ by at most `step`: a jump becomes a ramp that
// starts early enough to reach it, and a drop a ramp after it.
TEST(RaiseToRateLimit, JumpBecomesRampsOnBothSides) {
  std::vector<double> x = {0, 0, 0, 0, 1, 0, 0, 0, 0};
  raise_to_rate_limit(x, 0.25);
  const std::vector<double> expected = {0, 0.25, 0.5, 0.75, 1, 0.75, 0.5, 0.25, 0};
  ASSERT_EQ(x.size(), expected.size());
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_DOUBLE_EQ(x[i], expected[i]) << i;
}

TEST(RaiseToRateLimit, NeverLowersAndLeavesGentleSignalsAlone) {
  std::vector<double> gentle = {0, 0.1, 0.2, 0.15, 0.1, 0.2};
  const auto before = gentle;
  raise_to_rate_limit(gentle, 0.1 + 1e-12);
  EXPECT_EQ(gentle, before);
  std::vector<double> x = {3, -2, 5, 5, -4, 0};
  const auto input = x;
  raise_to_rate_limit(x, 0.5);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_GE(x[i], input[i]);
  for (std::size_t i = 1; i < x.size(); ++i) EXPECT_LE(std::abs(x[i] - x[i - 1]), 0.5 + 1e-12) << i;
}

TEST(PlantedExceptLast, FreesOnlyTheLastFramesBeforeEachLiftOff) {
  //                              0  1  2  3  4  5  6  7  8  9 10
  const std::vector<char> planted{1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1};
  const auto frozen = planted_except_last(planted, 2);
  // Plant 0-3 frees 2-3; plant 6-7 frees both; the plant that lasts to the end has no lift-off.
  const std::vector<char> expected{1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1};
  EXPECT_EQ(frozen, expected);
  EXPECT_EQ(planted_except_last(planted, 0), planted);
}

}  // namespace
}  // namespace ikfix::core
