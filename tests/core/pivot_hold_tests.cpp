#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/fix/foot_contacts.hpp"
#include "core/fix/pivot_hold.hpp"
#include "core/terrain.hpp"
#include "core/terrain_gen.hpp"

namespace ikfix::core {
namespace {

// A foot 0.2 m long along +z whose heel (ankle) drifts forward 1 cm per frame and whose toe
// additionally swings sideways, as a tilted foot's toe does.
struct Foot {
  std::vector<Vec3> heel, toe;
};
Foot drifting_foot(int frames) {
  Foot foot;
  for (int f = 0; f < frames; ++f) {
    foot.heel.push_back({0.0, 0.08, 0.01 * f});
    foot.toe.push_back({0.003 * f, 0.02, 0.2 + 0.01 * f});
  }
  return foot;
}

Vec3 flat(Vec3 v) { return {v.x, 0.0, v.z}; }

TEST(HoldPivots, HeldPivotStaysExactlyStillAcrossAHeelToToeSwitch) {
  const Foot foot = drifting_foot(12);
  std::vector<signed char> pivots = {-1, 0, 0, 0, 0, 1, 1, 1, 1, -1, -1, -1};
  const auto corr = hold_pivots(pivots, foot.heel, foot.toe, 2, 1.0);
  for (int f = 2; f <= 4; ++f)
    EXPECT_NEAR(glm::length(flat(foot.heel[f] + corr[f] - foot.heel[1] - corr[1])), 0.0, 1e-12);
  // The toe is held from the frame before the switch: it does not move on the switch frame.
  for (int f = 5; f <= 8; ++f)
    EXPECT_NEAR(glm::length(flat(foot.toe[f] + corr[f] - foot.toe[4] - corr[4])), 0.0, 1e-12);
  for (const Vec3& c : corr) EXPECT_EQ(c.y, 0.0);
  // Faded out after the plant: zero once the blend window is over.
  EXPECT_GT(glm::length(corr[9]), 0.0);
  EXPECT_EQ(glm::length(corr[11]), 0.0);
  EXPECT_EQ(glm::length(corr[0]), 0.0);
}

TEST(HoldPivots, CorrectionIsDraggedBeyondTheRadius) {
  const Foot foot = drifting_foot(20);
  std::vector<signed char> pivots(20, 0);
  const auto corr = hold_pivots(pivots, foot.heel, foot.toe, 2, 0.05);
  for (const Vec3& c : corr) EXPECT_LE(glm::length(c), 0.05 + 1e-12);
  EXPECT_NEAR(glm::length(corr[19]), 0.05, 1e-12);
}

TEST(HoldPivots, TheFadeAfterAPlantHasNoStepInAcceleration) {
  // The heel walks 1 cm a frame until frame 10 and stands from there; held on frames 5..14, so
  // the hold leaves 5 cm to fade over 40 frames (zero from frame 55).
  const int n = 80;
  std::vector<signed char> pivots(n, -1);
  std::vector<Vec3> heel(n), toe(n);
  for (int f = 0; f < n; ++f) {
    if (f >= 5 && f < 15) pivots[f] = 0;
    heel[f] = {0.01 * std::min(f, 10), 0.08, 0.0};
    toe[f] = heel[f] + Vec3(0.0, -0.06, 0.2);
  }
  const auto corr = hold_pivots(pivots, heel, toe, 40, 1.0);
  ASSERT_NEAR(corr[14].x, -0.05, 1e-12);
  EXPECT_EQ(corr[55], Vec3(0));
  // Every third difference within a C2 ease's bound, 60 * 5 cm / 41^3 (smoothstep's
  // acceleration steps, 6 * 5 cm / 41^2, show half of that at each end).
  double worst = 0;
  for (int f = 10; f + 3 <= 60; ++f)
    worst = std::max(
        worst, std::abs(corr[f + 3].x - 3.0 * corr[f + 2].x + 3.0 * corr[f + 1].x - corr[f].x));
  EXPECT_LE(worst, 1.05 * 60.0 * 0.05 / (41.0 * 41.0 * 41.0));
}

TEST(FootContacts, PlantedOnSlopeIsMeasuredAboveTheTerrain) {
  // A foot standing still on a 10 degree slope (0.5 m up the ramp), then moving fast 30 cm
  // above it: heights are taken above the terrain under each point, not above y = 0.
  SlopeParams params;
  const Terrain terrain(make_slope_terrain(params));
  std::vector<Vec3> heel, toe;
  for (int f = 0; f < 40; ++f) {
    const bool swing = f >= 20;
    const double x = 0.0, z = 1.0 + (swing ? 0.05 * (f - 20) : 0.0);
    const double lift = swing ? 0.3 : 0.01;
    heel.push_back({x, terrain.ground_at(x, z).height + lift, z});
    toe.push_back({x, terrain.ground_at(x, z + 0.15).height + lift, z + 0.15});
  }
  ContactSettings settings;
  const FootContacts c = detect_foot_contacts(terrain, heel, toe, 30.0, settings);
  for (int f = 0; f < 19; ++f) EXPECT_TRUE(c.planted[f]) << f;
  for (int f = 22; f < 40; ++f) EXPECT_FALSE(c.planted[f]) << f;
  EXPECT_NEAR(c.above[0][5], 0.01, 1e-9);
  EXPECT_NEAR(c.above[1][5], 0.01, 1e-9);
  EXPECT_GT(heel[5].y, 0.05);  // the ground itself is well above y = 0 there
}

}  // namespace
}  // namespace ikfix::core

#include "core/fix/toe_bend.hpp"

namespace ikfix::core {
namespace {

TEST(ToeLift, TurnsTheTipUpToTheGroundAboutTheBall) {
  // Toes 5 cm long pointing along +z and 10 degrees down; the ground needs the tip at the
  // ball's height.
  const Vec3 ball(0.1, 0.02, 0.3);
  const double down = 10.0 * kPi / 180.0;
  const Vec3 tip = ball + 0.05 * Vec3(0.0, -std::sin(down), std::cos(down));
  const ToeLift lift = toe_lift(ball, tip, ball.y, 1.0);
  EXPECT_NEAR(lift.angle, down, 1e-12);
  const Vec3 turned = ball + axis_angle(lift.axis, lift.angle) * (tip - ball);
  EXPECT_NEAR(turned.y, ball.y, 1e-12);
  EXPECT_NEAR(glm::length(turned - ball), 0.05, 1e-12);  // the toe keeps its length
  EXPECT_GT(turned.z, ball.z);                           // still pointing forward
}

TEST(ToeLift, NothingWhenHighEnoughAndNoMoreThanTheLimit) {
  const Vec3 ball(0, 0, 0), tip(0, -0.01, 0.05);
  EXPECT_EQ(toe_lift(ball, tip, -0.02, 1.0).angle, 0.0);              // already above
  EXPECT_EQ(toe_lift(ball, tip, 0.2, 0.3).angle, 0.3);                // cannot reach: the limit
  EXPECT_EQ(toe_lift(ball, Vec3(0, -0.05, 0), 0.0, 1.0).angle, 0.0);  // straight down: no forward
}

}  // namespace
}  // namespace ikfix::core
