#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/fix/pivot_timing.hpp"

namespace ikfix::core {
namespace {

// A foot 15 cm long along +z whose pitch (radians, toe down positive) is given per frame: the
// heel->toe vector's horizontal length changes only while the pitch does.
struct Foot {
  std::vector<Vec3> heel, toe;
};
Foot pitched_foot(const std::vector<double>& pitch) {
  Foot foot;
  for (double p : pitch) {
    foot.heel.push_back({0.0, 0.08, 0.0});
    foot.toe.push_back(Vec3(0.0, 0.08, 0.0) + 0.15 * Vec3(0.0, -std::sin(p), std::cos(p)));
  }
  return foot;
}

// Heel strike (toes coming down), foot flat on frames 4-7, heel rising from frame 8.
const std::vector<double> kRoll = {0.3, 0.2, 0.1,   0.05, 0.0,  0.0,
                                   0.0, 0.0, -0.05, -0.1, -0.2, -0.3};

TEST(PivotTiming, HeelToToeSwitchMovesToTheNearestFrameWhereTheFootDoesNotTurn) {
  const Foot foot = pitched_foot(kRoll);
  std::vector<signed char> pivots = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
  const std::vector<char> on_ground[2] = {std::vector<char>(12, 1), std::vector<char>(12, 1)};
  retime_pivot_switches(pivots, foot.heel, foot.toe, on_ground);
  // With the switch at 8 the toe is held from frame 7 on: the heel was still up to 7 and the
  // foot does not turn from 7 to 8, so neither point moves on a frame check sees it planted.
  const std::vector<signed char> expected = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
  EXPECT_EQ(pivots, expected);
}

TEST(PivotTiming, OnlyWhereBothPointsAreOnTheGround) {
  const Foot foot = pitched_foot(kRoll);
  std::vector<signed char> pivots = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
  const std::vector<signed char> original = pivots;
  std::vector<char> on_ground[2] = {std::vector<char>(12, 1), std::vector<char>(12, 1)};
  for (int f = 0; f < 9; ++f) on_ground[1][f] = 0;  // the toe touches down only at frame 9
  retime_pivot_switches(pivots, foot.heel, foot.toe, on_ground);
  EXPECT_EQ(pivots, original);
  // Unknown contacts: nothing moves.
  const std::vector<char> unknown[2] = {};
  retime_pivot_switches(pivots, foot.heel, foot.toe, unknown);
  EXPECT_EQ(pivots, original);
}

// A foot along +z whose heel->toe length shrinks by turn[f] (metres) from frame f - 1 to f.
Foot turning_foot(const std::vector<double>& turn) {
  Foot foot;
  double length = 0.15;
  for (double t : turn) {
    length -= t;
    foot.heel.push_back({0.0, 0.08, 0.0});
    foot.toe.push_back({0.0, 0.08, length});
  }
  return foot;
}

TEST(PivotTiming, SwitchJustAfterTheNewPivotTouchesDownWhenTheFootTurnsNoMoreThere) {
  // The toe touches down at frame 4. By the turn alone the switch stays at 8 (check would see
  // 1 mm over (6, 7)); at 5 it would see none (the toe is measured one-sided on 4, already held),
  // and the foot turns less across 5 (2 mm) than across 8 (3 mm).
  const std::vector<double> turn = {0,     0,     0,     0,     0.004, 0.002,
                                    0.003, 0.001, 0.003, 0.003, 0.003, 0.003};
  std::vector<char> on_ground[2] = {std::vector<char>(12, 1), std::vector<char>(12, 1)};
  for (int f = 0; f < 4; ++f) on_ground[1][f] = 0;
  const std::vector<signed char> planned = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
  std::vector<signed char> pivots = planned;
  retime_pivot_switches(pivots, turning_foot(turn).heel, turning_foot(turn).toe, on_ground);
  EXPECT_EQ(pivots, (std::vector<signed char>{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1}));
  // Never taken, or taken only when turning less and the foot turns more across 5 (4 mm): by the
  // turn alone.
  pivots = planned;
  retime_pivot_switches(pivots, turning_foot(turn).heel, turning_foot(turn).toe, on_ground,
                        TouchdownSwitch::Never);
  EXPECT_EQ(pivots, planned);
  std::vector<double> sharper = turn;
  sharper[5] = 0.004;
  pivots = planned;
  retime_pivot_switches(pivots, turning_foot(sharper).heel, turning_foot(sharper).toe, on_ground);
  EXPECT_EQ(pivots, planned);
  // Unless it is always taken.
  pivots = planned;
  retime_pivot_switches(pivots, turning_foot(sharper).heel, turning_foot(sharper).toe, on_ground,
                        TouchdownSwitch::Always);
  EXPECT_EQ(pivots, (std::vector<signed char>{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1}));
}

TEST(PivotTiming, StaysInsideItsPlantAndKeepsTheOrder) {
  const Foot foot = pitched_foot(kRoll);
  // Two plants separated by a swing frame; the second switches toe -> heel.
  std::vector<signed char> pivots = {0, 0, 1, 1, 1, 1, -1, 1, 1, 1, 0, 0};
  const std::vector<char> on_ground[2] = {std::vector<char>(12, 1), std::vector<char>(12, 1)};
  retime_pivot_switches(pivots, foot.heel, foot.toe, on_ground);
  EXPECT_EQ(pivots[6], -1);
  for (int f = 0; f < 6; ++f) EXPECT_GE(pivots[f], 0);
  // Each plant still starts on its first pivot and ends on its second, with one switch.
  EXPECT_EQ(pivots[0], 0);
  EXPECT_EQ(pivots[5], 1);
  EXPECT_EQ(pivots[7], 1);
  EXPECT_EQ(pivots[11], 0);
  int switches = 0;
  for (int f = 1; f < 12; ++f)
    if (pivots[f] >= 0 && pivots[f - 1] >= 0 && pivots[f] != pivots[f - 1]) ++switches;
  EXPECT_EQ(switches, 2);
}

}  // namespace
}  // namespace ikfix::core
