#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>

#include "core/solvers/chain.hpp"

namespace ikfix::core {
namespace {

Vec3 random_unit(std::mt19937& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  for (;;) {
    const Vec3 v(g(rng), g(rng), g(rng));
    const double len = glm::length(v);
    if (len > 1e-3) return v / len;
  }
}

// Component of v perpendicular to unit axis.
Vec3 perp(const Vec3& v, const Vec3& axis) { return v - axis * glm::dot(v, axis); }

bool all_finite(std::span<const Vec3> chain) {
  for (const Vec3& p : chain)
    if (!is_finite(p)) return false;
  return true;
}

// --- apply_bend_plane -----------------------------------------------------------------------

TEST(ChainBendPlane, MovesTheKneeToThePoleSideKeepingBothBones) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int checked = 0;
  for (int i = 0; i < 500; ++i) {
    const Vec3 hip(u(rng), 1.0 + u(rng), u(rng));
    std::array<Vec3, 3> chain = {hip, hip + Vec3(u(rng), u(rng) - 0.5, u(rng)),
                                 hip + Vec3(u(rng), u(rng) - 1.0, u(rng))};
    const std::array<Vec3, 3> before = chain;
    const Vec3 pole = random_unit(rng) * (0.01 + std::abs(u(rng)) * 10.0);  // need not be unit
    const Vec3 axis = glm::normalize(chain[2] - chain[0]);
    const double pole_perp = glm::length(perp(pole, axis));
    apply_bend_plane(chain, pole);
    // Root and end never move.
    EXPECT_EQ(chain[0], before[0]);
    EXPECT_EQ(chain[2], before[2]);
    ASSERT_TRUE(all_finite(chain));
    EXPECT_NEAR(glm::length(chain[1] - chain[0]), glm::length(before[1] - before[0]), 1e-12);
    EXPECT_NEAR(glm::length(chain[2] - chain[1]), glm::length(before[2] - before[1]), 1e-12);
    if (pole_perp < 1e-6) continue;
    const Vec3 side = perp(pole, axis) / pole_perp;
    const Vec3 knee_perp = perp(chain[1] - chain[0], axis);
    // In the pole's half-plane: its perpendicular part points along the pole's.
    EXPECT_NEAR(glm::dot(knee_perp, side), glm::length(knee_perp), 1e-12) << "case " << i;
    ++checked;
  }
  EXPECT_GT(checked, 450);
}

TEST(ChainBendPlane, KneeAlreadyOnThePoleSideStaysPut) {
  std::array<Vec3, 3> chain = {Vec3(0, 1, 0), Vec3(0, 0.55, 0.1), Vec3(0, 0.1, 0)};
  const std::array<Vec3, 3> before = chain;
  apply_bend_plane(chain, Vec3(0, 0, 5));
  for (int i = 0; i < 3; ++i) EXPECT_LT(glm::length(chain[i] - before[i]), 1e-15) << i;
}

TEST(ChainBendPlane, FlipsAKneeBentTheWrongWay) {
  std::array<Vec3, 3> chain = {Vec3(0, 1, 0), Vec3(0, 0.55, -0.1), Vec3(0, 0.1, 0)};
  apply_bend_plane(chain, Vec3(0, 0, 1));
  EXPECT_NEAR(chain[1].x, 0.0, 1e-15);
  EXPECT_NEAR(chain[1].y, 0.55, 1e-15);
  EXPECT_NEAR(chain[1].z, 0.1, 1e-15);
}

TEST(ChainBendPlane, DegenerateInputsLeaveTheChainUnchanged) {
  const std::array<Vec3, 3> bent = {Vec3(0, 1, 0), Vec3(0.05, 0.55, -0.1), Vec3(0, 0.1, 0)};
  // Pole parallel (and antiparallel) to the root->end axis, or zero.
  for (const Vec3& pole : {Vec3(0, -1, 0), Vec3(0, 3, 0), Vec3(0.0), Vec3(1e-12, -1, 0)}) {
    std::array<Vec3, 3> chain = bent;
    apply_bend_plane(chain, pole);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(chain[i], bent[i]) << "pole " << pole.x << " " << pole.y;
  }
  // End on the root: no axis.
  std::array<Vec3, 3> folded = {Vec3(0, 1, 0), Vec3(0, 0.5, 0.1), Vec3(0, 1, 0)};
  const auto folded_before = folded;
  apply_bend_plane(folded, Vec3(0, 0, 1));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(folded[i], folded_before[i]);
  // Fewer than 3 joints: nothing to bend.
  std::array<Vec3, 2> bone = {Vec3(0, 1, 0), Vec3(0.3, 0, 0)};
  const auto bone_before = bone;
  apply_bend_plane(bone, Vec3(0, 0, 1));
  EXPECT_EQ(bone[0], bone_before[0]);
  EXPECT_EQ(bone[1], bone_before[1]);
  apply_bend_plane(std::span<Vec3>(), Vec3(0, 0, 1));  // empty: no crash
}

TEST(ChainBendPlane, MiddleJointOnTheAxisStaysOnTheAxis) {
  // A straight chain has no bend to move: radius 0 keeps the joints where they are.
  std::array<Vec3, 3> chain = {Vec3(0, 1, 0), Vec3(0, 0.5, 0), Vec3(0, 0, 0)};
  apply_bend_plane(chain, Vec3(0, 0, 1));
  EXPECT_EQ(chain[1], Vec3(0, 0.5, 0));
}

// BUG (core/solvers/chain.cpp:16-21, contract in chain.hpp:10-12): with more than one middle
// joint, each is moved to the pole half-plane independently (same azimuth, own radius), so a
// bone between two middle joints that were at different azimuths changes length. Here the
// knee->ankle bone goes from 0.5196 to 0.5000.
TEST(ChainBendPlane, FourJointChainKeepsItsMiddleBone) {
  std::array<Vec3, 4> chain = {Vec3(0, 0, 0), Vec3(0.1, -0.5, 0), Vec3(0, -1.0, 0.1),
                               Vec3(0, -1.5, 0)};
  const std::array<Vec3, 4> before = chain;
  apply_bend_plane(chain, Vec3(0, 0, 1));
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(glm::length(chain[i + 1] - chain[i]), glm::length(before[i + 1] - before[i]), 1e-12)
        << "bone " << i;
  }
}

