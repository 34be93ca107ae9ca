#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/fix/leg_solve.hpp"

namespace ikfix::core {
namespace {

constexpr double kDeg = kPi / 180.0;

// A leg hanging straight down from the origin, thigh and shin about 0.45 m, knee slightly forward.
LegPose hanging_leg() {
  LegPose pose;
  pose.hip_ws = Vec3(0, 0, 0);
  pose.knee_ws = Vec3(0, -0.45, 0.02);
  pose.ankle_ws = Vec3(0, -0.9, 0);
  pose.hip_rot_ws = pose.knee_rot_ws = pose.ankle_rot_ws = identity_quat();
  pose.hip_cone_axis_ws = Vec3(0, -1, 0);
  return pose;
}

// The ankle target `degrees` away from straight down, forward, 0.8 m from the hip.
Vec3 target_at(double degrees) {
  return 0.8 * Vec3(0, -std::cos(degrees * kDeg), std::sin(degrees * kDeg));
}

TEST(LegSolveHipCone, TargetInsideTheConeIsReached) {
  FixSettings s;
  const LegSolveResult r = solve_leg(hanging_leg(), Vec3(0), target_at(60), Vec3(0, 0, 1), s);
  EXPECT_TRUE(r.reached);
  EXPECT_LT(r.residual_m, 1e-5);
}

TEST(LegSolveHipCone, TargetOutsideIsApproachedAlongTheConeEdge) {
  FixSettings s;
  s.max_hip_angle = 70 * kDeg;
  const LegSolveResult r = solve_leg(hanging_leg(), Vec3(0), target_at(100), Vec3(0, 0, 1), s);
  EXPECT_FALSE(r.reached);
  EXPECT_STREQ(r.reason, "hip limit");
  EXPECT_NEAR(angle_between(Vec3(0, -1, 0), r.ankle_ws), 70 * kDeg, 1e-4);
  EXPECT_NEAR(glm::length(r.ankle_ws), 0.8, 1e-4);  // as far as the target, on the edge
  const LegPose pose = hanging_leg();               // bone lengths kept
  EXPECT_NEAR(glm::length(r.knee_ws), glm::length(pose.knee_ws - pose.hip_ws), 1e-9);
  EXPECT_NEAR(glm::length(r.ankle_ws - r.knee_ws), glm::length(pose.ankle_ws - pose.knee_ws), 1e-9);
}

TEST(LegSolveHipCone, TheAnimationsOwnSwingIsAlwaysAllowed) {
  // The animated leg already swings 80 degrees forward; a 70 degree limit does not fold it back.
  LegPose pose = hanging_leg();
  const Quat swing = axis_angle(Vec3(1, 0, 0), -80 * kDeg);  // turns -y toward +z
  pose.knee_ws = swing * pose.knee_ws;
  pose.ankle_ws = swing * pose.ankle_ws;
  FixSettings s;
  s.max_hip_angle = 70 * kDeg;
  const LegSolveResult r = solve_leg(pose, Vec3(0), target_at(78), Vec3(0, 0, 1), s);
  EXPECT_TRUE(r.reached) << r.reason;
  const LegSolveResult beyond = solve_leg(pose, Vec3(0), target_at(95), Vec3(0, 0, 1), s);
  EXPECT_STREQ(beyond.reason, "hip limit");
  EXPECT_NEAR(angle_between(Vec3(0, -1, 0), beyond.ankle_ws),
              angle_between(Vec3(0, -1, 0), pose.ankle_ws), 1e-4);
}

TEST(LegSolveHipCone, NoAxisNoLimit) {
  LegPose pose = hanging_leg();
  pose.hip_cone_axis_ws = Vec3(0);
  FixSettings s;
  s.max_hip_angle = 10 * kDeg;
  EXPECT_TRUE(solve_leg(pose, Vec3(0), target_at(100), Vec3(0, 0, 1), s).reached);
}

TEST(KneeAngle, InteriorAngleAtTheKnee) {
  EXPECT_NEAR(knee_angle(Vec3(0, 0, 0), Vec3(0, -0.45, 0), Vec3(0, -0.9, 0)), kPi,
              1e-12);  // straight
  EXPECT_NEAR(knee_angle(Vec3(0, 0, 0), Vec3(0, -0.45, 0), Vec3(0, -0.45, 0.3)), kPi / 2, 1e-12);
  // Folded to 25 degrees: the shin back up along the thigh.
  const Vec3 shin = axis_angle(Vec3(1, 0, 0), 25 * kDeg) * Vec3(0, 0.45, 0);
  EXPECT_NEAR(knee_angle(Vec3(0, 0, 0), Vec3(0, -0.45, 0), Vec3(0, -0.45, 0) + shin), 25 * kDeg,
              1e-12);
  // A zero-length shin hangs straight down: no fold, never a NaN.
  EXPECT_NEAR(knee_angle(Vec3(0, 0, 0), Vec3(0, -0.45, 0), Vec3(0, -0.45, 0)), kPi, 1e-12);
}

// A target nearer the hip than the knee limit allows is pushed out to the limit's distance
// ("too close"); a tighter limit given explicitly (the clip's own knee folds that far) reaches it.
TEST(LegSolveKneeLimit, GivenLimitReplacesTheSetting) {
  FixSettings s;  // 25 degrees
  const double bone = 0.45;
  auto span = [&](double degrees) { return 2 * bone * std::sin(degrees * kDeg / 2); };
  LegPose pose;
  pose.hip_ws = Vec3(0);
  pose.knee_ws = Vec3(0, -bone, 0);
  pose.ankle_ws = Vec3(0, -2 * bone, 0);
  pose.hip_rot_ws = pose.knee_rot_ws = pose.ankle_rot_ws = identity_quat();
  const Vec3 target(0, -span(18), 0);  // the knee folded to 18 degrees
  const Vec3 pole(0, 0, 1);
  const LegSolveResult by_setting = solve_leg(pose, Vec3(0), target, pole, s);
  EXPECT_FALSE(by_setting.reached);
  EXPECT_STREQ(by_setting.reason, "too close");
  EXPECT_NEAR(glm::length(by_setting.ankle_ws), span(25), 1e-5);
  const LegSolveResult by_clip = solve_leg(pose, Vec3(0), target, pole, s, 16 * kDeg);
  EXPECT_TRUE(by_clip.reached) << by_clip.reason;
  EXPECT_NEAR(knee_angle(Vec3(0), by_clip.knee_ws, by_clip.ankle_ws), 18 * kDeg, 1e-4);
  // The 5-argument form is the setting's limit.
  EXPECT_EQ(solve_leg(pose, Vec3(0), target, pole, s, s.min_knee_angle).ankle_ws,
            by_setting.ankle_ws);
}

}  // namespace
}  // namespace ikfix::core

