#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/solvers/two_bone.hpp"
#include "solver_test_util.hpp"

namespace ikfix::core {
namespace {

using test_util::kNaN;
using test_util::random_unit;

struct Leg {
  Vec3 hip, knee, ankle;
  double thigh() const { return glm::length(knee - hip); }
  double shin() const { return glm::length(ankle - knee); }
};

// A left leg in a slightly bent rest stance: 0.45 m thigh, 0.42 m shin, knee forward (+z).
Leg bent_leg() {
  const Vec3 hip(0.1, 0.95, 0.0);
  const Vec3 knee = hip + glm::normalize(Vec3(0, -1, 0.12)) * 0.45;
  const Vec3 ankle = knee + glm::normalize(Vec3(0, -1, -0.1)) * 0.42;
  return {hip, knee, ankle};
}

struct Result {
  bool ok = false;
  Vec3 mid{kNaN}, end{kNaN};
  bool reached = false;
  double residual = -1;
};

Result solve(const Leg& leg, const Vec3& target, const Vec3* pole = nullptr,
             double tolerance = 1e-6) {
  Result r;
  TwoBoneJob job;
  job.root_ws = leg.hip;
  job.mid_ws = leg.knee;
  job.end_ws = leg.ankle;
  job.target_ws = target;
  job.pole_dir_ws = pole;
  job.tolerance = tolerance;
  job.out_mid_ws = &r.mid;
  job.out_end_ws = &r.end;
  job.reached = &r.reached;
  job.residual = &r.residual;
  r.ok = job.run();
  return r;
}

void expect_sane(const Result& r, const Leg& leg, const Vec3& target, const char* what) {
  ASSERT_TRUE(r.ok) << what;
  ASSERT_TRUE(is_finite(r.mid)) << what;
  ASSERT_TRUE(is_finite(r.end)) << what;
  EXPECT_NEAR(glm::length(r.mid - leg.hip), leg.thigh(), 1e-9) << what;
  EXPECT_NEAR(glm::length(r.end - r.mid), leg.shin(), 1e-9) << what;
  EXPECT_NEAR(r.residual, glm::length(r.end - target), 1e-15) << what;
}

// Perpendicular part of v relative to unit axis.
Vec3 perp(const Vec3& v, const Vec3& axis) { return v - axis * glm::dot(v, axis); }

// --- validate() -----------------------------------------------------------------------------

TEST(TwoBoneValidate, RejectsBadInputs) {
  const Leg leg = bent_leg();
  Vec3 mid(7.0), end(7.0);
  const Vec3 nan_pole(kNaN, 0, 0), pole(0, 0, 1);
  auto base = [&] {
    TwoBoneJob job;
    job.root_ws = leg.hip;
    job.mid_ws = leg.knee;
    job.end_ws = leg.ankle;
    job.target_ws = Vec3(0.1, 0.3, 0.1);
    job.pole_dir_ws = &pole;
    job.out_mid_ws = &mid;
    job.out_end_ws = &end;
    return job;
  };
  EXPECT_TRUE(base().validate());
  std::vector<std::pair<const char*, TwoBoneJob>> cases;
  auto add = [&](const char* name, auto edit) {
    TwoBoneJob job = base();
    edit(job);
    cases.emplace_back(name, job);
  };
  add("no mid output", [](TwoBoneJob& j) { j.out_mid_ws = nullptr; });
  add("no end output", [](TwoBoneJob& j) { j.out_end_ws = nullptr; });
  add("NaN root", [](TwoBoneJob& j) { j.root_ws.x = kNaN; });
  add("NaN mid", [](TwoBoneJob& j) { j.mid_ws.y = kNaN; });
  add("infinite end", [](TwoBoneJob& j) { j.end_ws.z = std::numeric_limits<double>::infinity(); });
  add("NaN target", [](TwoBoneJob& j) { j.target_ws = Vec3(kNaN); });
  add("zero tolerance", [](TwoBoneJob& j) { j.tolerance = 0; });
  add("NaN tolerance", [](TwoBoneJob& j) { j.tolerance = kNaN; });
  add("NaN pole", [&](TwoBoneJob& j) { j.pole_dir_ws = &nan_pole; });
  for (const auto& [name, job] : cases) {
    EXPECT_FALSE(job.validate()) << name;
    EXPECT_FALSE(job.run()) << name;
  }
  EXPECT_EQ(mid, Vec3(7.0));
  EXPECT_EQ(end, Vec3(7.0));
  // Optional outputs may be null.
  TwoBoneJob minimal = base();
  minimal.pole_dir_ws = nullptr;
  EXPECT_TRUE(minimal.run());
  EXPECT_TRUE(is_finite(mid));
}

// --- reachable ------------------------------------------------------------------------------

TEST(TwoBoneReachable, RandomTargetsAreHitExactly) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> frac(0.0, 1.0);
  const Leg leg = bent_leg();
  const Vec3 pole(0, 0, 1);
  const double lo = std::abs(leg.thigh() - leg.shin()), hi = leg.thigh() + leg.shin();
  for (int i = 0; i < 1000; ++i) {
    const double d = lo + (hi - lo) * frac(rng);
    const Vec3 target = leg.hip + random_unit(rng) * d;
    const Result r = solve(leg, target, i % 2 ? &pole : nullptr);
    expect_sane(r, leg, target, "reachable");
    EXPECT_LT(glm::length(r.end - target), 1e-9) << "target " << i;
    EXPECT_TRUE(r.reached) << "target " << i;
  }
}

TEST(TwoBoneReachable, NearAndAtFullExtension) {
  std::mt19937 rng(81);
  const Leg leg = bent_leg();
  const double reach = leg.thigh() + leg.shin();
  for (double f : {0.99, 0.999, 0.999999, 1.0 - 1e-12, 1.0}) {
    for (int i = 0; i < 50; ++i) {
      const Vec3 dir = random_unit(rng);
      const Vec3 target = leg.hip + dir * (reach * f);
      const Result r = solve(leg, target);
      expect_sane(r, leg, target, "near full extension");
      EXPECT_LT(glm::length(r.end - target), 1e-9) << f;
      EXPECT_TRUE(r.reached) << f;
    }
  }
}

TEST(TwoBoneReachable, KeepsTheStartBendPlaneWithoutPole) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> frac(0.0, 1.0);
  const Leg leg = bent_leg();  // knee forward (+z)
  int checked = 0;
  for (int i = 0; i < 300; ++i) {
    // Targets below the hip, roughly where a foot goes.
    const Vec3 target =
        leg.hip + Vec3(0.3 * (frac(rng) - 0.5), -0.3 - 0.5 * frac(rng), 0.4 * (frac(rng) - 0.5));
    if (glm::length(target - leg.hip) > 0.86) continue;
    const Result r = solve(leg, target);
    expect_sane(r, leg, target, "no pole");
    EXPECT_TRUE(r.reached);
    const Vec3 axis = glm::normalize(target - leg.hip);
    const Vec3 want = perp(leg.knee - leg.hip, axis);
    if (glm::length(want) < 0.01) continue;
    EXPECT_GT(glm::dot(perp(r.mid - leg.hip, axis), want), 0.0) << "target " << i;
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

TEST(TwoBoneReachable, TargetAtTheStartAnkleReturnsTheStartPose) {
  const Leg leg = bent_leg();
  const Result r = solve(leg, leg.ankle);
  expect_sane(r, leg, leg.ankle, "same pose");
  EXPECT_LT(glm::length(r.mid - leg.knee), 1e-12);
  EXPECT_LT(glm::length(r.end - leg.ankle), 1e-15);
  EXPECT_TRUE(r.reached);
}

// --- pole -----------------------------------------------------------------------------------

TEST(TwoBonePole, KneeEndsOnThePoleSide) {
  std::mt19937 rng(44);
  std::uniform_real_distribution<double> frac(0.0, 1.0);
  Leg leg = bent_leg();
  leg.knee.z = -leg.knee.z;  // start bent backward: the pole must win
  int checked = 0;
  for (int i = 0; i < 500; ++i) {
    const Vec3 pole = random_unit(rng) * (0.001 + 10 * frac(rng));
    const Vec3 target = leg.hip + random_unit(rng) * (0.05 + 0.8 * frac(rng));
    const Result r = solve(leg, target, &pole);
    expect_sane(r, leg, target, "pole");
    EXPECT_TRUE(r.reached);
    const Vec3 axis = glm::normalize(target - leg.hip);
    const Vec3 pole_perp = perp(pole, axis);
    if (glm::length(pole_perp) < 1e-3 * glm::length(pole)) continue;
    EXPECT_GT(glm::dot(perp(r.mid - leg.hip, axis), pole_perp), 0.0) << "target " << i;
    ++checked;
  }
  EXPECT_GT(checked, 450);
}

TEST(TwoBonePole, PoleAlignedWithTheTargetDoesNotBreak) {
  const Leg leg = bent_leg();
  const Vec3 target = leg.hip + Vec3(0, -0.7, 0);
  for (const Vec3& pole : {Vec3(0, -1, 0), Vec3(0, 1, 0), Vec3(0.0), Vec3(0, -1e-14, 0)}) {
    const Result r = solve(leg, target, &pole);
    expect_sane(r, leg, target, "aligned pole");
    EXPECT_TRUE(r.reached);
    EXPECT_GT(r.mid.z, 0.0) << "falls back to the start bend (forward)";
  }
  // Aligned pole and a straight start along the target axis: some perpendicular, but exact.
  const Leg straight{Vec3(0, 1, 0), Vec3(0, 0.55, 0), Vec3(0, 0.13, 0)};
  const Vec3 down(0, -1, 0);
  const Vec3 t2(0, 0.4, 0);
  const Result r = solve(straight, t2, &down);
  expect_sane(r, straight, t2, "aligned pole, straight start");
  EXPECT_TRUE(r.reached);
  const Result r2 = solve(straight, t2);
  expect_sane(r2, straight, t2, "no pole, straight start");
  EXPECT_TRUE(r2.reached);
}

// --- unreachable ----------------------------------------------------------------------------

TEST(TwoBoneUnreachable, TooFarStretchesStraightTowardTheTarget) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> over(1.0 + 1e-9, 3.0);
  const Leg leg = bent_leg();
  const double a = leg.thigh(), b = leg.shin();
  const Vec3 pole(0, 0, 1);
  for (int i = 0; i < 300; ++i) {
    const Vec3 dir = random_unit(rng);
    const double d = (a + b) * over(rng);
    const Vec3 target = leg.hip + dir * d;
    const Result r = solve(leg, target, i % 2 ? &pole : nullptr);
    expect_sane(r, leg, target, "too far");
    EXPECT_FALSE(r.reached);
    EXPECT_NEAR(r.residual, d - (a + b), 1e-12);
    // The clamped end lands at a+b give or take an ulp, and the exact knee height for d one ulp
    // short of full reach is ~1e-8 (sqrt of the gap): straight to well under a micrometre.
    EXPECT_LT(glm::length(r.mid - (leg.hip + dir * a)), 1e-7);
    EXPECT_LT(glm::length(r.end - (leg.hip + dir * (a + b))), 1e-12);
  }
}

TEST(TwoBoneUnreachable, TooCloseFoldsTowardTheTarget) {
  // Thigh 0.5, shin 0.3: the ankle cannot come closer than 0.2 to the hip.
  const Leg leg{Vec3(0, 1, 0), Vec3(0, 0.5, 0.0), Vec3(0, 0.2, 0.0)};
  const Vec3 dir = glm::normalize(Vec3(0.1, -1, 0.2));
  for (double d : {0.15, 0.1, 0.01}) {
    const Vec3 target = leg.hip + dir * d;
    const Result r = solve(leg, target);
    expect_sane(r, leg, target, "too close");
    EXPECT_FALSE(r.reached) << d;
    EXPECT_NEAR(r.residual, 0.2 - d, 1e-12) << d;
    EXPECT_LT(glm::length(r.end - (leg.hip + dir * 0.2)), 1e-12) << d;
    // Fully folded: the knee is on the same line, at thigh length.
    EXPECT_LT(glm::length(r.mid - (leg.hip + dir * 0.5)), 1e-9) << d;
  }
}

TEST(TwoBoneUnreachable, TargetOnTheHipWithUnequalBones) {
  const Leg leg{Vec3(0, 1, 0), Vec3(0, 0.5, 0.05), Vec3(0, 0.2, 0.0)};
  const Result r = solve(leg, leg.hip);
  expect_sane(r, leg, leg.hip, "target on hip");
  EXPECT_FALSE(r.reached);
  EXPECT_NEAR(r.residual, std::abs(leg.thigh() - leg.shin()), 1e-12);
}

// BUG (core/solvers/chain.cpp:29 + core/solvers/two_bone.cpp:27-31): with equal bones the hip
// itself is reachable (leg fully folded), but place_two_bone rejects d == 0 and the
// "zero-length bones" fallback stretches the leg straight along the start hip->ankle axis:
// thigh = shin = 0.5, target = hip -> ankle at (0,0,0), residual 1.0 instead of 0, reached false.
TEST(TwoBoneUnreachable, TargetOnTheHipWithEqualBonesFoldsCompletely) {
  const Leg leg{Vec3(0, 1, 0), Vec3(0, 0.5, 0.1), Vec3(0, 0, 0)};
  ASSERT_EQ(leg.thigh(), leg.shin());
  const Result r = solve(leg, leg.hip);
  expect_sane(r, leg, leg.hip, "equal bones, target on hip");
  EXPECT_TRUE(r.reached);
  EXPECT_LT(r.residual, 1e-9);
}

// BUG (core/solvers/chain.cpp:36-38): when the bones differ by an ulp (lengths measured from
// positions) and the target is (almost) on the hip, clamping gives d ~ 1e-16; x =
// (d^2 + a^2 - b^2) / (2d) is then dominated by the rounding of a^2 - b^2 and disagrees with the
// Heron height, so the knee is placed with the wrong bone lengths. Hip (0,1,0), knee
// (0,0.55,0.05), ankle (0,0.1,0) (thigh 0.45276925690687081, shin 0.45276925690687092), target =
// hip: both output bones are 0.375 (7.8 cm short); target 1e-15 below the hip: 0.88 mm short.
TEST(TwoBoneUnreachable, TargetNearTheHipKeepsBoneLengths) {
  const Leg leg{Vec3(0, 1, 0), Vec3(0, 0.55, 0.05), Vec3(0, 0.1, 0)};
  for (double below : {0.0, 1e-15, 1e-12}) {
    const Vec3 target = leg.hip - Vec3(0, below, 0);
    const Result r = solve(leg, target);
    expect_sane(r, leg, target, "ulp-different bones, target near hip");
  }
}

// --- degenerate bones -----------------------------------------------------------------------

TEST(TwoBoneDegenerate, ZeroLengthBones) {
  const Vec3 p(0, 1, 0);
  // Everything on one point: nothing can move, nothing is NaN.
  const Leg point{p, p, p};
  for (const Vec3& target : {Vec3(0.3, 0.2, 0.1), p}) {
    const Result r = solve(point, target);
    expect_sane(r, point, target, "zero-length leg");
    EXPECT_EQ(r.mid, p);
    EXPECT_EQ(r.end, p);
    EXPECT_NEAR(r.residual, glm::length(target - p), 1e-15);
  }
  // Zero thigh: the ankle can only be at shin length from the hip, toward the target.
  const Leg no_thigh{p, p, p + Vec3(0, -0.4, 0)};
  const Vec3 target = p + Vec3(0.1, -0.1, 0);
  const Result r = solve(no_thigh, target);
  expect_sane(r, no_thigh, target, "zero thigh");
  EXPECT_LT(glm::length(r.end - (p + glm::normalize(Vec3(1, -1, 0)) * 0.4)), 1e-12);
  // Zero shin: the ankle sits on the knee.
  const Leg no_shin{p, p + Vec3(0, -0.4, 0), p + Vec3(0, -0.4, 0)};
  const Result r2 = solve(no_shin, target);
  expect_sane(r2, no_shin, target, "zero shin");
  EXPECT_EQ(r2.mid, r2.end);
}

TEST(TwoBoneTolerance, OnlyAffectsReached) {
  const Leg leg = bent_leg();
  const Vec3 target = leg.hip + Vec3(0, -1.0, 0);  // 0.13 too far
  const Result loose = solve(leg, target, nullptr, 0.2);
  const Result tight = solve(leg, target, nullptr, 1e-6);
  EXPECT_TRUE(loose.reached);
  EXPECT_FALSE(tight.reached);
  EXPECT_EQ(loose.end, tight.end);
  EXPECT_EQ(loose.residual, tight.residual);
}

}  // namespace
}  // namespace ikfix::core