// --- place_two_bone -------------------------------------------------------------------------

TEST(ChainPlaceTwoBone, ReachableEndsArePlacedExactly) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> len(0.05, 1.0), frac(0.0, 1.0), u(-1.0, 1.0);
  for (int i = 0; i < 1000; ++i) {
    const double a = len(rng), b = len(rng);
    const double lo = std::abs(a - b), hi = a + b;
    const double d = lo + (hi - lo) * frac(rng);
    const Vec3 root(u(rng), u(rng), u(rng));
    const Vec3 end = root + random_unit(rng) * d;
    std::array<Vec3, 3> chain = {root, root + Vec3(0.1, -a, 0), root + Vec3(0, -a - b, 0)};
    const Vec3 pole = random_unit(rng);
    ASSERT_TRUE(place_two_bone(chain, end, a, b, pole)) << "case " << i;
    ASSERT_TRUE(all_finite(chain));
    EXPECT_EQ(chain[0], root);
    EXPECT_EQ(chain[2], end);
    EXPECT_NEAR(glm::length(chain[1] - chain[0]), a, 1e-12) << "case " << i;
    EXPECT_NEAR(glm::length(chain[2] - chain[1]), b, 1e-12) << "case " << i;
    const Vec3 axis = glm::normalize(end - root);
    const Vec3 pole_perp = perp(pole, axis);
    if (glm::length(pole_perp) > 1e-3) {
      const Vec3 knee_perp = perp(chain[1] - root, axis);
      EXPECT_GE(glm::dot(knee_perp, pole_perp), -1e-12) << "case " << i;
      // And in the plane of the axis and the pole.
      EXPECT_NEAR(glm::dot(knee_perp, glm::cross(axis, pole_perp)), 0.0, 1e-12) << "case " << i;
    }
  }
}

