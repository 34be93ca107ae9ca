// Retargeting goals of issue 6 on the shared pairs (../shared/data/retarget), end to end in
// process: load the source clip and the target character file as `ikfix retarget` does, map
// automatically, transfer, run the foot stage on flat ground and on the bundled stairs, measure.
// Each case appends a row to retarget_table.md in the working folder (pair x terrain x metric,
// the transfer alone beside the final result), the table of the closing note.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "core/fk.hpp"
#include "core/legs.hpp"
#include "core/metrics.hpp"
#include "core/retarget/bone_map.hpp"
#include "core/retarget/retarget_pipeline.hpp"
#include "core/retarget/tail_legs.hpp"
#include "core/retarget/toe_reach.hpp"
#include "io/clip_io.hpp"
#include "io/terrain_io.hpp"
#include "tests/test_data.hpp"

namespace ikfix {
namespace {

struct PairCase {
  const char* id;
  const char* source;   // under ../shared/data
  const char* target;   // under ../shared/data
  double feet_shape;    // goal: leg end-effector error (mean), limb lengths
  bool rest_goal;       // P2, P5: bone directions within 1 deg mean, 3 deg max
  const char* terrain;  // "flat" or "stairs"
  // Ratchets at or above the goals (measured values in the rows of retarget_table.md).
  double min_contact_recall = 0.96;
  double max_float_mean_m = 0.002;  // goal 1 cm; all pairs are below 0.3 mm
  int arm_chains = 2;  // arms measured (shoulder to hand); 0 where the target has no hand joint
  double max_planted_tip_depth_m = 0.005;  // goal 2 mm planted; ratchet where not yet met
  double max_ground_gap_m = 0.01;          // goal 1 cm (rest on ground); ratchet where not met
};

std::string PrintTo(const PairCase& c) { return std::string(c.id) + "_" + c.terrain; }

class RetargetRegression : public ::testing::TestWithParam<PairCase> {};

core::LegRig detect(const io::LoadedClip& clip) {
  const auto d = core::detect_legs_at_rest(clip.skeleton, clip.space.to_world());
  EXPECT_TRUE(d.rig) << d.error;
  return d.rig.value_or(core::LegRig{});
}

double deg(double rad) { return rad * 180.0 / core::kPi; }

// The deepest toe tip (the toe's end site or leaf child) of `clip` under the terrain straight
// below it, over every frame, metres (0 when every tip is above it); `planted_only` limits it to
// the frames `contacts` marks for that leg.
double deepest_toe_tip(const core::Skeleton& sk, const core::Clip& clip,
                       const core::ClipSpace& space, const core::LegRig& legs,
                       const core::Terrain& terrain, const std::vector<char> (&contacts)[2],
                       bool planted_only) {
  std::vector<core::Transform> world(sk.joint_count());
  double deepest = 0;
  for (int f = 0; f < clip.frame_count; ++f) {
    core::forward_kinematics(sk, clip.frame(f), space.to_world(), world);
    for (int l = 0; l < 2; ++l) {
      const int toe = legs.legs[l].toe;
      const auto tip_ls = core::toe_tip_ls(sk, toe);
      if (!tip_ls || (planted_only && !contacts[l][f])) continue;
      const core::Vec3 tip = core::transform_point(world[toe], *tip_ls);
      const core::GroundHit g = terrain.ground_at(tip.x, tip.z);
      if (g.hit) deepest = std::max(deepest, g.height - tip.y);
    }
  }
  return deepest;
}

// The mean over the plants `ikfix check` finds on `clip` of the foot's lowest point above the
// terrain (ClipMetrics::mean_ground_gap_m, metres): how high the planted feet stand off it.
double mean_ground_gap(const core::Skeleton& sk, const core::Clip& clip,
                       const core::ClipSpace& space, const core::LegRig& legs,
                       const core::Terrain& terrain) {
  core::MetricsInput mi;
  mi.skeleton = &sk;
  mi.clip = &clip;
  mi.space = space;
  mi.rig = legs;
  mi.terrain = &terrain;
  return core::measure_clip(mi).mean_ground_gap_m;
}

TEST_P(RetargetRegression, MeetsTheRetargetGoals) {
  IKFIX_REQUIRE_SHARED_DATA();
  const PairCase& c = GetParam();
  const auto data = test::shared_data_dir();
  const io::LoadedClip source = io::load_clip(data / c.source);
  const io::LoadedClip target = io::load_character(data / c.target);
  const core::RestPose sp = core::make_rest_pose(source.skeleton, source.space.to_world());
  const core::RestPose tp = core::make_rest_pose(target.skeleton, target.space.to_world());
  const core::BoneMap map = core::auto_map(sp, tp);
  ASSERT_TRUE(map.missing_roles.empty());
  // 2-bone legs (P3, the barbarian): the ankles are virtual joints at the shins' tails, as
  // `ikfix retarget` does it.
  auto target_legs = core::target_leg_rig(map, target.skeleton);
  std::optional<core::TailLegs> tails;
  if (!target_legs && (tails = core::target_tail_legs(map, target.skeleton)))
    target_legs = tails->rig;
  ASSERT_TRUE(target_legs.has_value());
  const core::Skeleton& target_skeleton = tails ? tails->joints.skeleton : target.skeleton;

  const auto terrain_mesh = io::load_terrain_mesh(
      test::source_dir() / "data" / "terrain" / (std::string(c.terrain) + ".obj"), 1.0, 'y');
  const core::Terrain terrain(terrain_mesh);
  core::RetargetPipelineInput in;
  in.transfer.source = &source.skeleton;
  in.transfer.source_clip = &source.clip;
  in.transfer.source_space = source.space;
  in.transfer.source_legs = detect(source);
  in.transfer.target = &target_skeleton;
  in.transfer.target_space = target.space;
  in.transfer.target_legs = *target_legs;
  in.transfer.map = &map;
  in.terrain = &terrain;
  const core::RetargetPipelineResult r = core::retarget_and_fix(in);

  const auto& naive = r.transfer_quality;
  const auto& q = r.quality;
  double feet_ee = 0, hands_ee = 0;
  int arms = 0;
  for (const auto& chain : naive.chains) {
    const bool leg = chain.name.find("leg") != std::string::npos;
    arms += !leg;
    double& worst = leg ? feet_ee : hands_ee;
    worst = std::max(worst, chain.mean);
  }
  EXPECT_EQ(arms, c.arm_chains) << "arms measured";
  const double tip_depth = deepest_toe_tip(target_skeleton, r.clip, target.space, *target_legs,
                                           terrain, r.source_contacts, false);
  const double planted_tip_depth = deepest_toe_tip(target_skeleton, r.clip, target.space,
                                                   *target_legs, terrain, r.source_contacts, true);
  const double ground_gap =
      mean_ground_gap(target_skeleton, r.clip, target.space, *target_legs, terrain);
  {
    std::ofstream table("retarget_table.md", std::ios::app);
    char row[512];
    std::snprintf(
        row, sizeof row,
        "| %s | %s | %.3f | %.4f / %.4f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f | %.2f / "
        "%.2f | %.3f / %.3f | %.3f / %.3f | %.1e | %.2f / %.2f | %.2f |\n",
        c.id, c.terrain, r.transfer.scale, feet_ee, hands_ee, deg(naive.direction_error_mean_rad),
        deg(naive.direction_error_max_rad), 100 * naive.feet.slide_mean_mps,
        100 * q.feet.slide_mean_mps, 100 * naive.feet.slide_max_mps, 100 * q.feet.slide_max_mps,
        100 * q.feet.float_mean_m, 100 * naive.feet.penetration_max_m,
        100 * q.feet.penetration_max_m, naive.feet.contact_precision, q.feet.contact_precision,
        naive.feet.contact_recall, q.feet.contact_recall, q.max_bone_length_change, 100 * tip_depth,
        100 * planted_tip_depth, 100 * ground_gap);
    table << row;
  }

  // Shape (transfer): feet and hands where the source's are, in limb lengths.
  EXPECT_LE(feet_ee, c.feet_shape);
  EXPECT_LE(hands_ee, 0.07);
  if (c.rest_goal) {
    EXPECT_LE(deg(naive.direction_error_mean_rad), 1.0);
    EXPECT_LE(deg(naive.direction_error_max_rad), 3.0) << naive.direction_worst_bone;
  }
  // Feet after the foot stage, during the source's contacts.
  EXPECT_LE(q.feet.float_mean_m, c.max_float_mean_m);
  EXPECT_LE(q.feet.penetration_max_m, 0.002);
  EXPECT_LE(q.max_bone_length_change, 1e-5);
  // Toe tips (issue 16 item 4): a target toe longer than the source's keeps its tip out of the
  // ground on the source's contacts, and out of flat ground on every frame.
  EXPECT_LE(planted_tip_depth, c.max_planted_tip_depth_m);
  if (std::string(c.terrain) == "flat") {
    EXPECT_LE(tip_depth, 0.005);
  }
  EXPECT_LE(q.feet.slide_mean_mps, 0.005);
  // Planted feet touch the ground (issue 16's float goal, 1 cm) where the target's rest pose
  // stands on y = 0, so its own joints say how high they sit above its floor (retarget.hpp,
  // RetargetResult::target_rest_on_ground). A target placed elsewhere keeps the source's own
  // floor (a CMU clip's joints stand 2 to 7 cm above it), as `ikfix run` does.
  if (r.transfer.target_rest_on_ground) {
    EXPECT_LE(ground_gap, c.max_ground_gap_m);
  }
  // Contacts `check` finds on the output against the source's: goal 0.95 both ways, met on all
  // pairs (lowest: recall 0.964 P4 stairs, precision 0.984 P1 flat); ratcheted above the goal.
  EXPECT_GE(q.feet.contact_recall, c.min_contact_recall);
  EXPECT_GE(q.feet.contact_precision, 0.98);
}

const PairCase kPairs[] = {
    {"P1", "anim/bvh/cmu_02_01_walk.bvh", "retarget/kenney_rest.fbx", 0.02, false, "flat"},
    {"P1", "anim/bvh/cmu_02_01_walk.bvh", "retarget/kenney_rest.fbx", 0.02, false, "stairs"},
    {"P2", "anim/bvh/cmu_02_01_walk.bvh", "retarget/cesiumman_rest.glb", 0.02, true, "flat"},
    {"P2", "anim/bvh/cmu_02_01_walk.bvh", "retarget/cesiumman_rest.glb", 0.02, true, "stairs"},
    {"P4", "anim/bvh/cmu_60_01_salsa_sl_metres.bvh", "retarget/cmu_02_tpose_rest.bvh", 0.04, false,
     "flat"},
    {"P4", "anim/bvh/cmu_60_01_salsa_sl_metres.bvh", "retarget/cmu_02_tpose_rest.bvh", 0.04, false,
     "stairs"},
    {"P5", "anim/bvh/cmu_02_01_walk.bvh", "retarget/cmu_131_max_armsdown_rest.bvh", 0.02, true,
     "flat"},
    {"P5", "anim/bvh/cmu_02_01_walk.bvh", "retarget/cmu_131_max_armsdown_rest.bvh", 0.02, true,
     "stairs"},
    {"P6", "anim/bvh/boxing_toes.bvh", "retarget/cmu_02_tpose_rest.bvh", 0.02, false, "flat"},
    {"P6", "anim/bvh/boxing_toes.bvh", "retarget/cmu_02_tpose_rest.bvh", 0.02, false, "stairs"},
    {"P7", "anim/gltf/CesiumMan.glb", "retarget/cmu_02_tpose_rest.bvh", 0.04, false, "flat"},
    {"P7", "anim/gltf/CesiumMan.glb", "retarget/cmu_02_tpose_rest.bvh", 0.04, false, "stairs"},
    // P3: 2-bone legs ending in bone tails (virtual ankles); its arms end at `main` (forearm +
    // hand, no hand joint), so no arm chain is measured. Its foot is the virtual ankle alone (no
    // toe; the retarget reads no skinned sole), 8 cm above its sole at rest: planted as at rest,
    // that ankle stands 7.1 cm off the ground on average (the gap measured is the ankle's), so
    // the ground gap is held at that (a ratchet: 7.3 cm before the rest-on-ground rule).
    {"P3", "anim/bvh/cmu_02_01_walk.bvh", "retarget/barbarian_rest.glb", 0.02, false, "flat", 0.96,
     0.002, 0, 0.005, 0.072},
    {"P3", "anim/bvh/cmu_02_01_walk.bvh", "retarget/barbarian_rest.glb", 0.02, false, "stairs",
     0.96, 0.002, 0, 0.005, 0.072},
};

INSTANTIATE_TEST_SUITE_P(SharedPairs, RetargetRegression, ::testing::ValuesIn(kPairs),
                         [](const auto& info) { return PrintTo(info.param); });

}  // namespace
}  // namespace ikfix