namespace ikfix::core {
namespace {

// The report names the cause: the target against where the animated ankle sat from the hip.
// The knee's plane: solved with the pole as given while the goal swings less than 30 degrees from
// the animated hip->ankle line, carried along with the swing beyond (eased in up to 60).
TEST(LegSolvePole, CarriedOnlyBeyondAThirtyDegreeSwing) {
  FixSettings s;
  s.max_hip_angle = kPi;  // no hip limit in the way
  const LegPose pose = hanging_leg();
  const Vec3 pole(1, 0, 0.3);  // the knee's side: mostly +x, across the swing's plane (y-z)
  const Vec3 axis(0, -1, 0);   // animated hip->ankle
  for (double degrees : {10.0, 29.0, 31.0, 45.0, 70.0}) {
    const Vec3 target = target_at(degrees);
    const LegSolveResult r = solve_leg(pose, Vec3(0), target, pole, s);
    ASSERT_TRUE(r.reached) << degrees;
    const Vec3 goal_axis = glm::normalize(target);
    const double u = std::clamp((degrees - 30.0) / 30.0, 0.0, 1.0);
    const Quat carry =
        glm::slerp(identity_quat(), rotation_between(axis, goal_axis), u * u * (3 - 2 * u));
    const Vec3 carried = carry * pole;
    const Vec3 normal =
        glm::normalize(glm::cross(goal_axis, carried - goal_axis * glm::dot(carried, goal_axis)));
    EXPECT_NEAR(glm::dot(r.knee_ws, normal), 0.0, 1e-6)
        << degrees << " degrees: knee off the (carried) pole's plane";
    EXPECT_GT(glm::dot(r.knee_ws, carried), 0.0) << degrees;
  }
}

// A clip's knee limit given with its cosine solves as the limit in radians does.
TEST(LegSolveKneeLimit, GivenWithItsCosineSolvesTheSame) {
  FixSettings s;
  const LegPose pose = hanging_leg();
  for (double degrees : {0.0, 40.0, 80.0, 100.0}) {
    const Vec3 target = 0.3 * glm::normalize(target_at(degrees));
    const LegSolveResult a = solve_leg(pose, Vec3(0), target, Vec3(0, 0, 1), s, 16 * kDeg);
    const LegSolveResult b =
        solve_leg(pose, Vec3(0), target, Vec3(0, 0, 1), s, KneeLimit(16 * kDeg));
    EXPECT_EQ(a.knee_ws, b.knee_ws) << degrees;
    EXPECT_EQ(a.ankle_ws, b.ankle_ws) << degrees;
    EXPECT_STREQ(a.reason, b.reason) << degrees;
  }
  EXPECT_EQ(KneeLimit(0.5).cos_angle, std::cos(0.5));
}

TEST(UnreachableReason, SplitsByWhereTheTargetMoved) {
  const Vec3 hip(0, 1, 0), ankle(0, 0.1, 0.1);
  // Lower by 0.5 m, out by 0.1 m: the ground dropped away.
  EXPECT_STREQ(unreachable_reason("too far", hip, Vec3(0, -0.4, 0.2), hip, ankle), "too low");
  // Out by 0.5 m at the same height: held too far out.
  EXPECT_STREQ(unreachable_reason("too far", hip, Vec3(0, 0.1, 0.6), hip, ankle), "too far");
  // Higher by 0.6 m: a step too high.
  EXPECT_STREQ(unreachable_reason("too close", hip, Vec3(0, 0.7, 0.1), hip, ankle), "too high");
  // Pulled in under the body at the same height: the knee's bend.
  EXPECT_STREQ(unreachable_reason("too close", hip, Vec3(0, 0.1, -0.5), hip, ankle), "too close");
  // The hip moved with the target: only the relative move counts.
  EXPECT_STREQ(
      unreachable_reason("too far", hip + Vec3(0, -0.3, 0), Vec3(0, -0.2, 0.1), hip, ankle),
      "too far");
  EXPECT_STREQ(unreachable_reason("hip limit", hip, Vec3(0, -2, 0), hip, ankle), "hip limit");
  EXPECT_STREQ(unreachable_reason("", hip, ankle, hip, ankle), "");
}

}  // namespace
}  // namespace ikfix::core