TEST(ChainPlaceTwoBone, StraightLegPutsTheKneeExactlyOnTheLine) {
  // d == a + b exactly (dyadic values, no rounding): the height is exactly 0, no sqrt of a
  // negative, and the knee sits on the root->end line at distance a.
  struct Case {
    Vec3 dir;
    double a, b;
  };
  const Vec3 root(0.25, 1.0, -0.5);
  for (const Case& c : {Case{Vec3(0, -1, 0), 0.5, 0.375}, Case{Vec3(1, 0, 0), 0.5, 0.375},
                        Case{Vec3(0, 0, -1), 0.25, 0.75}, Case{Vec3(0.6, -0.8, 0), 0.75, 0.5}}) {
    const Vec3 end = root + c.dir * (c.a + c.b);
    ASSERT_EQ(glm::length(end - root), c.a + c.b) << "test setup: not exact";
    std::array<Vec3, 3> chain = {root, root + Vec3(0, 0, 0.3), end};
    ASSERT_TRUE(place_two_bone(chain, end, c.a, c.b, Vec3(0, 0, 1)));
    ASSERT_TRUE(all_finite(chain));
    const Vec3 expect_knee = root + c.dir * c.a;
    EXPECT_LT(glm::length(chain[1] - expect_knee), 1e-15);
    EXPECT_EQ(chain[2], end);
  }
}

TEST(ChainPlaceTwoBone, AlmostStraightLegKeepsBothLengths) {
  // The textbook law-of-cosines height loses ~0.5 mm here; Heron must not.
  std::mt19937 rng(8);
  const double a = 0.45, b = 0.42;
  for (double eps : {0.0, 1e-16, 1e-14, 1e-12, 1e-10, 1e-8, 1e-6}) {
    for (int i = 0; i < 50; ++i) {
      const Vec3 root(0, 1, 0);
      const Vec3 end = root + random_unit(rng) * ((a + b) * (1.0 - eps));
      std::array<Vec3, 3> chain = {root, root + Vec3(0, -a, 0.01), root + Vec3(0, -a - b, 0)};
      if (!place_two_bone(chain, end, a, b, Vec3(0, 0, 1))) {
        // Only allowed when rounding put the end past full reach.
        EXPECT_GT(glm::length(end - root), a + b);
        continue;
      }
      ASSERT_TRUE(all_finite(chain)) << eps;
      EXPECT_NEAR(glm::length(chain[1] - chain[0]), a, 1e-12) << eps;
      EXPECT_NEAR(glm::length(chain[2] - chain[1]), b, 1e-12) << eps;
    }
  }
}

TEST(ChainPlaceTwoBone, FullyFoldedLegLiesOnTheAxis) {
  const double a = 0.5, b = 0.375;  // d = a - b = 0.125 exactly
  const Vec3 root(0, 1, 0);
  const Vec3 end = root + Vec3(0, -0.125, 0);
  std::array<Vec3, 3> chain = {root, Vec3(0, 0.5, 0.1), Vec3(0, 0.2, 0)};
  ASSERT_TRUE(place_two_bone(chain, end, a, b, Vec3(0, 0, 1)));
  EXPECT_LT(glm::length(chain[1] - (root + Vec3(0, -0.5, 0))), 1e-15);
  EXPECT_NEAR(glm::length(chain[2] - chain[1]), b, 1e-15);
  // Shin longer than thigh: the knee folds back above the hip.
  std::array<Vec3, 3> chain2 = {root, Vec3(0, 0.5, 0.1), Vec3(0, 0.2, 0)};
  ASSERT_TRUE(place_two_bone(chain2, end, b, a, Vec3(0, 0, 1)));
  EXPECT_LT(glm::length(chain2[1] - (root + Vec3(0, 0.375, 0))), 1e-15);
}

