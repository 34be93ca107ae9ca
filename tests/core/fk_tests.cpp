#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/fk.hpp"
#include "fk_test_skeletons.hpp"

namespace ikfix::core {
namespace {

using test_util::branching_skeleton;

std::vector<Transform> random_locals(std::mt19937& rng, int joints) {
  std::uniform_real_distribution<double> u(-1.0, 1.0), scale(0.5, 1.5);
  std::vector<Transform> locals(joints);
  for (Transform& t : locals) {
    t.translation = Vec3(u(rng), u(rng), u(rng));
    t.rotation = glm::normalize(Quat(u(rng), u(rng), u(rng), u(rng)));
    t.scale = Vec3(scale(rng), scale(rng), scale(rng));
  }
  return locals;
}

TEST(ForwardKinematicsPair, SameBitsAsTwoSingleFrames) {
  const Skeleton s = branching_skeleton();
  std::mt19937 rng(11);
  // Every joint, and a subset (one leg and the spine's end, with their ancestors).
  const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7, 8}, some = {2, 5};
  for (const auto* wanted : {&all, &some}) {
    const JointSubset subset(s, *wanted);
    for (int trial = 0; trial < 20; ++trial) {
      const auto a = random_locals(rng, s.joint_count()), b = random_locals(rng, s.joint_count());
      Transform to_world;
      to_world.translation = Vec3(0.1, -0.2, 0.3);
      to_world.rotation = glm::normalize(Quat(0.9, 0.1, -0.3, 0.2));
      to_world.scale = Vec3(0.01);
      std::vector<Transform> one_a(subset.size()), one_b(subset.size()), pair_a(subset.size()),
          pair_b(subset.size());
      forward_kinematics(subset, a, to_world, one_a);
      forward_kinematics(subset, b, to_world, one_b);
      forward_kinematics_pair(subset, a, b, to_world, pair_a, pair_b);
      EXPECT_EQ(std::memcmp(one_a.data(), pair_a.data(), one_a.size() * sizeof(Transform)), 0)
          << trial;
      EXPECT_EQ(std::memcmp(one_b.data(), pair_b.data(), one_b.size() * sizeof(Transform)), 0)
          << trial;
      // And the pair is FK at all: a child's world position is its parent's transform of its local
      // one.
      for (int k = 0; k < subset.size(); ++k) {
        const int p = subset.parent_slot[k];
        const Transform& parent = p < 0 ? to_world : pair_a[p];
        const Vec3 want = transform_point(parent, a[subset.joints[k]].translation);
        EXPECT_NEAR(glm::length(pair_a[k].translation - want), 0.0, 1e-12);
      }
    }
  }
}

// Past the pair's stack of lane transforms (64 joints) it takes frames one by one: the same bits
// either way, on a 70-joint chain with signed zeros and unit scales among the values.
TEST(ForwardKinematicsPair, SameBitsOnALongChainAndSignedZeros) {
  Skeleton s;
  for (int j = 0; j < 70; ++j) {
    s.names.push_back("j" + std::to_string(j));
    s.parents.push_back(j - 1);
    s.rest.push_back(Transform{});
    s.end_sites.push_back(std::nullopt);
  }
  std::mt19937 rng(5);
  auto a = random_locals(rng, 70), b = random_locals(rng, 70);
  a[3].translation = Vec3(-0.0, 0.0, -0.0);
  b[4].rotation = Quat(1.0, -0.0, 0.0, -0.0);
  a[5].scale = Vec3(1.0);
  for (const int last : {20, 69}) {
    const std::vector<int> wanted = {last};
    const JointSubset subset(s, wanted);
    std::vector<Transform> one_a(subset.size()), one_b(subset.size()), pair_a(subset.size()),
        pair_b(subset.size());
    forward_kinematics(subset, a, Transform{}, one_a);
    forward_kinematics(subset, b, Transform{}, one_b);
    forward_kinematics_pair(subset, a, b, Transform{}, pair_a, pair_b);
    EXPECT_EQ(std::memcmp(one_a.data(), pair_a.data(), one_a.size() * sizeof(Transform)), 0)
        << last;
    EXPECT_EQ(std::memcmp(one_b.data(), pair_b.data(), one_b.size() * sizeof(Transform)), 0)
        << last;
  }
}

}  // namespace
}  // namespace ikfix::core
