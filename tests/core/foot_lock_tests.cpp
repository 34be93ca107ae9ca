#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/fix/foot_lock.hpp"

namespace ikfix::core {
namespace {

// A foot walking along +x at 1 cm a frame, planted on frames 5..14.
struct Walk {
  int frames = 30;
  std::vector<char> planted = std::vector<char>(30, 0);
  std::vector<Vec3> ankle, toe;
  std::vector<double> heel_height = std::vector<double>(30, 0.0);
  std::vector<double> toe_height = std::vector<double>(30, 0.05);
  Walk() {
    for (int f = 0; f < frames; ++f) {
      ankle.push_back({0.01 * f, 0.1, 0.0});
      toe.push_back({0.01 * f + 0.15, 0.02, 0.0});
    }
    for (int f = 5; f < 15; ++f) planted[f] = 1;
  }
};

TEST(FootLock, HoldsTheLowerPointStillThroughAPlantAndFadesOutAfter) {
  const Walk w;
  const std::vector<char> no_points_down[2];
  std::vector<signed char> pivots;
  const auto corr = foot_lock(w.planted, w.heel_height, w.toe_height, no_points_down, w.ankle,
                              w.toe, 1.0, 4, 0.01, 0.02, pivots);
  ASSERT_EQ(corr.size(), 30u);
  for (int f = 0; f < 5; ++f) EXPECT_EQ(corr[f], Vec3(0)) << f;
  for (int f = 5; f < 15; ++f) {
    EXPECT_EQ(pivots[f], 0) << f;  // the heel is the lower point
    const Vec3 locked = w.ankle[f] + corr[f];
    EXPECT_NEAR(locked.x, w.ankle[5].x, 1e-12) << f;
    EXPECT_EQ(corr[f].y, 0.0) << f;  // horizontal only
  }
  for (int f = 15; f < 30; ++f) EXPECT_EQ(pivots[f], -1) << f;
  // The fade after the plant: monotone towards zero, zero after the blend window.
  for (int f = 15; f < 19; ++f) EXPECT_LT(std::abs(corr[f].x), std::abs(corr[f - 1].x)) << f;
  for (int f = 19; f < 30; ++f) EXPECT_EQ(corr[f], Vec3(0)) << f;
}

// The largest third forward difference (metres per frame cubed) of x over frames [from, to].
double max_third_difference(const std::vector<Vec3>& c, int from, int to) {
  double worst = 0;
  for (int f = from; f + 3 <= to; ++f)
    worst = std::max(worst, std::abs(c[f + 3].x - 3.0 * c[f + 2].x + 3.0 * c[f + 1].x - c[f].x));
  return worst;
}

TEST(FootLock, TheFadeAfterAPlantHasNoStepInAcceleration) {
  // The heel walks 1 cm a frame until frame 10 and stands from there; planted on frames 5..14,
  // so the lock leaves 5 cm to fade over 40 frames, reaching zero on frame 55.
  const int n = 80;
  std::vector<char> planted(n, 0);
  std::vector<Vec3> ankle(n), toe(n);
  for (int f = 0; f < n; ++f) {
    planted[f] = f >= 5 && f < 15;
    ankle[f] = {0.01 * std::min(f, 10), 0.1, 0.0};
    toe[f] = ankle[f] + Vec3(0.15, -0.08, 0.0);
  }
  const std::vector<double> heel_height(n, 0.0), toe_height(n, 0.05);
  const std::vector<char> no_points_down[2];
  std::vector<signed char> pivots;
  const auto corr = foot_lock(planted, heel_height, toe_height, no_points_down, ankle, toe, 1.0, 40,
                              0.01, 0.02, pivots);
  ASSERT_NEAR(corr[14].x, -0.05, 1e-12);
  EXPECT_EQ(corr[55], Vec3(0));
  // A C2 ease (smootherstep) of 5 cm over 41 frames: its third derivative is at most
  // 60 * 5 cm / 41^3, and so is every third difference across both ends. An ease whose
  // acceleration steps at its ends (smoothstep: 6 * 5 cm / 41^2) shows half that step there.
  EXPECT_LE(max_third_difference(corr, 10, 60), 1.05 * 60.0 * 0.05 / (41.0 * 41.0 * 41.0));
}

TEST(FootLock, SwitchesToTheToeOnlyPastTheMarginAndDragsPastTheUnlockRadius) {
  Walk w;
  for (int f = 10; f < 15; ++f) w.heel_height[f] = 0.2;  // the heel rolls up on frame 10
  const std::vector<char> no_points_down[2];
  std::vector<signed char> pivots;
  const auto corr = foot_lock(w.planted, w.heel_height, w.toe_height, no_points_down, w.ankle,
                              w.toe, 1.0, 4, 0.01, 0.02, pivots);
  for (int f = 5; f < 10; ++f) EXPECT_EQ(pivots[f], 0) << f;
  for (int f = 10; f < 15; ++f) {
    EXPECT_EQ(pivots[f], 1) << f;
    // Re-locked where the toe was (with the lock) on the frame before: it does not move.
    EXPECT_NEAR((w.toe[f] + corr[f]).x, (w.toe[9] + corr[9]).x, 1e-12) << f;
  }
  // A tiny unlock radius: the lock is dragged along, never more than the radius away.
  const auto dragged = foot_lock(w.planted, w.heel_height, w.toe_height, no_points_down, w.ankle,
                                 w.toe, 0.02, 4, 0.01, 0.02, pivots);
  for (int f = 5; f < 15; ++f) EXPECT_LE(glm::length(dragged[f]), 0.02 + 1e-12) << f;
  EXPECT_NEAR(glm::length(dragged[14]), 0.02, 1e-12);
}

TEST(FootLock, APointCheckSeesAloneOnTheGroundIsThePivot) {
  const Walk w;
  std::vector<char> points_down[2] = {std::vector<char>(30, 0), std::vector<char>(30, 1)};
  std::vector<signed char> pivots;
  foot_lock(w.planted, w.heel_height, w.toe_height, points_down, w.ankle, w.toe, 1.0, 4, 0.01, 0.02,
            pivots);
  for (int f = 5; f < 15; ++f) EXPECT_EQ(pivots[f], 1) << f;  // lower heel, but only the toe down
}

// A foot turning in place about its ball, planted on frames 5..24: the toe stays, the heel
// (lower, so held first) swings 1.5 cm a frame from frame 8 on.
struct Turn : Walk {
  Turn() {
    toe_height.assign(30, 0.01);
    planted.assign(30, 0);
    for (int f = 5; f < 25; ++f) planted[f] = 1;
    for (int f = 0; f < frames; ++f) {
      toe[f] = {0.15, 0.02, 0.0};
      ankle[f] = {-0.015 * std::max(0, f - 8), 0.1, 0.0};
    }
  }
};

TEST(FootLock, AHeldHeelThatRunsAwayWhileTheToeStaysHandsTheHoldToTheToe) {
  const Turn w;
  const std::vector<char> no_points_down[2];
  std::vector<signed char> pivots;
  const auto corr = foot_lock(w.planted, w.heel_height, w.toe_height, no_points_down, w.ankle,
                              w.toe, 1.0, 4, 0.01, 0.02, pivots);
  EXPECT_EQ(pivots[5], 0);
  // The heel has run 3 cm by frame 10 (within the 4-frame window): the toe is held from there to
  // the end of the plant, although the heel stays the lower point.
  int first_toe = -1;
  for (int f = 5; f < 25; ++f)
    if (pivots[f] == 1 && first_toe < 0) first_toe = f;
  EXPECT_EQ(first_toe, 10);
  for (int f = first_toe; f < 25; ++f) {
    EXPECT_EQ(pivots[f], 1) << f;
    EXPECT_NEAR((w.toe[f] + corr[f]).x, (w.toe[9] + corr[9]).x, 1e-12) << f;
  }
  // What is left to fade after the plant is the heel's run before the hand-over, not its
  // whole swing (24 cm).
  EXPECT_LT(glm::length(corr[24]), 0.03);
  // Without the rule (0), the heel is held through the plant and the correction is its swing.
  const auto held = foot_lock(w.planted, w.heel_height, w.toe_height, no_points_down, w.ankle,
                              w.toe, 1.0, 4, 0.01, 0.0, pivots);
  for (int f = 5; f < 25; ++f) EXPECT_EQ(pivots[f], 0) << f;
  EXPECT_NEAR(held[24].x, 0.24, 1e-12);
}

TEST(FootLock, AFootThatSlidesWholeKeepsItsPivot) {
  Walk w;  // heel and toe move together, 1 cm a frame: neither stays, so no hand-over
  w.toe_height.assign(30, 0.01);
  for (int f = 0; f < w.frames; ++f) w.planted[f] = f >= 5 && f < 25;
  const std::vector<char> no_points_down[2];
  std::vector<signed char> pivots;
  foot_lock(w.planted, w.heel_height, w.toe_height, no_points_down, w.ankle, w.toe, 1.0, 4, 0.01,
            0.02, pivots);
  for (int f = 5; f < 25; ++f) EXPECT_EQ(pivots[f], 0) << f;
}

}  // namespace
}  // namespace ikfix::core
