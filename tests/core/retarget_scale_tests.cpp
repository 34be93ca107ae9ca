// Retarget's body finding and automatic map stay near-linear in joints (issue 19 row 6 and item
// 4): 10^5 props hanging below the feet (every pair of them was tried as a pair of legs), a comb
// 10^5 joints deep (each tooth walked the chain below it), and a self map pairing 10^5
// same-named props (each looked through every target joint). Each took minutes or more when
// quadratic; ctest's timeout bounds them now.
#include <gtest/gtest.h>

#include <string>

#include "core/retarget/body_parts.hpp"
#include "core/retarget/bone_map.hpp"

namespace {

using namespace ikfix::core;

enum class Extra { props_below_feet, comb };

// i in letters ("a", "b", ..., "ba", ...): joint names compare by their letters, digits dropped.
std::string letters(int i) {
  std::string out;
  do {
    out.insert(out.begin(), static_cast<char>('a' + i % 26));
    i /= 26;
  } while (i > 0);
  return out;
}

// A standing biped (hips 1 m up, mirror legs of thigh, shin, foot) with `extra` more joints
// under the hips: single-bone props reaching 0.2 m below the feet, or a comb (a chain going
// down 1 µm per joint with a short tooth at each). Built directly: no name look-ups.
Skeleton biped_with(int extra, Extra kind) {
  Skeleton s;
  auto add = [&](std::string name, int parent, Vec3 offset, std::optional<Vec3> end) {
    s.names.push_back(std::move(name));
    s.parents.push_back(parent);
    Transform rest;
    rest.translation = offset;
    s.rest.push_back(rest);
    s.end_sites.push_back(end);
    return s.joint_count() - 1;
  };
  const int hips = add("Hips", -1, Vec3(0, 1.0, 0), std::nullopt);
  for (const char* side : {"Left", "Right"}) {
    const double x = side[0] == 'L' ? 0.1 : -0.1;
    const int thigh = add(std::string(side) + "UpLeg", hips, Vec3(x, -0.05, 0), std::nullopt);
    const int shin = add(std::string(side) + "Leg", thigh, Vec3(0, -0.43, 0.01), std::nullopt);
    add(std::string(side) + "Foot", shin, Vec3(0, -0.43, -0.01), Vec3(0, -0.07, 0.12));
  }
  int chain = hips;
  for (int i = 0; i < extra; ++i) {
    const std::string n = std::to_string(i);
    if (kind == Extra::props_below_feet) {
      add("prop" + letters(i), hips, Vec3(0.001 * (i % 97), -0.6, 0.001 * (i % 89)),
          Vec3(0, -0.6, 0));
    } else {
      chain = add("comb" + n, chain, Vec3(0, -1e-6, 0), std::nullopt);
      add("tooth" + n, chain, Vec3(0.01, -1e-6, 0), std::nullopt);
      ++i;
    }
  }
  return s;
}

void expect_biped_legs(const Skeleton& s, const BodyParts& body) {
  ASSERT_GE(body.hips, 0);
  EXPECT_EQ(s.names[body.hips], "Hips");
  EXPECT_EQ(s.names[body.legs[0].thigh], "LeftUpLeg");
  EXPECT_EQ(s.names[body.legs[0].shin], "LeftLeg");
  EXPECT_EQ(s.names[body.legs[0].foot], "LeftFoot");
  EXPECT_EQ(s.names[body.legs[1].thigh], "RightUpLeg");
  EXPECT_EQ(s.names[body.legs[1].foot], "RightFoot");
}

TEST(RetargetScale, LegsAmongAHundredThousandPropsHangingBelowTheFeet) {
  const Skeleton s = biped_with(100000, Extra::props_below_feet);
  ASSERT_EQ(s.validate(), "");
  const RestPose rest = make_rest_pose(s, Transform{});
  expect_biped_legs(s, find_body_parts(rest));
}

TEST(RetargetScale, LegsBesideAHundredThousandJointComb) {
  const Skeleton s = biped_with(100000, Extra::comb);
  ASSERT_EQ(s.validate(), "");
  const RestPose rest = make_rest_pose(s, Transform{});
  expect_biped_legs(s, find_body_parts(rest));
}

TEST(RetargetScale, ASelfMapPairsTenThousandSameNamedProps) {
  const Skeleton s = biped_with(10000, Extra::props_below_feet);
  const RestPose rest = make_rest_pose(s, Transform{});
  const BoneMap map = auto_map(rest, rest);
  int props = 0;
  for (const BonePair& p : map.pairs)
    if (p.source == p.target && s.names[p.source].rfind("prop", 0) == 0) ++props;
  EXPECT_EQ(props, 10000);
}

}  // namespace
