#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/math.hpp"

namespace ikfix::core {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Vec3 random_unit(std::mt19937& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  for (;;) {
    const Vec3 v(g(rng), g(rng), g(rng));
    const double len = glm::length(v);
    if (len > 1e-3) return v / len;
  }
}

// Unit vector making exactly `angle` radians with the unit x axis, in the xy plane.
Vec3 at_angle_from_x(double angle) { return Vec3(std::cos(angle), std::sin(angle), 0.0); }

double quat_norm(const Quat& q) { return std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z); }

// --- safe_normalize -------------------------------------------------------------------------

TEST(MathSafeNormalize, NormalizesOrdinaryVectors) {
  const Vec3 fallback(0, -1, 0);
  const Vec3 n = safe_normalize(Vec3(3, 0, 4), fallback);
  EXPECT_NEAR(n.x, 0.6, 1e-15);
  EXPECT_NEAR(n.y, 0.0, 1e-15);
  EXPECT_NEAR(n.z, 0.8, 1e-15);
  // Very long and fairly short vectors keep their direction.
  EXPECT_NEAR(glm::length(safe_normalize(Vec3(1e150, 1e150, 0), fallback)), 1.0, 1e-15);
  const Vec3 small = safe_normalize(Vec3(0, 0, 1e-11), fallback);
  EXPECT_EQ(small, Vec3(0, 0, 1));
}

TEST(MathSafeNormalize, ReturnsFallbackWhenThereIsNoDirection) {
  const Vec3 fallback(0.25, 0.5, -7.0);  // returned as is, even when not unit
  EXPECT_EQ(safe_normalize(Vec3(0.0), fallback), fallback);
  EXPECT_EQ(safe_normalize(Vec3(1e-13, 0, 0), fallback), fallback);
  EXPECT_EQ(safe_normalize(Vec3(-0.0, 0.0, -0.0), fallback), fallback);
  EXPECT_EQ(safe_normalize(Vec3(kNaN, 0, 0), fallback), fallback);
  EXPECT_EQ(safe_normalize(Vec3(1, kNaN, 1), fallback), fallback);
  EXPECT_EQ(safe_normalize(Vec3(kInf, 0, 0), fallback), fallback);
  EXPECT_EQ(safe_normalize(Vec3(1, 2, -kInf), fallback), fallback);
}

// --- any_perpendicular ----------------------------------------------------------------------

TEST(MathAnyPerpendicular, IsUnitAndPerpendicularForEveryDirection) {
  std::mt19937 rng(7);
  std::vector<Vec3> axes = {Vec3(1, 0, 0),
                            Vec3(-1, 0, 0),
                            Vec3(0, 1, 0),
                            Vec3(0, -1, 0),
                            Vec3(0, 0, 1),
                            Vec3(0, 0, -1),
                            glm::normalize(Vec3(0.9, 0.1, 0)),
                            glm::normalize(Vec3(0.899, 0.1, 0.3))};
  for (int i = 0; i < 500; ++i) axes.push_back(random_unit(rng));
  for (const Vec3& a : axes) {
    const Vec3 p = any_perpendicular(a);
    ASSERT_TRUE(is_finite(p)) << a.x << " " << a.y << " " << a.z;
    EXPECT_NEAR(glm::length(p), 1.0, 1e-14);
    EXPECT_NEAR(glm::dot(p, a), 0.0, 1e-14);
  }
}

// --- rotation_between -----------------------------------------------------------------------

TEST(MathRotationBetween, MapsFromOntoToForRandomPairs) {
  std::mt19937 rng(42);
  for (int i = 0; i < 2000; ++i) {
    const Vec3 from = random_unit(rng), to = random_unit(rng);
    const Quat q = rotation_between(from, to);
    ASSERT_TRUE(is_finite(q));
    EXPECT_NEAR(quat_norm(q), 1.0, 1e-14);
    const Vec3 mapped = q * from;
    EXPECT_LT(glm::length(mapped - to), 1e-12) << "pair " << i;
    // Minimal: its angle is the angle between the vectors.
    EXPECT_NEAR(rotation_angle(q), angle_between(from, to), 1e-12) << "pair " << i;
  }
}

TEST(MathRotationBetween, KeepsTinyAngles) {
  // glm::rotation returns identity below ~5e-4 rad; this one must not drop anything.
  const Vec3 from(1, 0, 0);
  for (double angle : {1e-3, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12}) {
    const Vec3 to = at_angle_from_x(angle);
    const Quat q = rotation_between(from, to);
    EXPECT_NEAR(rotation_angle(q), angle, angle * 1e-9) << angle;
    EXPECT_LT(glm::length(q * from - to), 1e-15) << angle;
    // Rotation axis is +z (the cross product), not arbitrary.
    EXPECT_GT(q.z, 0.0) << angle;
    EXPECT_NEAR(q.x, 0.0, 1e-300);
    EXPECT_NEAR(q.y, 0.0, 1e-300);
  }
  // The 1e-6 rad case matters: on a 0.9 m leg it is almost a micrometre at the ankle.
  const Quat q = rotation_between(Vec3(0, -1, 0), glm::normalize(Vec3(1e-6, -1, 0)));
  const Vec3 ankle = q * Vec3(0, -0.9, 0);
  EXPECT_NEAR(ankle.x, 0.9e-6, 1e-15);
}