TEST(ChainPlaceTwoBone, OutOfRangeLeavesTheChainUntouched) {
  const double a = 0.5, b = 0.3;
  const Vec3 root(0, 1, 0);
  const std::array<Vec3, 3> start = {root, Vec3(0, 0.5, 0.1), Vec3(0, 0.2, 0)};
  for (const Vec3& end : {root + Vec3(0, -0.81, 0),  // too far
                          root + Vec3(0, -0.19, 0),  // closer than |a - b|
                          root,                      // on the root: no axis
                          root + Vec3(0, 0, 5)}) {
    std::array<Vec3, 3> chain = start;
    EXPECT_FALSE(place_two_bone(chain, end, a, b, Vec3(0, 0, 1)));
    for (int i = 0; i < 3; ++i) EXPECT_EQ(chain[i], start[i]);
  }
}

TEST(ChainPlaceTwoBone, PoleAlongTheAxisFallsBackToTheCurrentBend) {
  const double a = 0.45, b = 0.42;
  const Vec3 root(0, 1, 0), end(0, 0.3, 0);
  for (const Vec3& pole : {Vec3(0, -1, 0), Vec3(0, 2, 0), Vec3(0.0)}) {
    // Current knee bent toward -x: the result keeps that side.
    std::array<Vec3, 3> chain = {root, Vec3(-0.1, 0.55, 0), Vec3(0, 0.1, 0)};
    ASSERT_TRUE(place_two_bone(chain, end, a, b, pole));
    ASSERT_TRUE(all_finite(chain));
    EXPECT_LT(chain[1].x, -0.1);
    EXPECT_NEAR(chain[1].z, 0.0, 1e-15);
    EXPECT_NEAR(glm::length(chain[1] - root), a, 1e-12);
    EXPECT_NEAR(glm::length(end - chain[1]), b, 1e-12);
  }
  // Pole along the axis and a straight current pose: any perpendicular, still exact.
  std::array<Vec3, 3> straight = {root, Vec3(0, 0.55, 0), Vec3(0, 0.1, 0)};
  ASSERT_TRUE(place_two_bone(straight, end, a, b, Vec3(0, -1, 0)));
  ASSERT_TRUE(all_finite(straight));
  EXPECT_NEAR(glm::length(straight[1] - root), a, 1e-12);
  EXPECT_NEAR(glm::length(end - straight[1]), b, 1e-12);
}

// BUG (core/solvers/chain.cpp:36-38): x = (d^2 + a^2 - b^2) / (2d) is ill-conditioned for tiny d
// when a and b are (nearly) equal: the rounding of a^2 - b^2 is divided by 2d, and the result no
// longer agrees with the Heron height h, so the knee is off both spheres. a = 0.45, b = next
// double above 0.45, end straight below the root at d = 1e-16: both bones come out 6.4 cm too
// long; d = 1e-15: 0.2 mm short; d = 1e-12: 1e-5 short.
TEST(ChainPlaceTwoBone, TinyDistanceWithNearlyEqualBonesKeepsLengths) {
  const double a = 0.45, b = std::nextafter(0.45, 1.0);
  for (double d : {1e-16, 2e-16, 1e-15, 1e-14, 1e-12}) {
    std::array<Vec3, 3> chain = {Vec3(0.0), Vec3(0, -0.45, 0.01), Vec3(0, -0.9, 0)};
    ASSERT_TRUE(place_two_bone(chain, Vec3(0, -d, 0), a, b, Vec3(0, 0, 1))) << d;
    EXPECT_NEAR(glm::length(chain[1] - chain[0]), a, 1e-9) << "d = " << d;
    EXPECT_NEAR(glm::length(chain[2] - chain[1]), b, 1e-9) << "d = " << d;
  }
}

TEST(ChainPlaceTwoBone, PoleScaleDoesNotMatter) {
  const double a = 0.45, b = 0.42;
  const Vec3 root(0, 1, 0), end(0.1, 0.3, 0.05);
  std::array<Vec3, 3> ref = {root, Vec3(0, 0.55, 0), Vec3(0, 0.1, 0)};
  ASSERT_TRUE(place_two_bone(ref, end, a, b, Vec3(0.2, 0.1, 1)));
  for (double scale : {1e-6, 1e-3, 1e3}) {
    std::array<Vec3, 3> chain = {root, Vec3(0, 0.55, 0), Vec3(0, 0.1, 0)};
    ASSERT_TRUE(place_two_bone(chain, end, a, b, Vec3(0.2, 0.1, 1) * scale));
    EXPECT_LT(glm::length(chain[1] - ref[1]), 1e-14) << scale;
  }
}

