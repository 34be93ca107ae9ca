// FootModel: the heel, ball and toe tip of a synthetic skeleton at rest and posed, the toe tip
// estimated when the toe has no end site, and the sole's vertices chosen from a synthetic Skin
// and posed by linear blend skinning.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/fk.hpp"
#include "core/foot_model.hpp"
#include "retarget_test_rigs.hpp"

namespace ikfix::core {
namespace {

// The synthetic humanoid (retarget_test_rigs.hpp): left ankle at (0.1, 0.09, 0), its toe
// joint (the ball) at (0.1, 0.02, 0.12), the toe's end site 5 cm ahead of it.
struct Rig {
  Skeleton skeleton;
  Leg left;
};

Rig humanoid_rig(bool toe_end_site = true) {
  auto joints = test::humanoid(test::mixamo);
  if (!toe_end_site)
    for (auto& j : joints)
      if (j.name == "mixamorig:LeftToeBase") j.end.reset();
  Rig r{test::build(joints), {}};
  const Skeleton& s = r.skeleton;
  r.left = Leg{s.find("mixamorig:LeftUpLeg"), s.find("mixamorig:LeftLeg"),
               s.find("mixamorig:LeftFoot"), s.find("mixamorig:LeftToeBase")};
  return r;
}

std::vector<Transform> world_of(const Skeleton& s, const std::vector<Transform>& locals) {
  std::vector<Transform> world(s.joint_count());
  forward_kinematics(s, locals, Transform{}, world);
  return world;
}

void expect_near(const Vec3& a, const Vec3& b, const char* what) {
  EXPECT_NEAR(glm::length(a - b), 0.0, 1e-12)
      << what << ": (" << a.x << ", " << a.y << ", " << a.z << ") vs (" << b.x << ", " << b.y
      << ", " << b.z << ")";
}

TEST(FootModel, HeelBallAndToeTipAtRestAndPosed) {
  const Rig r = humanoid_rig();
  const FootModel foot = build_foot_model(r.skeleton, r.left, Transform{});
  ASSERT_EQ(foot.point_count(), 4);
  EXPECT_EQ(foot.kind(0), FootPointKind::Ankle);
  EXPECT_EQ(foot.kind(1), FootPointKind::Heel);
  EXPECT_EQ(foot.kind(2), FootPointKind::Ball);
  EXPECT_EQ(foot.kind(3), FootPointKind::ToeTip);
  EXPECT_STREQ(foot_point_name(foot.kind(3)), "toe_tip");
  EXPECT_EQ(foot.tip_source, ToeTipSource::EndSite);
  EXPECT_NEAR(foot.toe_length_m, 0.05, 1e-12);
  EXPECT_NEAR(foot.sole_height_m, 0.07, 1e-12);  // ankle 0.09, ball and tip 0.02
  std::vector<Vec3> at_rest;
  pose_foot_points(foot, nullptr, world_of(r.skeleton, r.skeleton.rest), at_rest);
  expect_near(at_rest[0], Vec3(0.1, 0.09, 0.0), "ankle");
  expect_near(at_rest[1], Vec3(0.1, 0.02, 0.0), "heel");
  expect_near(at_rest[2], Vec3(0.1, 0.02, 0.12), "ball");
  expect_near(at_rest[3], Vec3(0.1, 0.02, 0.17), "toe tip");
  // The ankle turned 90 degrees about x (toes down): the heel turns with it, 7 cm behind the
  // ankle now; the ball and tip follow the toe joint.
  std::vector<Transform> locals = r.skeleton.rest;
  locals[r.left.ankle].rotation = axis_angle(Vec3(1, 0, 0), kPi / 2);
  const std::vector<Transform> world = world_of(r.skeleton, locals);
  std::vector<Vec3> posed;
  pose_foot_points(foot, nullptr, world, posed);
  expect_near(posed[1], Vec3(0.1, 0.09, -0.07), "turned heel");
  expect_near(posed[2], world[r.left.toe].translation, "turned ball");
  expect_near(posed[3], transform_point(world[r.left.toe], Vec3(0, 0, 0.05)), "turned tip");
}

TEST(FootModel, ToeTipEstimatedWithoutAnEndSite) {
  const Rig r = humanoid_rig(false);
  const FootModel foot = build_foot_model(r.skeleton, r.left, Transform{});
  EXPECT_EQ(foot.tip_source, ToeTipSource::Estimated);
  EXPECT_STREQ(toe_tip_source_name(foot.tip_source), "estimated");
  // Ball plus the foot's horizontal direction times 0.4 of the ankle-to-ball horizontal length.
  EXPECT_NEAR(foot.toe_length_m, kEstimatedToeFraction * 0.12, 1e-12);
  std::vector<Vec3> at_rest;
  pose_foot_points(foot, nullptr, world_of(r.skeleton, r.skeleton.rest), at_rest);
  expect_near(at_rest[3], Vec3(0.1, 0.02, 0.12 + kEstimatedToeFraction * 0.12), "toe tip");
}

// A clip's FBX keeps its "*_end" bones as joints (cmu_07_01_walk_skeleton.fbx's
// RightToeBase_end, 6.0 cm past the ball, where the estimate gave 4.4 cm and `ikfix check` saw
// the tip 2.1 mm shallower than Blender did): the toe's one leaf child is its end, an end site.
// A toe child with children of its own is no end.
TEST(FootModel, ToeTipAtTheToesOneLeafChildJoint) {
  auto joints = test::humanoid(test::mixamo);
  for (auto& j : joints)
    if (j.name == "mixamorig:LeftToeBase") j.end.reset();
  joints.push_back({"mixamorig:LeftToeBase_end", "mixamorig:LeftToeBase", Vec3(0, 0, 0.06), {}});
  Rig r{test::build(joints), {}};
  const Skeleton& s = r.skeleton;
  r.left = Leg{s.find("mixamorig:LeftUpLeg"), s.find("mixamorig:LeftLeg"),
               s.find("mixamorig:LeftFoot"), s.find("mixamorig:LeftToeBase")};
  const FootModel foot = build_foot_model(s, r.left, Transform{});
  EXPECT_EQ(foot.tip_source, ToeTipSource::EndSite);
  EXPECT_NEAR(foot.toe_length_m, 0.06, 1e-12);
  std::vector<Vec3> at_rest;
  pose_foot_points(foot, nullptr, world_of(s, s.rest), at_rest);
  expect_near(at_rest[3], Vec3(0.1, 0.02, 0.18), "toe tip");

  joints.push_back({"grandchild", "mixamorig:LeftToeBase_end", Vec3(0, 0, 0.01), {}});
  const Skeleton deeper = test::build(joints);
  const FootModel estimated = build_foot_model(deeper, r.left, Transform{});
  EXPECT_EQ(estimated.tip_source, ToeTipSource::Estimated);
}

TEST(FootModel, NoToeAndNoEndSiteIsAnkleAndHeel) {
  Rig r = humanoid_rig();
  r.left.toe = -1;  // the toe joint not part of the leg, and the ankle has no end site
  const FootModel foot = build_foot_model(r.skeleton, r.left, Transform{});
  EXPECT_EQ(foot.tip_source, ToeTipSource::None);
  EXPECT_EQ(foot.point_count(), 2);
  EXPECT_EQ(foot.sole_height_m, 0.0);
}

// A vertex on `joint` at world position `p_ws` of the rest pose (one influence), or shared by
// two joints.
SkinnedVertex vertex_on(const std::vector<Transform>& rest_ws, int joint, const Vec3& p_ws) {
  SkinnedVertex v;
  v.joint[0] = joint;
  v.weight[0] = 1.0;
  v.local[0] = inverse_transform_point(rest_ws[joint], p_ws);
  return v;
}

SkinnedVertex vertex_on_two(const std::vector<Transform>& rest_ws, int a, int b, double weight_a,
                            const Vec3& p_ws) {
  SkinnedVertex v = vertex_on(rest_ws, a, p_ws);
  v.weight[0] = weight_a;
  v.joint[1] = b;
  v.weight[1] = 1.0 - weight_a;
  v.local[1] = inverse_transform_point(rest_ws[b], p_ws);
  return v;
}

TEST(FootModel, SoleVerticesAreTheLowestOnTheFootAndArePosedByBlendSkinning) {
  const Rig r = humanoid_rig();
  const std::vector<Transform> rest_ws = world_of(r.skeleton, r.skeleton.rest);
  const int shin = r.left.knee, ankle = r.left.ankle, toe = r.left.toe;
  Skin skin;
  skin.vertices.push_back(vertex_on(rest_ws, ankle, Vec3(0.1, 0.0, -0.03)));  // 0 heel sole
  skin.vertices.push_back(vertex_on(rest_ws, toe, Vec3(0.1, 0.005, 0.15)));   // 1 toe sole
  skin.vertices.push_back(vertex_on(rest_ws, ankle, Vec3(0.1, 0.08, 0.02)));  // 2 instep: high
  skin.vertices.push_back(vertex_on(rest_ws, shin, Vec3(0.1, -0.01, 0.0)));   // 3 not the foot
  skin.vertices.push_back(vertex_on_two(rest_ws, shin, ankle, 0.6, Vec3(0.1, 0.01, 0.0)));  // 4
  skin.vertices.push_back(vertex_on_two(rest_ws, ankle, toe, 0.5, Vec3(0.1, 0.01, 0.1)));   // 5
  const FootModel foot = build_foot_model(r.skeleton, r.left, Transform{}, &skin);
  // The foot's lowest is 0.0; the band reaches a quarter of the way up to the ankle (0.0225);
  // the instep, above the band but below the ankle, is the foot's outline.
  EXPECT_EQ(foot.sole_vertices, (std::vector<int>{0, 1, 2, 5}));
  EXPECT_NEAR(foot.sole_height_m, 0.09, 1e-12);
  EXPECT_EQ(foot.point_count(), 4 + 4);
  EXPECT_EQ(foot.kind(5), FootPointKind::Sole);
  std::vector<Vec3> at_rest;
  pose_foot_points(foot, &skin, rest_ws, at_rest);
  expect_near(at_rest[1], Vec3(0.1, 0.0, 0.0), "heel on the sole");
  expect_near(at_rest[4], Vec3(0.1, 0.0, -0.03), "sole vertex 0");
  expect_near(at_rest[7], Vec3(0.1, 0.01, 0.1), "sole vertex 5");
  // The toe bent up 30 degrees: vertex 5 moves half way between its place on the ankle and its
  // place on the bent toe (linear blend skinning).
  std::vector<Transform> locals = r.skeleton.rest;
  locals[toe].rotation = axis_angle(Vec3(1, 0, 0), -kPi / 6);
  const std::vector<Transform> world = world_of(r.skeleton, locals);
  std::vector<Vec3> posed;
  pose_foot_points(foot, &skin, world, posed);
  const Vec3 on_toe = transform_point(world[toe], skin.vertices[5].local[1]);
  expect_near(posed[7], 0.5 * (Vec3(0.1, 0.01, 0.1) + on_toe), "blended vertex");
  EXPECT_GT(posed[5].y, 0.005 + 0.01);  // the toe's sole vertex rose with the toe
}

TEST(FootModel, AFootMeshOnTheShinBoneHasItsSoleThere) {
  // A 2-bone leg's foot mesh (Blender's barbarian): nothing skinned to the ankle and below, the
  // foot's vertices on the shin bone under the ankle (y 0.09 at rest).
  const Rig r = humanoid_rig();
  const std::vector<Transform> rest_ws = world_of(r.skeleton, r.skeleton.rest);
  const int shin = r.left.knee;
  Skin skin;
  skin.vertices.push_back(vertex_on(rest_ws, shin, Vec3(0.1, 0.0, 0.05)));    // 0 sole
  skin.vertices.push_back(vertex_on(rest_ws, shin, Vec3(0.1, 0.3, 0.0)));     // 1 the calf
  skin.vertices.push_back(vertex_on(rest_ws, shin, Vec3(0.1, 0.06, 0.1)));    // 2 instep
  skin.vertices.push_back(vertex_on(rest_ws, shin, Vec3(0.1, 0.01, -0.03)));  // 3 sole
  // 4: the front of the foot at the ankle's height, half on a foot controller hanging from the
  // root whose rest pose is not where it was bound (0.5 m higher): blended at rest it would
  // stand 25 cm up the calf; the shin carries it at the ankle.
  SkinnedVertex front = vertex_on_two(rest_ws, shin, 0, 0.505, Vec3(0.1, 0.09, 0.12));
  front.local[1] += Vec3(0.0, 0.5, 0.0);
  skin.vertices.push_back(front);
  const FootModel foot = build_foot_model(r.skeleton, r.left, Transform{}, &skin);
  // The band (0 and 3), then the outline of the rest below the ankle: the instep (2), whose
  // front reaches a riser before the sole does, and the front vertex (4).
  EXPECT_EQ(foot.sole_vertices, (std::vector<int>{0, 2, 3, 4}));
  EXPECT_NEAR(foot.sole_height_m, 0.09, 1e-12);
}

TEST(FootModel, ManySoleVerticesAreSpreadOverTheSole) {
  const Rig r = humanoid_rig();
  const std::vector<Transform> rest_ws = world_of(r.skeleton, r.skeleton.rest);
  Skin skin;
  for (int i = 0; i < 20; ++i)
    for (int k = 0; k < 5; ++k)
      skin.vertices.push_back(vertex_on(
          rest_ws, r.left.ankle, Vec3(0.07 + 0.015 * k, 0.001 * ((i + k) % 3), -0.04 + 0.01 * i)));
  const FootModel a = build_foot_model(r.skeleton, r.left, Transform{}, &skin);
  const FootModel b = build_foot_model(r.skeleton, r.left, Transform{}, &skin);
  // The band's 32, and of the other 68 below the ankle (more than 64) those farthest out along
  // 64 directions.
  EXPECT_GT(a.sole_vertices.size(), 32u);
  EXPECT_LE(a.sole_vertices.size(), 32u + 64u);
  EXPECT_EQ(a.sole_vertices, b.sole_vertices);
  EXPECT_TRUE(std::is_sorted(a.sole_vertices.begin(), a.sole_vertices.end()));
  // Spread over the sole: the lowest vertex (where the sampling starts) and the one farthest
  // from it are kept, and every vertex of the sole lies within 2.5 cm (horizontally) of a kept
  // one (32 of 100 on a 6 x 19 cm sole: spaced about 2 cm).
  for (int kept : {0, 99})
    EXPECT_NE(std::find(a.sole_vertices.begin(), a.sole_vertices.end(), kept),
              a.sole_vertices.end())
        << kept;
  std::vector<Vec3> rest;
  pose_foot_points(a, &skin, rest_ws, rest);
  for (const SkinnedVertex& v : skin.vertices) {
    const Vec3 p = skinned_position(v, rest_ws);
    double nearest = 1e9;
    for (int k = 4; k < a.point_count(); ++k)
      nearest = std::min(nearest, std::hypot(rest[k].x - p.x, rest[k].z - p.z));
    EXPECT_LT(nearest, 0.025);
  }
}

}  // namespace
}  // namespace ikfix::core

