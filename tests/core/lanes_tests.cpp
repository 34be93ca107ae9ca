#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "core/lanes.hpp"

namespace ikfix::core {
namespace {

// Bitwise equality (0.0 and -0.0 differ, as they may in an output file).
bool same_bits(const Vec3& a, const Vec3& b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(const Quat& a, const Quat& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct Samples {
  std::mt19937 rng{23};
  std::uniform_real_distribution<double> u{-2.0, 2.0};
  Vec3 vec() { return Vec3(u(rng), u(rng), u(rng)); }
  // Unit and non-unit quaternions: the lanes must match glm on whatever they are given.
  Quat quat(bool unit) {
    const Quat q(u(rng), u(rng), u(rng), u(rng));
    return unit ? glm::normalize(q) : q;
  }
  Transform transform() { return Transform{vec(), quat(true), Vec3(0.5) + 0.25 * glm::abs(vec())}; }
};

TEST(Lanes, QuatProductsAreGlmsInEachLane) {
  Samples s;
  for (int i = 0; i < 200; ++i) {
    const Quat p0 = s.quat(i % 2 == 0), p1 = s.quat(true), q0 = s.quat(true),
               q1 = s.quat(i % 3 == 0);
    const LaneQuat pq = lanes_of(p0, p1) * lanes_of(q0, q1);
    EXPECT_TRUE(same_bits(lane(pq, 0), p0 * q0)) << i;
    EXPECT_TRUE(same_bits(lane(pq, 1), p1 * q1)) << i;
    const Vec3 v0 = s.vec(), v1 = s.vec();
    const LaneVec3 pv = lanes_of(p0, p1) * lanes_of(v0, v1);
    EXPECT_TRUE(same_bits(lane(pv, 0), p0 * v0)) << i;
    EXPECT_TRUE(same_bits(lane(pv, 1), p1 * v1)) << i;
  }
}

TEST(Lanes, ComposeAndTransformPointAreMathsInEachLane) {
  Samples s;
  for (int i = 0; i < 200; ++i) {
    const Transform a0 = s.transform(), a1 = s.transform(), b0 = s.transform(), b1 = s.transform();
    const LaneTransform ab = compose(lanes_of(a0, a1), lanes_of(b0, b1));
    Transform out0, out1;
    store_lane(ab, 0, out0);
    store_lane(ab, 1, out1);
    const Transform want0 = compose(a0, b0), want1 = compose(a1, b1);
    EXPECT_TRUE(same_bits(out0.translation, want0.translation) &&
                same_bits(out0.rotation, want0.rotation) && same_bits(out0.scale, want0.scale))
        << i;
    EXPECT_TRUE(same_bits(out1.translation, want1.translation) &&
                same_bits(out1.rotation, want1.rotation) && same_bits(out1.scale, want1.scale))
        << i;
    const Vec3 p0 = s.vec(), p1 = s.vec();
    const LaneVec3 moved = transform_point(lanes_of(a0, a1), lanes_of(p0, p1));
    EXPECT_TRUE(same_bits(lane(moved, 0), transform_point(a0, p0))) << i;
    EXPECT_TRUE(same_bits(lane(moved, 1), transform_point(a1, p1))) << i;
  }
}

// Signed zeros keep their sign in each lane as in glm (an identity rotation of -0.0 stays -0.0).
TEST(Lanes, SignedZerosAsGlm) {
  const Quat identity(1.0, -0.0, 0.0, -0.0);
  const Vec3 zero(-0.0, 0.0, -0.0);
  const LaneVec3 v = lanes_of(identity, identity) * lanes_of(zero, Vec3(0.0));
  EXPECT_TRUE(same_bits(lane(v, 0), identity * zero));
  EXPECT_TRUE(same_bits(lane(v, 1), identity * Vec3(0.0)));
}

}  // namespace
}  // namespace ikfix::core