TEST(ChainPlaceTwoBone, ZeroLengthBone) {
  // a = 0: the knee is on the root and the end can only be at distance b.
  const Vec3 root(0, 1, 0);
  std::array<Vec3, 3> chain = {root, root, Vec3(0, 0.6, 0)};
  ASSERT_TRUE(place_two_bone(chain, Vec3(0.4, 1, 0), 0.0, 0.4, Vec3(0, 0, 1)));
  ASSERT_TRUE(all_finite(chain));
  EXPECT_LT(glm::length(chain[1] - root), 1e-15);
  // b = 0: the knee coincides with the end.
  std::array<Vec3, 3> chain2 = {root, Vec3(0, 0.6, 0), Vec3(0, 0.6, 0)};
  ASSERT_TRUE(place_two_bone(chain2, Vec3(0, 1, 0.4), 0.4, 0.0, Vec3(0, 0, 1)));
  ASSERT_TRUE(all_finite(chain2));
  EXPECT_LT(glm::length(chain2[1] - Vec3(0, 1, 0.4)), 1e-15);
}

// --- place_two_bone with its line made once (two_bone_line) --------------------------------

// place_two_bone as it was before its root->end line could be made once and shared: the
// reference the shared-line forms must match bit for bit.
bool place_two_bone_reference(std::span<Vec3> chain, const Vec3& end_ws, double a, double b,
                              const Vec3& pole_dir) {
  const Vec3 root = chain[0];
  const Vec3 to_end = end_ws - root;
  const double d = glm::length(to_end);
  if (d > a + b || d < std::abs(a - b)) return false;
  Vec3 axis = unit_or(to_end, d, Vec3(0));
  if (axis == Vec3(0))
    axis = safe_normalize(chain[2] - chain[1], safe_normalize(chain[1] - root, Vec3(0, -1, 0)));
  Vec3 side = pole_dir - axis * glm::dot(pole_dir, axis);
  double side_length = glm::length(side);
  if (!(side_length > 1e-9)) {
    side = (chain[1] - root) - axis * glm::dot(chain[1] - root, axis);
    side_length = glm::length(side);
  }
  side = unit_or(side, side_length, Vec3(0));
  if (side == Vec3(0)) side = any_perpendicular(axis);
  if (d == 0.0) {
    chain[1] = root + side * a;
    chain[2] = end_ws;
    return true;
  }
  const double product = (a + b - d) * (d + b - a) * (a + d - b) * (a + b + d);
  const double h = std::sqrt(std::max(0.0, product)) / (2.0 * d);
  const double x = (d * d + (a - b) * (a + b)) / (2.0 * d);
  const double norm = std::sqrt(x * x + h * h);
  const double k = norm > 0 ? a / norm : 0.0;
  chain[1] = root + (axis * x + side * h) * k;
  chain[2] = end_ws;
  return true;
}

bool same_bits(const std::array<Vec3, 3>& x, const std::array<Vec3, 3>& y) {
  return std::memcmp(x.data(), y.data(), sizeof(Vec3) * 3) == 0;
}

