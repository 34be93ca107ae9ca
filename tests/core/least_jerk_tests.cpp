// least_jerk.hpp: the least-jerk path over a run of frames between a floor and a ceiling, and
// its use over each swing of a foot.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/fix/least_jerk.hpp"

namespace ikfix::core {
namespace {

// The central third difference metrics.cpp measures (per frame cubed), at frame f.
double jerk_at(const std::vector<double>& x, int f) {
  return 0.5 * x[f + 2] - x[f + 1] + x[f - 1] - 0.5 * x[f - 2];
}

double sum_squared_jerk(const std::vector<double>& x, int from, int to) {
  double sum = 0;
  for (int f = from; f <= to; ++f) sum += jerk_at(x, f) * jerk_at(x, f);
  return sum;
}

double largest_jerk(const std::vector<double>& x, int from, int to) {
  double most = 0;
  for (int f = from; f <= to; ++f) most = std::max(most, std::abs(jerk_at(x, f)));
  return most;
}

TEST(LeastJerk, ARunStaysAboveItsFloorAndLeavesEveryOtherFrame) {
  // A path that holds at 0, jumps to climbing at 1 cm a frame at frame 20, holds at 0.2 from 40.
  std::vector<double> x(60, 0.0);
  for (int f = 20; f < 60; ++f) x[f] = std::min(0.2, 0.01 * (f - 19));
  const std::vector<double> low = x, before = x;
  ASSERT_TRUE(least_jerk_above(x, 10, 20, low));
  for (int f = 0; f < 60; ++f) {
    EXPECT_GE(x[f], low[f] - 1e-12) << f;
    if (f < 10 || f >= 30) {
      EXPECT_EQ(x[f], before[f]) << f;
    }
  }
  // The kink at frame 20 is spread over the run: less jerk in all and at its worst.
  EXPECT_LT(sum_squared_jerk(x, 8, 31), 0.5 * sum_squared_jerk(before, 8, 31));
  EXPECT_LT(largest_jerk(x, 8, 31), 0.5 * largest_jerk(before, 8, 31));
}

// The sum of squared jerk's derivative by x[i] (every jerk term that reads x[i]).
double jerk_gradient(const std::vector<double>& x, int i) {
  double grad = 0;
  for (int f = i - 2; f <= i + 2; ++f) {
    const int d = i - f;
    const double w = d == 2 ? 0.5 : d == 1 ? -1.0 : d == -1 ? 1.0 : d == -2 ? -0.5 : 0.0;
    grad += 2.0 * w * jerk_at(x, f);
  }
  return grad;
}

// A bumpy floor makes the solve hold and release frames over many rounds, each re-solving only
// the rows its change reaches: the result is still the least-jerk path, every free frame of the
// run with no pull left on it, every frame at its floor pulled down onto it.
TEST(LeastJerk, ARunOverABumpyFloorEndsAtTheLeastJerkPath) {
  std::vector<double> x(60);
  for (int f = 0; f < 60; ++f)
    x[f] = 0.1 * std::sin(0.7 * f) + 0.05 * ((f * 37) % 11) / 11.0 + (f >= 30 ? 0.2 : 0.0);
  const std::vector<double> low = x;
  ASSERT_TRUE(least_jerk_above(x, 6, 46, low));
  int at_floor = 0, free_frames = 0;
  for (int i = 6; i < 52; ++i) {
    ASSERT_GE(x[i], low[i]) << i;
    if (x[i] == low[i]) {
      ++at_floor;
      EXPECT_GT(jerk_gradient(x, i), -1e-9) << i;
    } else {
      ++free_frames;
      EXPECT_NEAR(jerk_gradient(x, i), 0.0, 1e-9) << i;
    }
  }
  EXPECT_GE(at_floor, 3);
  EXPECT_GE(free_frames, 20);
}

TEST(LeastJerk, ACeilingKeepsAPathBeforeASteepDropFromSwingingUp) {
  // High (0.5) up to frame 29, then a plant 0.1 lower from frame 30: a run ending at the drop.
  std::vector<double> x(50, 0.5);
  for (int f = 30; f < 50; ++f) x[f] = 0.4;
  const std::vector<double> low = x;
  std::vector<double> free_path = x, capped = x;
  ASSERT_TRUE(least_jerk_above(free_path, 14, 16, low));
  // Without a ceiling the path swings far above the highest it had, to spread the drop.
  EXPECT_GT(*std::max_element(free_path.begin(), free_path.end()), 0.6);
  const std::vector<double> high(50, 0.5);
  ASSERT_TRUE(least_jerk_above(capped, 14, 16, low, high));
  for (int f = 0; f < 50; ++f) {
    EXPECT_LE(capped[f], 0.5 + 1e-12) << f;
    EXPECT_GE(capped[f], low[f] - 1e-12) << f;
  }
}

TEST(LeastJerk, SwingsStartTheirLeadInThePlantAndLongOnesAreEasedAtEachEnd) {
  // Plants 0..19 and 70..99, a swing of 50 frames between; heights rise with a kink at each
  // end of the swing.
  std::vector<char> planted(100, 0);
  std::vector<double> x(100, 0.0);
  for (int f = 0; f < 100; ++f) {
    planted[f] = f < 20 || f >= 70;
    x[f] = f < 20 ? 0.0 : f >= 70 ? 0.5 : 0.01 * (f - 19);
  }
  const std::vector<double> low = x;
  std::vector<double> eased = x;
  const std::vector<Interval> made = least_jerk_swings(
      planted, low, [](int, int) { return true; }, 20, 4, eased);
  // The swing (50 frames, 54 with the lead) is longer than 20: its first and last 10 frames.
  ASSERT_EQ(made.size(), 2u);
  EXPECT_EQ(made[0].first, 16);
  EXPECT_EQ(made[0].last, 25);
  EXPECT_EQ(made[1].first, 60);
  EXPECT_EQ(made[1].last, 69);
  for (int f = 0; f < 100; ++f) {
    EXPECT_GE(eased[f], low[f] - 1e-12) << f;
    const bool in_run = (f >= 16 && f <= 25) || (f >= 60 && f <= 69);
    if (!in_run) {
      EXPECT_EQ(eased[f], x[f]) << f;
    }
  }
  EXPECT_GT(eased[18], x[18]);  // the foot starts up before its lift-off at frame 20
  EXPECT_LT(largest_jerk(eased, 14, 27), 0.5 * largest_jerk(x, 14, 27));
  // A swing the test turns down, or too close to the clip's ends, is left.
  std::vector<double> same = x;
  EXPECT_TRUE(least_jerk_swings(
                  planted, low, [](int, int) { return false; }, 20, 4, same)
                  .empty());
  EXPECT_EQ(same, x);
  std::vector<char> edge(100, 0);
  for (int f = 0; f < 3; ++f) edge[f] = 1;
  std::vector<double> at_edge = x;
  EXPECT_TRUE(least_jerk_swings(
                  edge, low, [](int, int) { return true; }, 200, 0, at_edge)
                  .empty());
  EXPECT_EQ(at_edge, x);
}

}  // namespace
}  // namespace ikfix::core
