#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/fix/heel_lift.hpp"

namespace ikfix::core {
namespace {

constexpr double kDeg = kPi / 180.0;
const std::vector<double> kAnywhere[2] = {};  // no frame where a heel must stay down

// A foot facing +z: ankle joint 8 cm up, ball 14 cm ahead and 3 cm up; the hip straight above
// the ankle at `hip_height` (metres above the ankle), a leg that spans 0.85 m.
ReachProblem standing_leg(double hip_height) {
  ReachProblem leg;
  leg.ankle = {0.0, 0.08, 0.0};
  leg.ball = {0.0, 0.03, 0.14};
  leg.hip = leg.ankle + Vec3(0.0, hip_height, 0.0);
  leg.reach = 0.85;
  return leg;
}

TEST(HeelLift, PositiveTurnRaisesTheHeelAndKeepsTheBallWhateverTheHeading) {
  for (double heading : {0.0, 0.7, 2.0, -2.9}) {
    const Vec3 forward(std::sin(heading), 0.0, std::cos(heading));
    const Vec3 ball(0.3, 0.03, -0.2);
    const Vec3 ankle = ball - 0.14 * forward + Vec3(0.0, 0.05, 0.0);
    const HeelLift lift{20.0 * kDeg, heel_lift_axis(ankle, ball)};
    const Vec3 lifted = lifted_ankle(ankle, ball, lift);
    EXPECT_GT(lifted.y, ankle.y + 0.03);
    EXPECT_NEAR(glm::length(lifted - ball), glm::length(ankle - ball),
                1e-12);                                            // a rigid turn about the ball
    EXPECT_NEAR(glm::dot(lifted - ankle, lift.axis), 0.0, 1e-12);  // in the foot's own plane
  }
}

TEST(HeelLift, NoAxisWhenTheAnkleIsStraightAboveTheBall) {
  EXPECT_EQ(glm::length(heel_lift_axis({0, 0.1, 0}, {0, 0.02, 0})), 0.0);
  ReachProblem leg = standing_leg(0.9);
  leg.ball = {0.0, 0.0, 0.0};
  EXPECT_EQ(heel_lift_for_drop(leg, 0.0, 30.0 * kDeg).angle, 0.0);
  EXPECT_DOUBLE_EQ(drop_with_heel_lift(leg, 30.0 * kDeg),
                   pelvis_drop_needed(leg.hip, leg.ankle, leg.reach));
}

TEST(HeelLift, RemovesTheNeedForAPelvisDropWhenTheToesCanReach) {
  const ReachProblem leg = standing_leg(0.88);  // 3 cm beyond reach
  EXPECT_NEAR(pelvis_drop_needed(leg.hip, leg.ankle, leg.reach), 0.03, 1e-12);
  const double max_angle = 30.0 * kDeg;
  EXPECT_EQ(drop_with_heel_lift(leg, max_angle), 0.0);
  const HeelLift lift = heel_lift_for_drop(leg, 0.0, max_angle);
  EXPECT_GT(lift.angle, 0.0);
  EXPECT_LT(lift.angle, max_angle);
  // The smallest lift that reaches: exactly at reach, and a degree less falls short.
  const Vec3 lifted = lifted_ankle(leg.ankle, leg.ball, lift);
  EXPECT_NEAR(glm::length(leg.hip - lifted), leg.reach, 1e-6);
  const Vec3 less = lifted_ankle(leg.ankle, leg.ball, HeelLift{lift.angle - 1.0 * kDeg, lift.axis});
  EXPECT_GT(pelvis_drop_needed(leg.hip, less, leg.reach), 0.0);
}

// The scan may stop at `enough`: the larger of the answer and `enough` is what the full scan
// gives with it, whether the least drop is below `enough` or above it.
TEST(HeelLift, DropScanStoppingAtEnoughKeepsTheLargerOfTheTwo) {
  const double max_angle = 30.0 * kDeg;
  for (const double below : {0.88, 0.95, 1.0, 1.05}) {
    const ReachProblem leg = standing_leg(below);
    const double least = drop_with_heel_lift(leg, max_angle);
    for (const double enough : {0.0, 0.005, 0.02, 0.05, 0.2}) {
      const double stopped = drop_with_heel_lift(leg, max_angle, enough);
      EXPECT_GE(stopped, least) << below << " " << enough;
      EXPECT_EQ(std::max(enough, stopped), std::max(enough, least)) << below << " " << enough;
      if (least > enough) {
        EXPECT_EQ(stopped, least);
      }
    }
  }
}

// The drop scan's grid, handed to the lift's scan, gives the lift it finds alone bit for bit,
// and is read: a drop made smaller there makes that grid angle the first that suffices.
TEST(HeelLift, LiftScanReadsTheDropScansGrid) {
  const double max_angle = 30.0 * kDeg;
  for (const double below : {0.88, 0.95, 1.0, 1.05}) {
    const ReachProblem leg = standing_leg(below);
    for (const double enough : {0.0, 0.02, 0.2}) {
      HeelLiftGrid grid;
      const double drop = drop_with_heel_lift(leg, max_angle, enough, &grid);
      EXPECT_EQ(drop, drop_with_heel_lift(leg, max_angle, enough));
      if (pelvis_drop_needed(leg.hip, leg.ankle, leg.reach) > enough) {
        EXPECT_GT(grid.known, 0);
      }
      const double allowed = std::max(drop, enough);
      const HeelLift alone = heel_lift_for_drop(leg, allowed, max_angle);
      const HeelLift read = heel_lift_for_drop(leg, allowed, max_angle, &grid);
      EXPECT_EQ(read.angle, alone.angle) << below << " " << enough;
      EXPECT_EQ(read.axis, alone.axis);
    }
  }
  const ReachProblem far = standing_leg(1.0);
  HeelLiftGrid grid;
  drop_with_heel_lift(far, max_angle, 0.0, &grid);
  ASSERT_EQ(grid.known, HeelLiftGrid::kSteps);
  grid.drop[1] = -1.0;  // the first grid angle now suffices for no drop at all
  const HeelLift lift = heel_lift_for_drop(far, 0.0, max_angle, &grid);
  EXPECT_LE(lift.angle, max_angle / HeelLiftGrid::kSteps);
  EXPECT_GT(heel_lift_for_drop(far, 0.0, max_angle).angle, 2.0 * max_angle / HeelLiftGrid::kSteps);
}

// The grid's turns kept across scans (frames with the same limit, then another limit) give the
// drops and lifts made without them bit for bit, and are read while the limit stays.
TEST(HeelLift, ScansWithKeptTurnsGiveTheSameBits) {
  HeelLiftTurns turns;
  for (const double max_angle : {30.0 * kDeg, 30.0 * kDeg, 12.5 * kDeg, 30.0 * kDeg})
    for (const double below : {0.88, 0.95, 1.0, 1.05}) {
      ReachProblem leg = standing_leg(below);
      leg.ball.x += 0.01 * below;  // a foot turned a little off the hip's plane
      for (const double enough : {0.0, 0.02}) {
        HeelLiftGrid grid;
        const double drop = drop_with_heel_lift(leg, max_angle, enough, &grid, &turns);
        EXPECT_EQ(drop, drop_with_heel_lift(leg, max_angle, enough));
        const double allowed = std::max(drop, enough);
        EXPECT_EQ(heel_lift_for_drop(leg, allowed, max_angle, nullptr, &turns).angle,
                  heel_lift_for_drop(leg, allowed, max_angle).angle);
      }
    }
  const ReachProblem far = standing_leg(1.0);
  const double max_angle = 30.0 * kDeg;
  drop_with_heel_lift(far, max_angle, 0.0, nullptr, &turns);
  ASSERT_EQ(turns.max_angle, max_angle);
  turns.sin_half.fill(0.0);  // no turn at any grid angle: no drop saved
  turns.cos_half.fill(1.0);
  turns.known = HeelLiftGrid::kSteps;
  const double no_lift = pelvis_drop_needed(far.hip, far.ankle, far.reach);
  EXPECT_LT(drop_with_heel_lift(far, max_angle), no_lift - 0.02);
  EXPECT_NEAR(drop_with_heel_lift(far, max_angle, 0.0, nullptr, &turns), no_lift, 1e-12);
}

TEST(HeelLift, OnlyPartlyHelpsWhenTheTargetIsFarBelow) {
  const ReachProblem leg = standing_leg(1.0);  // 15 cm beyond reach: more than tiptoes give
  const double before = pelvis_drop_needed(leg.hip, leg.ankle, leg.reach);
  const double max_angle = 30.0 * kDeg;
  const double after = drop_with_heel_lift(leg, max_angle);
  EXPECT_GT(after, 0.0);
  EXPECT_LT(after, before - 0.02);  // the heel rises by several centimetres
  const HeelLift lift = heel_lift_for_drop(leg, 0.0, max_angle);
  EXPECT_LE(lift.angle, max_angle);
  EXPECT_NEAR(pelvis_drop_needed(leg.hip, lifted_ankle(leg.ankle, leg.ball, lift), leg.reach),
              after, 1e-9);
  // Asked for what the lift can give, the smallest lift that gives it.
  const HeelLift enough = heel_lift_for_drop(leg, after + 0.01, max_angle);
  EXPECT_GT(enough.angle, 0.0);
  EXPECT_LT(enough.angle, lift.angle);
  EXPECT_LE(pelvis_drop_needed(leg.hip, lifted_ankle(leg.ankle, leg.ball, enough), leg.reach),
            after + 0.01 + 1e-9);
}

TEST(HeelLift, NoLiftWhenTheLegReachesOrTheLimitIsZero) {
  const ReachProblem reachable = standing_leg(0.8);
  EXPECT_EQ(pelvis_drop_needed(reachable.hip, reachable.ankle, reachable.reach), 0.0);
  EXPECT_EQ(heel_lift_for_drop(reachable, 0.0, 30.0 * kDeg).angle, 0.0);
  const ReachProblem far = standing_leg(0.88);
  EXPECT_EQ(heel_lift_for_drop(far, 0.0, 0.0).angle, 0.0);
  EXPECT_DOUBLE_EQ(drop_with_heel_lift(far, 0.0),
                   pelvis_drop_needed(far.hip, far.ankle, far.reach));

  const std::vector<ReachProblem> legs[2] = {std::vector<ReachProblem>(20, reachable),
                                             std::vector<ReachProblem>(20, reachable)};
  const HeelLiftPlan plan = plan_heel_lifts(legs, 30.0 * kDeg, 2.0, kAnywhere);
  for (int l = 0; l < 2; ++l)
    for (double a : plan.angle[l]) EXPECT_EQ(a, 0.0);
}

// Over a clip: one leg's target sinks below reach for a few frames (a foot on a lower step).
// The plan lifts that heel at least as far as each frame needs, never beyond the limit, leaves
// the other leg alone, and eases in and out instead of popping.
TEST(HeelLift, PlanLiftsOnlyWhereNeededWithinTheLimitAndSmoothly) {
  const int frames = 60;
  const double max_angle = 25.0 * kDeg;
  std::vector<ReachProblem> legs[2];
  std::vector<double> needed(frames, 0.0);
  for (int f = 0; f < frames; ++f) {
    const double sink = f >= 25 && f < 35 ? 0.04 : 0.0;  // metres beyond reach
    ReachProblem left = standing_leg(0.84 + sink);
    legs[0].push_back(left);
    legs[1].push_back(standing_leg(0.8));
    needed[f] = heel_lift_for_drop(left, 0.0, max_angle).angle;
  }
  const HeelLiftPlan plan = plan_heel_lifts(legs, max_angle, 2.0, kAnywhere);
  for (int f = 0; f < frames; ++f) {
    EXPECT_GE(plan.angle[0][f], needed[f] - 1e-12) << f;
    EXPECT_LE(plan.angle[0][f], max_angle) << f;
    EXPECT_EQ(plan.angle[1][f], 0.0) << f;
    if (f > 0) {
      EXPECT_LT(std::abs(plan.angle[0][f] - plan.angle[0][f - 1]), 0.5 * needed[30]) << f;
    }
  }
  EXPECT_GT(needed[30], 0.0);
  EXPECT_EQ(plan.angle[0][0], 0.0);
  EXPECT_EQ(plan.angle[0][frames - 1], 0.0);
}

// Where the heel is the planted pivot it may not rise at all, and the limit eases around it:
// the plan respects the per-frame limit even after smoothing spreads the lift.
TEST(HeelLift, PlanRespectsThePerFrameLimit) {
  const int frames = 40;
  const double max_angle = 30.0 * kDeg;
  std::vector<ReachProblem> legs[2] = {std::vector<ReachProblem>(frames, standing_leg(0.9)),
                                       std::vector<ReachProblem>(frames, standing_leg(0.8))};
  std::vector<double> allowed[2] = {std::vector<double>(frames, 1.0), {}};
  for (int f = 15; f < 25; ++f) allowed[0][f] = f < 18 || f > 21 ? 0.5 : 0.0;
  const HeelLiftPlan plan = plan_heel_lifts(legs, max_angle, 3.0, allowed);
  for (int f = 0; f < frames; ++f)
    EXPECT_LE(plan.angle[0][f], max_angle * allowed[0][f] + 1e-15) << f;
  for (int f = 18; f <= 21; ++f) EXPECT_EQ(plan.angle[0][f], 0.0) << f;
  // Away from the held frames the leg lifts as far as it needs (it reaches without any drop).
  EXPECT_GT(plan.angle[0][5], 0.0);
  EXPECT_EQ(drop_with_heel_lift(legs[0][5], max_angle), 0.0);
}

// Both legs short: the drop is set by the leg the lift helps least; the other lifts only as
// far as that drop requires, not to full reach.
TEST(HeelLift, TheLegThatDoesNotSetTheDropLiftsOnlyAsFarAsItMust) {
  const double max_angle = 30.0 * kDeg;
  const ReachProblem deep = standing_leg(1.0), shallow = standing_leg(0.96);
  const std::vector<ReachProblem> legs[2] = {{deep}, {shallow}};
  const HeelLiftPlan plan = plan_heel_lifts(legs, max_angle, 0.0, kAnywhere);
  const double drop = drop_with_heel_lift(deep, max_angle);
  ASSERT_GT(drop, 0.0);
  EXPECT_GT(plan.angle[0][0], 0.0);
  EXPECT_NEAR(
      pelvis_drop_needed(deep.hip,
                         lifted_ankle(deep.ankle, deep.ball, {plan.angle[0][0], plan.axis[0][0]}),
                         deep.reach),
      drop, 1e-9);
  // The shallow leg reaches with that drop and less lift than its own least drop would take.
  EXPECT_GT(plan.angle[1][0], 0.0);
  EXPECT_LT(plan.angle[1][0], heel_lift_for_drop(shallow, 0.0, max_angle).angle);
  const Vec3 hip = shallow.hip - Vec3(0.0, drop, 0.0);
  EXPECT_LE(glm::length(hip - lifted_ankle(shallow.ankle, shallow.ball,
                                           {plan.angle[1][0], plan.axis[1][0]})),
            shallow.reach + 1e-9);
}

TEST(HeelLift, WeightIsFullForAFlatFootAndFadesToNoneWithTheAnkleOverTheBall) {
  const ReachProblem flat = standing_leg(0.9);
  EXPECT_EQ(heel_lift_weight(flat.ankle, flat.ball), 1.0);
  EXPECT_EQ(heel_lift_weight({0, 0.1, 0}, {0, 0.02, 0}), 0.0);   // straight above
  EXPECT_EQ(heel_lift_weight({0, 0.02, 0}, {0, 0.02, 0}), 0.0);  // no foot
  double last = 1.0;
  for (int deg = 60; deg <= 90; ++deg) {  // the ankle-to-ball line's angle with the horizontal
    const double a = deg * kDeg;
    const Vec3 ball(0.2, 0.03, -0.1);
    const double w = heel_lift_weight(ball + 0.08 * Vec3(0.0, std::sin(a), std::cos(a)), ball);
    EXPECT_LE(w, last) << deg;
    // The same over the ball's other side and below it.
    EXPECT_NEAR(w, heel_lift_weight(ball + 0.08 * Vec3(0.0, std::sin(a), -std::cos(a)), ball),
                1e-12);
    EXPECT_NEAR(w, heel_lift_weight(ball + 0.08 * Vec3(0.0, -std::sin(a), std::cos(a)), ball),
                1e-12);
    last = w;
  }
}

// A swing foot kicked back: its ankle turns over the ball (pitch 30 to 150 degrees, the ball
// fixed) while the leg is short of reach on every frame, so a lift is planned all along. The
// lift's axis turns half a turn as the ankle passes over the ball; the lifted ankle must still
// move as smoothly as the ankle does, not jump across the ball in one frame (CesiumMan on the
// bumps: 2 cm in one frame, its ankle jerk 1.25x the input's).
TEST(HeelLift, LiftedAnkleStaysContinuousAsTheAnklePassesOverTheBall) {
  const int frames = 61;
  const double max_angle = 20.0 * kDeg;
  const Vec3 ball(0.1, 0.03, 0.2);
  std::vector<ReachProblem> legs[2];
  for (int f = 0; f < frames; ++f) {
    const double pitch = (30.0 + 2.0 * f) * kDeg;
    ReachProblem leg;
    leg.ball = ball;
    leg.ankle = ball + 0.08 * Vec3(0.0, std::sin(pitch), -std::cos(pitch));
    leg.hip = leg.ankle + Vec3(0.0, 0.88, 0.05);
    leg.reach = 0.85;
    legs[0].push_back(leg);
    legs[1].push_back(standing_leg(0.8));
  }
  const HeelLiftPlan plan = plan_heel_lifts(legs, max_angle, 3.0, kAnywhere);
  EXPECT_GT(plan.angle[0][0], 5.0 * kDeg);  // lifted well before the crossing
  std::vector<Vec3> lifted(frames);
  for (int f = 0; f < frames; ++f)
    lifted[f] = lifted_ankle(legs[0][f].ankle, ball, {plan.angle[0][f], plan.axis[0][f]});
  // The ankle moves 2.8 mm a frame; the lift's own change adds at most a few millimetres to a
  // frame's step (the lift fades over several frames), not the 5 cm of a lift's axis flipped.
  for (int f = 1; f < frames; ++f) {
    const Vec3 input_step = legs[0][f].ankle - legs[0][f - 1].ankle;
    EXPECT_LT(glm::length(lifted[f] - lifted[f - 1] - input_step), 0.005) << f;
  }
  // Third difference (metres per frame cubed): what a jump of the lifted ankle makes large.
  double lifted_jerk = 0;
  for (int f = 3; f < frames; ++f)
    lifted_jerk = std::max(lifted_jerk, glm::length(lifted[f] - 3.0 * lifted[f - 1] +
                                                    3.0 * lifted[f - 2] - lifted[f - 3]));
  EXPECT_LT(lifted_jerk, 0.002);
}

TEST(HeelLiftToHeight, SmallestTurnThatPutsTheAnkleAtTheHeight) {
  const Vec3 ball(0.1, 0.02, 0.3), ankle(0.1, 0.08, 0.16);  // 14 cm behind, 6 cm above the ball
  for (double height : {0.09, 0.12, 0.15}) {
    const double a = heel_lift_to_height(ankle, ball, height, 60 * kDeg);
    const Vec3 lifted = lifted_ankle(ankle, ball, HeelLift{a, heel_lift_axis(ankle, ball)});
    EXPECT_NEAR(lifted.y, height, 1e-9) << height;
    EXPECT_NEAR(glm::length(lifted - ball), glm::length(ankle - ball), 1e-12);  // the ball stays
    // Any smaller turn leaves it lower.
    const Vec3 less = lifted_ankle(ankle, ball, HeelLift{0.99 * a, heel_lift_axis(ankle, ball)});
    EXPECT_LT(less.y, height);
  }
  EXPECT_EQ(heel_lift_to_height(ankle, ball, 0.05, 60 * kDeg), 0.0);        // already above
  EXPECT_EQ(heel_lift_to_height(ankle, ball, 0.30, 60 * kDeg), 60 * kDeg);  // out of reach
  EXPECT_EQ(heel_lift_to_height(ankle, ball, 0.15, 0.0), 0.0);              // no lift allowed
  EXPECT_EQ(heel_lift_to_height(Vec3(0.1, 0.2, 0.3), ball, 0.3, 60 * kDeg), 60 * kDeg);  // no heel
}

}  // namespace
}  // namespace ikfix::core