TEST(ChainPlaceTwoBone, SharedLineGivesTheSameBits) {
  std::mt19937 rng(20261130);
  std::uniform_real_distribution<double> u(-1.0, 1.0), len(0.0, 0.6);
  int placed = 0;
  for (int i = 0; i < 20000; ++i) {
    const double a = i % 50 == 0 ? 0.4 : len(rng), b = i % 50 == 0 ? 0.4 : len(rng);
    const Vec3 root(u(rng), u(rng) + 1, u(rng));
    const std::array<Vec3, 3> start = {root, root + random_unit(rng) * a,
                                       root + random_unit(rng) * (a + b) * 0.7};
    // Ends inside, on and beyond the shell, on the root (equal bones); poles random, along the
    // root->end axis (the fallback to the current bend) and zero.
    Vec3 end = root + random_unit(rng) *
                          (std::abs(a - b) + (a + b - std::abs(a - b)) * (0.5 * u(rng) + 0.6));
    if (i % 50 == 0) end = root;
    Vec3 pole = random_unit(rng) * (u(rng) + 1.5);
    if (i % 7 == 0) pole = (end - root) * 3.0;
    if (i % 11 == 0) pole = Vec3(0);
    std::array<Vec3, 3> want = start, wrapped = start, shared = start;
    const bool ok = place_two_bone_reference(want, end, a, b, pole);
    EXPECT_EQ(place_two_bone(wrapped, end, a, b, pole), ok) << i;
    const Vec3 to_end = end - root;
    const double d = glm::length(to_end);
    EXPECT_EQ(place_two_bone(shared, end, a, b, pole,
                             two_bone_line(d, unit_or(to_end, d, Vec3(0)), pole)),
              ok)
        << i;
    EXPECT_TRUE(same_bits(wrapped, want)) << i;
    EXPECT_TRUE(same_bits(shared, want)) << i;
    placed += ok;
  }
  EXPECT_GT(placed, 10000);  // most ends are in reach: the placements themselves were compared
}

// --- apply_bend_plane on three joints, one chain and two at once ---------------------------

// The three-joint bend plane as it was written before two chains could share its steps: the
// reference both forms must match bit for bit.
void bend_plane_of_three_reference(std::span<Vec3> chain, const Vec3& pole_dir) {
  const Vec3 root = chain.front();
  const Vec3 axis = safe_normalize(chain.back() - root, Vec3(0));
  if (axis == Vec3(0)) return;
  const Vec3 pole_perp = pole_dir - axis * glm::dot(pole_dir, axis);
  const double pole_perp_length = glm::length(pole_perp);
  if (!(pole_perp_length > 1e-9)) return;
  const Vec3 rel = chain[1] - root;
  const double along = glm::dot(rel, axis);
  const double radius = glm::length(rel - axis * along);
  if (!(radius > 1e-12)) return;
  Vec3 side = pole_perp / pole_perp_length;
  side = safe_normalize(side - axis * glm::dot(side, axis), Vec3(0));
  if (side == Vec3(0)) return;
  chain[1] = root + axis * along + side * radius;
}

TEST(ChainBendPlane, OneAndTwoChainsGiveTheOldBits) {
  std::mt19937 rng(1130);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto random_chain = [&](int i) {
    const Vec3 root(u(rng), u(rng), u(rng));
    std::array<Vec3, 3> c = {root, root + random_unit(rng) * 0.45, root + random_unit(rng) * 0.8};
    if (i % 13 == 0) c[2] = root;                        // end on the root: no axis
    if (i % 17 == 0) c[1] = root + (c[2] - root) * 0.4;  // knee on the axis: no radius
    return c;
  };
  auto random_pole = [&](int i, const std::array<Vec3, 3>& c) {
    if (i % 11 == 0) return (c[2] - c[0]) * 2.0;  // along the axis: left as it is
    if (i % 19 == 0) return Vec3(0);
    return random_unit(rng) * (0.5 + u(rng));
  };
  int moved = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::array<Vec3, 3> start[2] = {random_chain(i), random_chain(i + 5)};
    const Vec3 pole[2] = {random_pole(i, start[0]), random_pole(i + 3, start[1])};
    std::array<Vec3, 3> want[2] = {start[0], start[1]}, one[2] = {start[0], start[1]},
                        two[2] = {start[0], start[1]};
    for (int k = 0; k < 2; ++k) {
      bend_plane_of_three_reference(want[k], pole[k]);
      apply_bend_plane(one[k], pole[k]);
      EXPECT_TRUE(same_bits(one[k], want[k])) << i;
      moved += !same_bits(want[k], start[k]);
    }
    apply_bend_plane_pair(two[0], pole[0], two[1], pole[1]);
    EXPECT_TRUE(same_bits(two[0], want[0])) << i;
    EXPECT_TRUE(same_bits(two[1], want[1])) << i;
  }
  EXPECT_GT(moved, 20000);  // most knees were turned: the placements themselves were compared
}
}  // namespace
}  // namespace ikfix::core