namespace ikfix::core {
namespace {

// A foot with more vertices below the ankle than the outline keeps: the ones farthest out in
// every direction are kept (the toe's front, the heel's back, both sides), so that a plane
// (a riser, a tread) reaches one of them first.
TEST(FootModel, ALargeFootMeshKeepsItsOutline) {
  const Rig r = humanoid_rig();
  const std::vector<Transform> rest_ws = world_of(r.skeleton, r.skeleton.rest);
  Skin skin;
  // A 10 x 26 x 8 cm box of vertices around the foot, on the ankle, 11 x 27 x 9 of them.
  for (int i = 0; i <= 10; ++i)
    for (int j = 0; j <= 26; ++j)
      for (int k = 0; k <= 8; ++k)
        skin.vertices.push_back(
            vertex_on(rest_ws, r.left.ankle, Vec3(0.05 + 0.01 * i, 0.01 * k, -0.08 + 0.01 * j)));
  const FootModel foot = build_foot_model(r.skeleton, r.left, Transform{}, &skin);
  std::vector<Vec3> rest;
  pose_foot_points(foot, &skin, rest_ws, rest);
  double front = -1e9, back = 1e9, outer = -1e9, inner = 1e9;
  for (int i = static_cast<int>(foot.points.size()); i < foot.point_count(); ++i) {
    front = std::max(front, rest[i].z);
    back = std::min(back, rest[i].z);
    outer = std::max(outer, rest[i].x);
    inner = std::min(inner, rest[i].x);
  }
  EXPECT_NEAR(front, 0.18, 1e-9);
  EXPECT_NEAR(back, -0.08, 1e-9);
  EXPECT_NEAR(outer, 0.15, 1e-9);
  EXPECT_NEAR(inner, 0.05, 1e-9);
  EXPECT_LE(foot.sole_vertices.size(), 32u + 64u);
}

}  // namespace
}  // namespace ikfix::core