TEST(MathRotationBetween, IdenticalVectorsGiveIdentity) {
  std::mt19937 rng(3);
  for (int i = 0; i < 100; ++i) {
    const Vec3 v = random_unit(rng);
    const Quat q = rotation_between(v, v);
    EXPECT_NEAR(q.w, 1.0, 1e-15);
    EXPECT_NEAR(rotation_angle(q), 0.0, 1e-15);
  }
}

TEST(MathRotationBetween, AntiparallelGivesProperHalfTurn) {
  std::mt19937 rng(11);
  std::vector<Vec3> froms = {Vec3(1, 0, 0),  Vec3(-1, 0, 0), Vec3(0, 1, 0),
                             Vec3(0, -1, 0), Vec3(0, 0, 1),  Vec3(0, 0, -1)};
  for (int i = 0; i < 200; ++i) froms.push_back(random_unit(rng));
  for (const Vec3& from : froms) {
    const Quat q = rotation_between(from, -from);
    ASSERT_TRUE(is_finite(q));
    EXPECT_NEAR(quat_norm(q), 1.0, 1e-14);
    EXPECT_NEAR(rotation_angle(q), kPi, 1e-12);
    // A half-turn about an axis perpendicular to `from` (not a reflection, not identity).
    const Vec3 axis(q.x, q.y, q.z);
    EXPECT_NEAR(glm::dot(axis, from), 0.0, 1e-14);
    EXPECT_LT(glm::length(q * from + from), 1e-12);
    // Still a rotation: a vector along the axis stays put.
    EXPECT_LT(glm::length(q * axis - axis), 1e-14);
  }
}

TEST(MathRotationBetween, AnglesUpToNearlyHalfTurnMapExactly) {
  const Vec3 from(1, 0, 0);
  for (double angle : {0.5, 1.0, kPi / 2, 2.0, 3.0, kPi - 1e-2, kPi - 1e-3, kPi - 1e-4}) {
    const Vec3 to = at_angle_from_x(angle);
    const Quat q = rotation_between(from, to);
    EXPECT_LT(glm::length(q * from - to), 1e-12) << angle;
    EXPECT_NEAR(rotation_angle(q), angle, 1e-11) << angle;
  }
}

// BUG (core/math.hpp:60): every pair within ~1.4e-6 rad of antiparallel (dot < -1 + 1e-12) is
// replaced by a half-turn about an arbitrary perpendicular, so `to` is missed by up to 1.4e-6:
// the mirror image of the glm::rotation trap the function exists to avoid.
TEST(MathRotationBetween, NearlyAntiparallelIsNotSnappedToHalfTurn) {
  const Vec3 from(1, 0, 0);
  for (double eps : {1e-6, 1e-7, 1e-8, 1e-10}) {
    const Vec3 to = at_angle_from_x(kPi - eps);
    const Quat q = rotation_between(from, to);
    EXPECT_LT(glm::length(q * from - to), 1e-12) << "pi - " << eps;
  }
}

// --- angle_between / axis_angle / rotation_angle --------------------------------------------

TEST(MathAngleBetween, AccurateAcrossTheRange) {
  const Vec3 x(1, 0, 0);
  EXPECT_EQ(angle_between(x, x), 0.0);
  EXPECT_NEAR(angle_between(x, Vec3(0, 1, 0)), kPi / 2, 1e-15);
  EXPECT_NEAR(angle_between(x, -x), kPi, 1e-15);
  for (double angle : {1e-12, 1e-9, 1e-6, 0.3, 1.7, kPi - 1e-6, kPi - 1e-9}) {
    EXPECT_NEAR(angle_between(x, at_angle_from_x(angle)), angle, 1e-15 + angle * 1e-12) << angle;
  }
  // Symmetric.
  std::mt19937 rng(5);
  for (int i = 0; i < 100; ++i) {
    const Vec3 a = random_unit(rng), b = random_unit(rng);
    EXPECT_DOUBLE_EQ(angle_between(a, b), angle_between(b, a));
  }
}

TEST(MathAxisAngle, RotatesByTheGivenAngleAndRoundTrips) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(0.0, kPi);
  for (int i = 0; i < 500; ++i) {
    const Vec3 axis = random_unit(rng);
    const double angle = u(rng);
    const Quat q = axis_angle(axis, angle);
    EXPECT_NEAR(quat_norm(q), 1.0, 1e-14);
    EXPECT_NEAR(rotation_angle(q), angle, 1e-12);
    // A vector perpendicular to the axis turns by exactly `angle`.
    const Vec3 p = any_perpendicular(axis);
    EXPECT_NEAR(angle_between(p, q * p), angle, 1e-12);
    // Right-handed: p turns toward axis x p.
    if (angle > 1e-6 && angle < kPi - 1e-6) {
      EXPECT_GT(glm::dot(q * p, glm::cross(axis, p)), 0.0);
    }
    EXPECT_LT(glm::length(q * axis - axis), 1e-14);
  }
  // A quarter-turn about +y takes +z to +x.
  const Vec3 r = axis_angle(Vec3(0, 1, 0), kPi / 2) * Vec3(0, 0, 1);
  EXPECT_NEAR(r.x, 1.0, 1e-15);
  EXPECT_NEAR(r.z, 0.0, 1e-15);
}