namespace ikfix::core {
namespace {

// Issue #4 (cmu_09_11 run on the stairs): where a leg gives up, the leg must still move
// continuously while its target moves continuously, across every change of the clamp that
// applies (reach shell, knee limit, hip cone, reached). Each path below is swept in 1 mm steps;
// a step may move the solved ankle by up to 1 cm and the knee by up to 4 cm (the leg folded by
// the hip turns faster than its target moves: measured at most 6 mm and 2.6 cm), never jump
// (before the fix, the paths straight over the hip jumped the ankle 0.2-0.4 m and the knee
// 0.2-0.9 m in one step).
struct Sweep {
  const char* what;
  Vec3 from, to;                     // target path, metres from the hip
  std::vector<std::string> crosses;  // reasons the path must pass through
};

void expect_continuous_leg(const Sweep& sweep) {
  const LegPose pose = [] {
    LegPose p = hanging_leg();
    p.outward_ws = Vec3(-1, 0, 0);  // a right leg: the body's midline is toward +x
    return p;
  }();
  FixSettings s;
  const Vec3 pole = knee_pole(pose, Vec3(0, 0, 1), 0.9);
  const int steps = static_cast<int>(std::ceil(glm::length(sweep.to - sweep.from) / 0.001));
  Vec3 previous_knee(0), previous_ankle(0);
  std::string reasons;
  for (int i = 0; i <= steps; ++i) {
    const Vec3 target = sweep.from + (sweep.to - sweep.from) * (static_cast<double>(i) / steps);
    const LegSolveResult r = solve_leg(pose, pose.hip_ws, target, pole, s);
    ASSERT_TRUE(is_finite(r.knee_ws) && is_finite(r.ankle_ws)) << sweep.what << " step " << i;
    if (reasons.empty() || reasons.substr(reasons.rfind('|') + 1) != r.reason)
      reasons += std::string("|") + r.reason;
    if (i > 0) {
      EXPECT_LT(glm::length(r.knee_ws - previous_knee), 0.04)
          << sweep.what << " step " << i << " (" << r.reason << ")";
      EXPECT_LT(glm::length(r.ankle_ws - previous_ankle), 0.01)
          << sweep.what << " step " << i << " (" << r.reason << ")";
      EXPECT_LT(angle_between(r.knee_ws - pose.hip_ws, previous_knee - pose.hip_ws), 0.1)
          << sweep.what << " step " << i;
      EXPECT_LT(angle_between(r.ankle_ws - r.knee_ws, previous_ankle - previous_knee), 0.1)
          << sweep.what << " step " << i;
    }
    previous_knee = r.knee_ws;
    previous_ankle = r.ankle_ws;
  }
  // The path does cross the limits it is meant to (the reasons seen along it, in order).
  for (const std::string& reason : sweep.crosses)
    EXPECT_NE(reasons.find("|" + reason), std::string::npos)
        << sweep.what << ": " << reason << " not in " << reasons;
}

TEST(LegSolveContinuity, TargetSweptOverTheHipMovesTheLegContinuously) {
  // A swing foot's target raised to a high step, passing from behind over the hip to the front
  // (hip limit, then too close, then reached), and the same a little to either side.
  expect_continuous_leg(
      {"over the hip", Vec3(0, 0.35, -0.5), Vec3(0, -0.35, 0.5), {"hip limit", "too close", ""}});
  expect_continuous_leg({"over the hip, outside",
                         Vec3(-0.05, 0.35, -0.5),
                         Vec3(-0.05, -0.35, 0.5),
                         {"hip limit", ""}});
  expect_continuous_leg(
      {"over the hip, inside", Vec3(0.05, 0.35, -0.5), Vec3(0.05, -0.35, 0.5), {"hip limit", ""}});
}

TEST(LegSolveOutward, OtherHipGivesTheSameSolveAsItsOutwardDirection) {
  // The fix gives the other hip instead of the outward direction (made only by the few solves
  // beyond the hip cone): every solve, the cone's included, comes out bit for bit the same.
  LegPose given = hanging_leg();
  const Vec3 other_hip =
      given.hip_ws + Vec3(0.18, 0.01, -0.02);  // a right leg: the other hip toward +x
  given.outward_ws = safe_normalize(given.hip_ws - other_hip, Vec3(0));
  LegPose lazy = hanging_leg();
  lazy.other_hip_ws = &other_hip;
  FixSettings s;
  const Vec3 pole = knee_pole(given, Vec3(0, 0, 1), 0.9);
  int beyond_cone = 0;
  for (int i = 0; i <= 400; ++i) {
    const Vec3 target = given.hip_ws + Vec3(0.02, 0.35, -0.5) + Vec3(0, -0.7, 1.0) * (i / 400.0);
    const LegSolveResult a = solve_leg(given, given.hip_ws, target, pole, s);
    const LegSolveResult b = solve_leg(lazy, lazy.hip_ws, target, pole, s);
    beyond_cone += std::string(a.reason) == "hip limit";
    EXPECT_EQ(std::memcmp(&a.knee_ws, &b.knee_ws, sizeof a.knee_ws), 0) << "step " << i;
    EXPECT_EQ(std::memcmp(&a.ankle_ws, &b.ankle_ws, sizeof a.ankle_ws), 0) << "step " << i;
    EXPECT_EQ(std::memcmp(&a.hip_rot_ws, &b.hip_rot_ws, sizeof a.hip_rot_ws), 0) << "step " << i;
    EXPECT_EQ(std::memcmp(&a.knee_rot_ws, &b.knee_rot_ws, sizeof a.knee_rot_ws), 0) << "step " << i;
    EXPECT_STREQ(a.reason, b.reason) << "step " << i;
  }
  EXPECT_GT(beyond_cone, 0);  // the path does go beyond the cone, where outward is used
}

TEST(LegSolveContinuity, TargetSweptFromBeyondReachOverTheConeEdgeMovesTheLegContinuously) {
  // From beyond reach in front and low (too far), up past the cone's edge (hip limit), to high
  // and close behind (too close), through the ranges' boundaries.
  expect_continuous_leg({"far front to high behind",
                         Vec3(0, -0.6, 1.2),
                         Vec3(0, 0.1, -0.15),
                         {"too far", "", "hip limit", "too close"}});
}

// The limits, the pole and the bone lengths belong to the leg solve, not to a solver: every
// solver meets the hip cone's edge, the knee limit's shell and the reach the same way, keeps the
// knee on the pole's side and the bones' lengths.
TEST(LegSolveEverySolver, LimitsPoleAndLengthsHold) {
  const LegPose pose = hanging_leg();
  const double thigh = glm::length(pose.knee_ws - pose.hip_ws);
  const double shin = glm::length(pose.ankle_ws - pose.knee_ws);
  const Vec3 pole(0, 0, 1);
  for (SolverKind solver :
       {SolverKind::Fabrik, SolverKind::TwoBone, SolverKind::Ccd, SolverKind::Dls}) {
    FixSettings s;
    s.solver = solver;
    s.max_hip_angle = 70 * kDeg;
    const std::string name = solver_name(solver);
    auto expect_leg = [&](const LegSolveResult& r, const char* what) {
      EXPECT_NEAR(glm::length(r.knee_ws), thigh, 1e-9) << name << ": " << what;
      EXPECT_NEAR(glm::length(r.ankle_ws - r.knee_ws), shin, 1e-9) << name << ": " << what;
      const Vec3 axis = glm::normalize(r.ankle_ws);
      EXPECT_GT(glm::dot(r.knee_ws - axis * glm::dot(r.knee_ws, axis), pole), 0.0)
          << name << ": " << what << ", knee off the pole's side";
      EXPECT_GE(knee_angle(Vec3(0), r.knee_ws, r.ankle_ws), s.min_knee_angle - 1e-4)
          << name << ": " << what;
    };
    const LegSolveResult inside = solve_leg(pose, Vec3(0), target_at(40), pole, s);
    EXPECT_TRUE(inside.reached) << name;
    EXPECT_LT(inside.residual_m, 1e-5) << name;
    expect_leg(inside, "inside");
    const LegSolveResult cone = solve_leg(pose, Vec3(0), target_at(100), pole, s);
    EXPECT_STREQ(cone.reason, "hip limit") << name;
    EXPECT_NEAR(angle_between(Vec3(0, -1, 0), glm::normalize(cone.ankle_ws)), 70 * kDeg, 1e-4)
        << name;
    expect_leg(cone, "hip limit");
    const LegSolveResult far = solve_leg(pose, Vec3(0), target_at(20) * 2.0, pole, s);
    EXPECT_STREQ(far.reason, "too far") << name;
    // CCD has no closing step and creeps near full extension (millimetres short after its sweeps).
    const double reach_error = solver == SolverKind::Ccd ? 5e-3 : 1e-5;
    EXPECT_NEAR(glm::length(far.ankle_ws), s.max_reach * (thigh + shin), reach_error) << name;
    expect_leg(far, "too far");
    const LegSolveResult close = solve_leg(pose, Vec3(0), target_at(0) * (0.15 / 0.8), pole, s);
    EXPECT_STREQ(close.reason, "too close") << name;
    EXPECT_NEAR(knee_angle(Vec3(0), close.knee_ws, close.ankle_ws), s.min_knee_angle, 1e-4) << name;
    expect_leg(close, "too close");
  }
}

// Both legs solved together (FABRIK's passes interleaved) give each leg's solve_leg, bit for
// bit, over targets reached, near full reach, too far, too close and beyond the hip cone, with
// every solver.
TEST(LegSolvePair, SameBitsAsEachLegAlone) {
  std::mt19937 rng(1130);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  FixSettings s;
  const KneeLimit limit(16 * kDeg);
  int reasons_seen = 0;
  for (SolverKind solver :
       {SolverKind::Fabrik, SolverKind::TwoBone, SolverKind::Ccd, SolverKind::Dls}) {
    s.solver = solver;
    for (int i = 0; i < 3000; ++i) {
      LegPose poses[2] = {hanging_leg(), hanging_leg()};
      LegSolveArgs legs[2];
      for (int l = 0; l < 2; ++l) {
        poses[l].hip_ws = Vec3(l ? -0.1 : 0.1, 0.9 + 0.05 * u(rng), 0.05 * u(rng));
        poses[l].knee_ws = poses[l].hip_ws + Vec3(0.05 * u(rng), -0.45, 0.02 + 0.1 * u(rng));
        poses[l].ankle_ws = poses[l].knee_ws + Vec3(0.05 * u(rng), -0.44, 0.1 * u(rng));
        poses[l].hip_rot_ws = glm::normalize(Quat(1, 0.1 * u(rng), 0.1 * u(rng), 0.1 * u(rng)));
        poses[l].knee_rot_ws = glm::normalize(Quat(1, 0.2 * u(rng), 0.1 * u(rng), 0.1 * u(rng)));
        const double reach = i % 4 == 0 ? 0.85 + 0.1 * u(rng) : 0.55 + 0.5 * u(rng);
        const Vec3 dir =
            glm::normalize(Vec3(0.6 * u(rng), i % 9 == 0 ? u(rng) : -1.0, 0.8 * u(rng)));
        legs[l].animated = &poses[l];
        legs[l].hip_ws = poses[l].hip_ws + Vec3(0, 0.03 * u(rng), 0);
        legs[l].target_ws = legs[l].hip_ws + dir * reach;
        legs[l].pole_ws = knee_pole(poses[l], Vec3(0, 0, 1), 0.9);
      }
      LegSolveResult together[2];
      solve_leg_pair(legs, s, limit, together);
      for (int l = 0; l < 2; ++l) {
        const LegSolveResult alone =
            solve_leg(poses[l], legs[l].hip_ws, legs[l].target_ws, legs[l].pole_ws, s, limit);
        const LegSolveResult& b = together[l];
        EXPECT_EQ(std::memcmp(&alone.knee_ws, &b.knee_ws, sizeof alone.knee_ws), 0) << i;
        EXPECT_EQ(std::memcmp(&alone.ankle_ws, &b.ankle_ws, sizeof alone.ankle_ws), 0) << i;
        EXPECT_EQ(std::memcmp(&alone.hip_rot_ws, &b.hip_rot_ws, sizeof alone.hip_rot_ws), 0) << i;
        EXPECT_EQ(std::memcmp(&alone.knee_rot_ws, &b.knee_rot_ws, sizeof alone.knee_rot_ws), 0)
            << i;
        EXPECT_EQ(std::memcmp(&alone.residual_m, &b.residual_m, sizeof alone.residual_m), 0) << i;
        EXPECT_EQ(alone.iterations, b.iterations) << i;
        EXPECT_EQ(alone.reached, b.reached) << i;
        EXPECT_STREQ(alone.reason, b.reason) << i;
        reasons_seen += *alone.reason != '\0';
      }
    }
  }
  EXPECT_GT(reasons_seen, 100);  // limits were hit too, not only reached targets
}

}  // namespace
}  // namespace ikfix::core
