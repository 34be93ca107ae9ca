// Which target joints follow a mapped pair, blend between two, or keep their rest pose
// (core::plan_target_drive): blends along a single-child spine run, weighted by rest length;
// excluded helpers do not break a run; long unmapped runs are planned in linear time.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/retarget/bone_map.hpp"
#include "core/retarget/rest_alignment.hpp"

namespace {

using namespace ikfix::core;

struct Target {
  Skeleton skeleton;
  std::vector<Transform> rest_ws;
  BoneMap map;

  int add(const std::string& name, int parent, double y) {
    skeleton.names.push_back(name);
    skeleton.parents.push_back(parent);
    Transform t;
    t.translation = Vec3(0.0, y, 0.0);
    skeleton.rest.push_back(t);
    skeleton.end_sites.push_back(std::nullopt);
    rest_ws.push_back(t);
    return static_cast<int>(skeleton.names.size()) - 1;
  }
  int map_to(int joint, const std::string& role) {
    BonePair pair;
    pair.source = joint;
    pair.target = joint;
    pair.role = role;
    map.pairs.push_back(pair);
    return static_cast<int>(map.pairs.size()) - 1;
  }
  TargetDrive plan() const { return plan_target_drive(map, skeleton, skeleton, rest_ws); }
};

TEST(TargetDrive, UnmappedSpineJointsBlendByRestLengthBetweenTheMappedOnes) {
  Target t;
  const int hips = t.add("hips", -1, 0.0);
  const int s1 = t.add("s1", hips, 0.1);
  const int s2 = t.add("s2", s1, 0.3);
  const int s3 = t.add("s3", s2, 0.6);
  const int chest = t.add("chest", s3, 1.0);
  const int head = t.add("head", chest, 1.2);
  const int p_hips = t.map_to(hips, "hips");
  const int p_chest = t.map_to(chest, "chest");
  const TargetDrive d = t.plan();
  EXPECT_EQ(d.kind[hips], TargetDrive::Mapped);
  EXPECT_EQ(d.kind[chest], TargetDrive::Mapped);
  EXPECT_EQ(d.kind[head], TargetDrive::Rest);  // nothing mapped below it
  const double expected[] = {0.1, 0.3, 0.6};
  for (int k = 0; k < 3; ++k) {
    const int j = s1 + k;
    EXPECT_EQ(d.kind[j], TargetDrive::Blend);
    EXPECT_EQ(d.pair_a[j], p_hips);
    EXPECT_EQ(d.pair_b[j], p_chest);
    EXPECT_NEAR(d.weight[j], expected[k], 1e-12);
  }
}

TEST(TargetDrive, ExcludedHelpersKeepARunAndASecondChildEndsIt) {
  Target t;
  const int hips = t.add("hips", -1, 0.0);
  const int s1 = t.add("s1", hips, 0.2);
  const int helper = t.add("helper", s1, 0.25);
  const int s2 = t.add("s2", s1, 0.5);
  const int branch = t.add("branch", s2, 0.55);
  const int s3 = t.add("s3", s2, 0.7);
  const int chest = t.add("chest", s3, 1.0);
  t.map_to(hips, "hips");
  t.map_to(chest, "chest");
  t.map.excluded_target.push_back(helper);
  const TargetDrive d = t.plan();
  EXPECT_EQ(d.kind[helper], TargetDrive::Rest);
  EXPECT_EQ(d.kind[branch], TargetDrive::Rest);
  EXPECT_EQ(d.kind[s1], TargetDrive::Rest);  // its run goes on to s2, which has two children
  EXPECT_EQ(d.kind[s2], TargetDrive::Rest);
  EXPECT_EQ(d.kind[s3], TargetDrive::Blend);
  EXPECT_NEAR(d.weight[s3], 0.7, 1e-12);
}

TEST(TargetDrive, ASidedNeighbourMeansNoBlend) {
  Target t;
  const int shoulder = t.add("shoulder", -1, 0.0);
  const int twist = t.add("twist", shoulder, 0.1);
  const int elbow = t.add("elbow", twist, 0.3);
  t.map_to(shoulder, "left_upper_arm");
  t.map_to(elbow, "left_lower_arm");
  EXPECT_EQ(t.plan().kind[twist], TargetDrive::Rest);
}

// 50,000 unmapped joints in one run: walking the run from every joint (up and down, with a
// child search per step) was quadratic to cubic in its length.
TEST(TargetDrive, ALongUnmappedRunIsPlannedInLinearTime) {
  Target t;
  constexpr int kRun = 50000;
  int parent = t.add("hips", -1, 0.0);
  t.map_to(parent, "hips");
  for (int k = 1; k <= kRun; ++k) parent = t.add("s" + std::to_string(k), parent, 1e-3 * k);
  const int chest = t.add("chest", parent, 1e-3 * (kRun + 1));
  t.map_to(chest, "chest");
  const TargetDrive d = t.plan();
  double previous = 0.0;
  for (int j = 1; j <= kRun; ++j) {
    ASSERT_EQ(d.kind[j], TargetDrive::Blend) << j;
    ASSERT_GT(d.weight[j], previous) << j;
    ASSERT_NEAR(d.weight[j], static_cast<double>(j) / (kRun + 1), 1e-9) << j;
    previous = d.weight[j];
  }
}

}  // namespace
