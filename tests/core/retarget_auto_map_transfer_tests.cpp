// The automatic bone map drives the motion transfer as well as the hand-written maps of
// pairs.json do (the goals of retarget_transfer_tests.cpp, per pair), and its target leg rig is
// the one leg detection finds.
#include <gtest/gtest.h>

#include <cstdio>

#include "core/retarget/retarget_pipeline.hpp"
#include "io/clip_io.hpp"
#include "tests/retarget_test_util.hpp"
#include "tests/test_data.hpp"

namespace ikfix {
namespace {

double degrees(double rad) { return rad * 180.0 / core::kPi; }

struct Case {
  const char* id;
  const char* source;  // under ../shared/data
  const char* target;
  std::optional<double> target_metres_per_unit;
  bool exact_directions;  // false: hands reach the source's, elbows bend differently (P6)
};

TEST(RetargetAutoMap, TransferMeetsTheRestAndShapeGoals) {
  IKFIX_REQUIRE_SHARED_DATA();
  const Case cases[] = {
      {"P2", "anim/bvh/cmu_02_01_walk.bvh", "retarget/cesiumman_rest.bvh", 1.0, true},
      {"P5", "anim/bvh/cmu_02_01_walk.bvh", "retarget/cmu_131_max_armsdown_rest.bvh", std::nullopt,
       true},
      {"P6", "anim/bvh/boxing_toes.bvh", "retarget/cmu_02_tpose_rest.bvh", std::nullopt, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.id);
    const io::LoadedClip source = io::load_clip(test::shared_data_dir() / c.source);
    io::ClipLoadOptions options;
    options.metres_per_unit = c.target_metres_per_unit;
    const io::LoadedClip target = io::load_character(test::shared_data_dir() / c.target, options);
    const core::RestPose src_rest = core::make_rest_pose(source.skeleton, source.space.to_world());
    const core::RestPose tgt_rest = core::make_rest_pose(target.skeleton, target.space.to_world());
    const core::BoneMap map = core::auto_map(src_rest, tgt_rest);
    ASSERT_TRUE(map.missing_roles.empty());
    const auto target_legs = core::target_leg_rig(map, target.skeleton);
    ASSERT_TRUE(target_legs.has_value());
    const core::LegRig detected = test::legs_of(target);
    for (int side = 0; side < 2; ++side) {
      EXPECT_EQ(target_legs->legs[side].hip, detected.legs[side].hip);
      EXPECT_EQ(target_legs->legs[side].knee, detected.legs[side].knee);
      EXPECT_EQ(target_legs->legs[side].ankle, detected.legs[side].ankle);
    }
    core::RetargetPipelineInput in;
    in.transfer.source = &source.skeleton;
    in.transfer.source_clip = &source.clip;
    in.transfer.source_space = source.space;
    in.transfer.source_legs = test::legs_of(source);
    in.transfer.target = &target.skeleton;
    in.transfer.target_space = target.space;
    in.transfer.target_legs = *target_legs;
    in.transfer.map = &map;
    in.fix_feet = false;
    const core::RetargetPipelineResult r = core::retarget_and_fix(in);
    const auto& q = r.transfer_quality;
    std::printf("%s auto map: direction error mean %.3f max %.3f deg", c.id,
                degrees(q.direction_error_mean_rad), degrees(q.direction_error_max_rad));
    for (const auto& chain : q.chains) std::printf(", %s %.4f", chain.name.c_str(), chain.mean);
    std::printf("\n");
    if (c.exact_directions) {
      EXPECT_LE(degrees(q.direction_error_mean_rad), 1.0);
      EXPECT_LE(degrees(q.direction_error_max_rad), 3.0) << q.direction_worst_bone;
    } else {
      EXPECT_LE(degrees(q.direction_error_mean_rad), 5.0) << q.direction_worst_bone;
    }
    for (const auto& chain : q.chains)
      EXPECT_LE(chain.mean, chain.name.find("leg") != std::string::npos ? 0.02 : 0.07)
          << chain.name;
  }
}

}  // namespace
}  // namespace ikfix