TEST(MathRotationAngle, IsInZeroToPiAndSignInvariant) {
  EXPECT_EQ(rotation_angle(identity_quat()), 0.0);
  EXPECT_NEAR(rotation_angle(-identity_quat()), 0.0, 1e-300);
  const Quat q = axis_angle(glm::normalize(Vec3(1, 2, 3)), 0.7);
  EXPECT_NEAR(rotation_angle(q), 0.7, 1e-15);
  EXPECT_NEAR(rotation_angle(-q), 0.7, 1e-15);
  // Past a half-turn the shorter way round is reported.
  EXPECT_NEAR(rotation_angle(axis_angle(Vec3(0, 0, 1), 1.5 * kPi)), 0.5 * kPi, 1e-14);
  EXPECT_NEAR(rotation_angle(axis_angle(Vec3(0, 0, 1), 1e-9)), 1e-9, 1e-24);
}

TEST(MathAlignHemisphere, PicksTheSignNearTheReferenceWithoutChangingTheRotation) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> u(0.0, 2 * kPi);
  for (int i = 0; i < 200; ++i) {
    const Quat q = axis_angle(random_unit(rng), u(rng));
    const Quat ref = axis_angle(random_unit(rng), u(rng));
    const Quat a = align_hemisphere(q, ref);
    EXPECT_GE(glm::dot(a, ref), 0.0);
    EXPECT_TRUE(a == q || a == -q);
    const Vec3 v(0.3, -0.2, 0.9);
    EXPECT_LT(glm::length(a * v - q * v), 1e-14);
  }
}

// --- Transform ------------------------------------------------------------------------------

TEST(MathTransform, ComposeMatchesApplyingChildThenParent) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-2.0, 2.0), s(0.1, 3.0), a(0.0, 2 * kPi);
  for (int i = 0; i < 200; ++i) {
    Transform parent, child;
    parent.translation = Vec3(u(rng), u(rng), u(rng));
    parent.rotation = axis_angle(random_unit(rng), a(rng));
    parent.scale = Vec3(s(rng));  // uniform: compose is exact (no shear to drop)
    child.translation = Vec3(u(rng), u(rng), u(rng));
    child.rotation = axis_angle(random_unit(rng), a(rng));
    child.scale = Vec3(s(rng), s(rng), s(rng));
    const Transform both = compose(parent, child);
    const Vec3 p(u(rng), u(rng), u(rng));
    const Vec3 expect = transform_point(parent, transform_point(child, p));
    EXPECT_LT(glm::length(transform_point(both, p) - expect), 1e-12);
  }
  // Identity is neutral.
  Transform t;
  t.translation = Vec3(1, 2, 3);
  t.rotation = axis_angle(Vec3(0, 1, 0), 0.5);
  t.scale = Vec3(2, 3, 4);
  const Transform l = compose(Transform{}, t), r = compose(t, Transform{});
  EXPECT_EQ(l.translation, t.translation);
  EXPECT_EQ(r.translation, t.translation);
  EXPECT_EQ(l.scale, t.scale);
  EXPECT_EQ(r.scale, t.scale);
}

TEST(MathTransform, TransformPointAppliesScaleThenRotationThenTranslation) {
  Transform t;
  t.translation = Vec3(10, 0, 0);
  t.rotation = axis_angle(Vec3(0, 0, 1), kPi / 2);  // +x -> +y
  t.scale = Vec3(2, 3, 1);
  const Vec3 p = transform_point(t, Vec3(1, 1, 1));  // scaled (2,3,1), rotated (-3,2,1)
  EXPECT_NEAR(p.x, 7.0, 1e-14);
  EXPECT_NEAR(p.y, 2.0, 1e-14);
  EXPECT_NEAR(p.z, 1.0, 1e-14);
}

TEST(MathIsFinite, DetectsNaNAndInfinityInAnyComponent) {
  EXPECT_TRUE(is_finite(Vec3(1, 2, 3)));
  EXPECT_FALSE(is_finite(Vec3(kNaN, 0, 0)));
  EXPECT_FALSE(is_finite(Vec3(0, kInf, 0)));
  EXPECT_FALSE(is_finite(Vec3(0, 0, -kInf)));
  EXPECT_TRUE(is_finite(identity_quat()));
  EXPECT_FALSE(is_finite(Quat(kNaN, 0, 0, 0)));
  EXPECT_FALSE(is_finite(Quat(1, 0, 0, kInf)));
  EXPECT_FALSE(is_finite(Quat(1, kNaN, 0, 0)));
}

}  // namespace
}  // namespace ikfix::core
