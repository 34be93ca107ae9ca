#include <gtest/gtest.h>

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
                              w.toe, 1.0, 4, 0.01, pivots);
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

TEST(FootLock, SwitchesToTheToeOnlyPastTheMarginAndDragsPastTheUnlockRadius) {
  Walk w;
  for (int f = 10; f < 15; ++f) w.heel_height[f] = 0.2;  // the heel rolls up on frame 10
  const std::vector<char> no_points_down[2];
  std::vector<signed char> pivots;
  const auto corr = foot_lock(w.planted, w.heel_height, w.toe_height, no_points_down, w.ankle,
                              w.toe, 1.0, 4, 0.01, pivots);
  for (int f = 5; f < 10; ++f) EXPECT_EQ(pivots[f], 0) << f;
  for (int f = 10; f < 15; ++f) {
    EXPECT_EQ(pivots[f], 1) << f;
    // Re-locked where the toe was (with the lock) on the frame before: it does not move.
    EXPECT_NEAR((w.toe[f] + corr[f]).x, (w.toe[9] + corr[9]).x, 1e-12) << f;
  }
  // A tiny unlock radius: the lock is dragged along, never more than the radius away.
  const auto dragged = foot_lock(w.planted, w.heel_height, w.toe_height, no_points_down, w.ankle,
                                 w.toe, 0.02, 4, 0.01, pivots);
  for (int f = 5; f < 15; ++f) EXPECT_LE(glm::length(dragged[f]), 0.02 + 1e-12) << f;
  EXPECT_NEAR(glm::length(dragged[14]), 0.02, 1e-12);
}

TEST(FootLock, APointCheckSeesAloneOnTheGroundIsThePivot) {
  const Walk w;
  std::vector<char> points_down[2] = {std::vector<char>(30, 0), std::vector<char>(30, 1)};
  std::vector<signed char> pivots;
  foot_lock(w.planted, w.heel_height, w.toe_height, points_down, w.ankle, w.toe, 1.0, 4, 0.01,
            pivots);
  for (int f = 5; f < 15; ++f) EXPECT_EQ(pivots[f], 1) << f;  // lower heel, but only the toe down
}

}  // namespace
}  // namespace ikfix::core
