// Euler <-> quaternion conversion in BVH channel order: all six orders, both branches, +-360
// equivalents, gimbal lock.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <string>

#include "io/bvh/euler.hpp"

namespace {

using ikfix::core::Quat;
using ikfix::io::bvh::euler_from_quat_deg;
using ikfix::io::bvh::nearest_equivalent_deg;
using ikfix::io::bvh::quat_from_euler_deg;
using Angles = std::array<double, 3>;
using Axes = std::array<int, 3>;

const Axes kOrders[6] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

std::string order_name(const Axes& a) {
  std::string s;
  for (int axis : a) s += static_cast<char>('X' + axis);
  return s;
}

// Angle (degrees) of the rotation taking a to b.
double rotation_gap_deg(const Quat& a, const Quat& b) {
  // Not 2*acos(dot): that loses precision near identity.
  const Quat r = glm::conjugate(glm::normalize(a)) * glm::normalize(b);
  const double v = std::sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
  return 2.0 * std::atan2(v, std::abs(r.w)) * 180.0 / ikfix::core::kPi;
}

void expect_angles_near(const Angles& got, const Angles& want, double tol,
                        const std::string& what) {
  for (int n = 0; n < 3; ++n) EXPECT_NEAR(got[n], want[n], tol) << what << " angle " << n;
}

TEST(BvhEuler, ChannelProductOrderIsLeftToRight) {
  // "Zrotation Yrotation Xrotation" = Rz * Ry * Rx, rotating column vectors.
  const Quat q = quat_from_euler_deg({2, 1, 0}, {90.0, 0.0, 90.0});
  // Rx(90) takes Y to Z; Rz(90) then takes Z to Z. So Y -> Z.
  const glm::dvec3 y = q * glm::dvec3(0, 1, 0);
  EXPECT_NEAR(y.x, 0.0, 1e-15);
  EXPECT_NEAR(y.y, 0.0, 1e-15);
  EXPECT_NEAR(y.z, 1.0, 1e-15);
  // And X: Rx keeps X, Rz(90) takes X to Y.
  const glm::dvec3 x = q * glm::dvec3(1, 0, 0);
  EXPECT_NEAR(x.y, 1.0, 1e-15);
}

TEST(BvhEuler, RoundTripAllOrdersRandomAngles) {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<double> outer(-180.0, 180.0);
  std::uniform_real_distribution<double> middle(-89.0, 89.0);
  for (const Axes& order : kOrders) {
    for (int n = 0; n < 2000; ++n) {
      const Angles a{outer(rng), middle(rng), outer(rng)};
      const Quat q = quat_from_euler_deg(order, a);
      expect_angles_near(euler_from_quat_deg(q, order, a), a, 1e-9, order_name(order));
      // A reference a little off still selects the same triple.
      const Angles near{a[0] + 3.0, a[1] - 2.0, a[2] + 1.0};
      expect_angles_near(euler_from_quat_deg(q, order, near), a, 1e-9, order_name(order));
    }
  }
}

TEST(BvhEuler, PicksEquivalentNearestReference) {
  for (const Axes& order : kOrders) {
    const Angles a{30.0, 20.0, -40.0};
    const Quat q = quat_from_euler_deg(order, a);
    // +-360 on each angle independently.
    const Angles shifted{a[0] + 360.0, a[1] - 720.0, a[2] - 360.0};
    expect_angles_near(euler_from_quat_deg(q, order, shifted), shifted, 1e-9, order_name(order));
    // The other branch (a + 180, 180 - b, c + 180) when the reference is there.
    const Angles other{a[0] + 180.0, 180.0 - a[1], a[2] + 180.0};
    const Angles got = euler_from_quat_deg(q, order, {200.0, 150.0, 150.0});
    expect_angles_near(got, other, 1e-9, order_name(order));
    EXPECT_LT(rotation_gap_deg(quat_from_euler_deg(order, got), q), 1e-10);
  }
}

// Of the two branches, the one closer to the references, also when the references are far
// enough off (gaps around and beyond 90 degrees) that the second branch may win: the first
// branch is taken without looking at the second only where the second cannot be closer.
TEST(BvhEuler, PicksTheBranchClosestToTheReferences) {
  std::mt19937 rng(77);
  std::uniform_real_distribution<double> outer(-180.0, 180.0), middle(-85.0, 85.0),
      off(-130.0, 130.0);
  auto distance = [](const Angles& a, const Angles& ref) {
    double d = 0.0;
    for (int n = 0; n < 3; ++n) d += (a[n] - ref[n]) * (a[n] - ref[n]);
    return d;
  };
  int second_won = 0;
  for (const Axes& order : kOrders) {
    for (int n = 0; n < 3000; ++n) {
      const Angles a{outer(rng), middle(rng), outer(rng)};
      const Quat q = quat_from_euler_deg(order, a);
      const Angles ref{a[0] + off(rng), a[1] + off(rng), a[2] + off(rng)};
      const Angles got = euler_from_quat_deg(q, order, ref);
      ASSERT_LT(rotation_gap_deg(quat_from_euler_deg(order, got), q), 1e-9);
      const Angles other{nearest_equivalent_deg(got[0] + 180.0, ref[0]),
                         nearest_equivalent_deg(180.0 - got[1], ref[1]),
                         nearest_equivalent_deg(got[2] + 180.0, ref[2])};
      ASSERT_LE(distance(got, ref), distance(other, ref) + 1e-6)
          << order_name(order) << " case " << n;
      if (std::abs(nearest_equivalent_deg(got[1], a[1]) - a[1]) > 1.0) ++second_won;
    }
  }
  EXPECT_GT(second_won, 100) << "references far enough off to pick the second branch";
}

TEST(BvhEuler, AnglesBeyondOneTurnStayContinuous) {
  // A joint that spun 2.5 turns in the file: the writer must not jump back by 720 degrees.
  const Axes zyx{2, 1, 0};
  const Angles a{905.25, 10.0, -370.5};
  const Quat q = quat_from_euler_deg(zyx, a);
  expect_angles_near(euler_from_quat_deg(q, zyx, a), a, 1e-9, "ZYX");
  EXPECT_DOUBLE_EQ(nearest_equivalent_deg(-175.0, 179.0), 185.0);
  EXPECT_DOUBLE_EQ(nearest_equivalent_deg(10.0, 10.0), 10.0);
  // Halfway cases round away from zero, as std::round does: 540 degrees apart is 1.5 turns.
  EXPECT_EQ(nearest_equivalent_deg(0.0, 540.0), 720.0);
  EXPECT_EQ(nearest_equivalent_deg(0.0, -540.0), -720.0);
  // Far references, and the formula with std::round on random ones.
  EXPECT_EQ(nearest_equivalent_deg(10.0, 3610.0), 3610.0);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> angle(-400.0, 400.0), far(-1e6, 1e6);
  for (int n = 0; n < 100000; ++n) {
    const double degrees = angle(rng), reference = n % 2 ? far(rng) : angle(rng);
    const double turns = std::round((reference - degrees) / 360.0);
    const double expected =
        (reference - degrees < 179.0 && reference - degrees > -179.0) || turns == 0.0
            ? degrees
            : degrees + 360.0 * turns;
    ASSERT_EQ(nearest_equivalent_deg(degrees, reference), expected) << degrees << " " << reference;
  }
}

TEST(BvhEuler, GimbalLockKeepsOriginalAngles) {
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> outer(-180.0, 180.0);
  for (const Axes& order : kOrders) {
    for (double middle : {90.0, -90.0}) {
      for (int n = 0; n < 200; ++n) {
        const Angles a{outer(rng), middle, outer(rng)};
        const Quat q = quat_from_euler_deg(order, a);
        const Angles got = euler_from_quat_deg(q, order, a);
        expect_angles_near(got, a, 1e-7, order_name(order) + " at " + std::to_string(middle));
        EXPECT_LT(rotation_gap_deg(quat_from_euler_deg(order, got), q), 1e-9);
      }
    }
  }
}

TEST(BvhEuler, GimbalLockSplitsTheCoupledAngleEvenly) {
  // ZYX with Y = 90: only Z - X... is defined; a reference off by 10 degrees in the first angle
  // is met halfway by both outer angles, and the rotation is still exact.
  const Axes zyx{2, 1, 0};
  const Angles a{40.0, 90.0, 25.0};
  const Quat q = quat_from_euler_deg(zyx, a);
  const Angles reference{50.0, 90.0, 25.0};
  const Angles got = euler_from_quat_deg(q, zyx, reference);
  EXPECT_NEAR(got[1], 90.0, 1e-7);
  EXPECT_LT(rotation_gap_deg(quat_from_euler_deg(zyx, got), q), 1e-9);
  EXPECT_NEAR(std::abs(got[0] - reference[0]), 5.0, 1e-6);
  EXPECT_NEAR(std::abs(got[2] - reference[2]), 5.0, 1e-6);
}

TEST(BvhEuler, NearGimbalLockIsAccurate) {
  for (const Axes& order : kOrders) {
    for (double middle : {89.9999, 89.999999, -89.99999, 90.000001}) {
      const Angles a{-123.456789, middle, 77.654321};
      const Quat q = quat_from_euler_deg(order, a);
      const Angles got = euler_from_quat_deg(q, order, a);
      EXPECT_LT(rotation_gap_deg(quat_from_euler_deg(order, got), q), 1e-9) << order_name(order);
      // Printed with 6 decimals these must read back as the same numbers.
      expect_angles_near(got, a, 5e-7, order_name(order) + " " + std::to_string(middle));
    }
  }
  // Sweep: middle angles within 0.01 degree of +-90, as a 6-decimal file would hold them.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> outer(-180.0, 180.0);
  std::uniform_real_distribution<double> offset(-0.01, 0.01);
  for (const Axes& order : kOrders) {
    for (int n = 0; n < 2000; ++n) {
      const double middle = std::round(((n % 2) ? 90.0 : -90.0) * 1e6 + offset(rng) * 1e6) / 1e6;
      const Angles a{std::round(outer(rng) * 1e6) / 1e6, middle,
                     std::round(outer(rng) * 1e6) / 1e6};
      const Angles got = euler_from_quat_deg(quat_from_euler_deg(order, a), order, a);
      expect_angles_near(got, a, 5e-8, order_name(order) + " " + std::to_string(middle));
    }
  }
}

TEST(BvhEuler, ArbitraryQuaternionsRecompose) {
  std::mt19937 rng(7);
  std::normal_distribution<double> g(0.0, 1.0);
  for (const Axes& order : kOrders) {
    for (int n = 0; n < 2000; ++n) {
      const Quat q = glm::normalize(Quat(g(rng), g(rng), g(rng), g(rng)));
      const Angles got = euler_from_quat_deg(q, order, {0.0, 0.0, 0.0});
      EXPECT_LT(rotation_gap_deg(quat_from_euler_deg(order, got), q), 1e-9) << order_name(order);
      for (double v : got) EXPECT_LE(std::abs(v), 180.0 + 1e-9);
      // Unnormalised input is accepted.
      const Angles scaled = euler_from_quat_deg(q * 3.0, order, {0.0, 0.0, 0.0});
      expect_angles_near(scaled, got, 1e-9, order_name(order));
    }
  }
}

}  // namespace
