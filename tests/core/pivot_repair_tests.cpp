#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/fix/pivot_repair.hpp"

namespace ikfix::core {
namespace {

constexpr double kFps = 100.0;

// A foot whose heel stays at the origin while the foot turns about it (the toe, 0.2 m ahead,
// swings 1 degree per frame). Check sees the toe down on frames 2-9 and the heel only on 3-9:
// on frame 2 the toe is down alone, measured one-sided over 2..3, while the heel is held.
struct TurningFoot {
  std::vector<Vec3> heel, toe;
  std::vector<char> point_planted[2];
};
TurningFoot turning_foot() {
  TurningFoot foot;
  for (int f = 0; f < 12; ++f) {
    const double a = f * kPi / 180.0;
    foot.heel.push_back({0.0, 0.08, 0.0});
    foot.toe.push_back({0.2 * std::sin(a), 0.02, 0.2 * std::cos(a)});
    foot.point_planted[0].push_back(f >= 3 && f <= 9);
    foot.point_planted[1].push_back(f >= 2 && f <= 9);
  }
  return foot;
}

// Check with the contacts fixed as above (horizontal moves here never change them), and
// `penetration` for any pivots that hold the toe on frame 6 (a toe carried into a step's riser).
SlideMeasure fixed_contacts(const TurningFoot& foot, double penetration_when_toe_held_on_6 = 0.0) {
  return [&foot, penetration_when_toe_held_on_6](const std::vector<Vec3>& heel,
                                                 const std::vector<Vec3>& toe,
                                                 const std::vector<signed char>&) {
    std::vector<char> planted(heel.size());
    for (std::size_t f = 0; f < heel.size(); ++f)
      planted[f] = foot.point_planted[0][f] || foot.point_planted[1][f];
    FootCheck check{worst_plant_slide_at(heel, toe, planted, foot.point_planted, kFps), 0.0};
    // The held toe keeps its x on frame 6 where the heel-held foot's toe had moved on.
    if (std::abs(toe[6].x - foot.toe[6].x) > 1e-9)
      check.penetration_m = penetration_when_toe_held_on_6;
    return check;
  };
}

// The foot's points moved by a repair's horizontal holds.
struct HeldFoot {
  std::vector<Vec3> heel, toe;
};
HeldFoot held(const TurningFoot& foot, const std::vector<Vec3>& hold) {
  HeldFoot out{foot.heel, foot.toe};
  for (std::size_t f = 0; f < hold.size(); ++f) {
    out.heel[f] += hold[f];
    out.toe[f] += hold[f];
  }
  return out;
}

std::vector<signed char> heel_held() {
  std::vector<signed char> pivots(12, -1);
  for (int f = 2; f <= 9; ++f) pivots[f] = 0;
  return pivots;
}

TEST(RepairPivotHolds, HoldsAPointSeenDownAloneWhereItIsMeasured) {
  const TurningFoot foot = turning_foot();
  const SlideMeasure measure = fixed_contacts(foot);
  std::vector<signed char> pivots = heel_held();
  // As planned: the toe slides about 0.35 m/s on frame 2.
  std::vector<Vec3> heel = foot.heel, toe = foot.toe;
  EXPECT_GT(measure(heel, toe, pivots).slide.speed, 0.3);
  const auto hold = repair_pivot_holds(pivots, foot.heel, foot.toe, 2, 1.0, 0.02, 8, measure);
  for (const Vec3& h : hold) EXPECT_EQ(h.y, 0.0);
  const HeldFoot moved = held(foot, hold);
  const FootCheck after = measure(moved.heel, moved.toe, pivots);
  EXPECT_LE(after.slide.speed, 0.02);
  // The toe became the pivot where it is measured alone; frames outside the plan stay unplanted.
  EXPECT_EQ(pivots[3], 1);
  EXPECT_EQ(pivots[0], -1);
  EXPECT_EQ(pivots[11], -1);
}

TEST(RepairPivotHolds, NothingToRepairLeavesThePlan) {
  TurningFoot foot = turning_foot();
  foot.point_planted[1][2] = 0;  // the heel is down whenever the toe is: holding it is enough
  const SlideMeasure measure = fixed_contacts(foot);
  std::vector<signed char> pivots = heel_held();
  const auto hold = repair_pivot_holds(pivots, foot.heel, foot.toe, 2, 1.0, 0.02, 8, measure);
  EXPECT_EQ(pivots, heel_held());
  for (const Vec3& c : hold) EXPECT_EQ(glm::length(c), 0.0);
}

TEST(RepairPivotHolds, NeverTakesAChangeThatPutsAPointIntoTheGround) {
  const TurningFoot foot = turning_foot();
  const SlideMeasure measure = fixed_contacts(foot, 0.05);
  std::vector<signed char> pivots = heel_held();
  const auto hold = repair_pivot_holds(pivots, foot.heel, foot.toe, 2, 1.0, 0.02, 8, measure);
  const HeldFoot moved = held(foot, hold);
  const FootCheck after = measure(moved.heel, moved.toe, pivots);
  EXPECT_EQ(after.penetration_m, 0.0);
  // Whatever it took instead, the worst sliding is no larger than planned.
  EXPECT_LE(after.slide.speed, measure(foot.heel, foot.toe, heel_held()).slide.speed);
}

TEST(RepairPivotHolds, AWholeRunChangesWhereAFewFramesWouldNotDo) {
  // Check sees only the toe down on frames 2-9 (the heel hangs over a step edge): with the heel
  // held throughout, the turning foot's toe slides on every frame, and no window of up to three
  // frames helps for more than those frames. The toe held over the heel's whole run does.
  TurningFoot foot = turning_foot();
  for (int f = 0; f < 12; ++f) foot.point_planted[0][f] = 0;
  const SlideMeasure measure = fixed_contacts(foot);
  std::vector<signed char> pivots = heel_held();
  const auto hold = repair_pivot_holds(pivots, foot.heel, foot.toe, 2, 1.0, 0.02, 1, measure);
  const HeldFoot moved = held(foot, hold);
  EXPECT_LE(measure(moved.heel, moved.toe, pivots).slide.speed, 1e-9);  // one change was enough
  for (int f = 2; f <= 9; ++f) EXPECT_EQ(pivots[f], 1) << f;
}

}  // namespace
}  // namespace ikfix::core
