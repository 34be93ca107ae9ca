// check's whole-foot penetration: every FootModel point against the terrain solid, by vertical
// and nearest-surface depth, the worst named by frame, leg and point; the sole of a skin. The
// planted feet's ground gap: the lowest foot point above the terrain.
#include <gtest/gtest.h>

#include <cmath>

#include "core/fk.hpp"
#include "core/metrics.hpp"
#include "core/terrain_gen.hpp"
#include "retarget_test_rigs.hpp"

namespace ikfix::core {
namespace {

struct Humanoid {
  Skeleton skeleton;
  LegRig rig;
};

// The synthetic humanoid (retarget_test_rigs.hpp): ankles 9 cm up, balls and toe tips (5 cm
// ahead of the balls) 2 cm up, facing +z.
Humanoid humanoid() {
  Humanoid h{test::build(test::humanoid(test::mixamo)), {}};
  const Skeleton& s = h.skeleton;
  h.rig.pelvis = s.find("mixamorig:Hips");
  for (int l = 0; l < 2; ++l) {
    const std::string side = l == 0 ? "Left" : "Right";
    h.rig.legs[l] =
        Leg{s.find("mixamorig:" + side + "UpLeg"), s.find("mixamorig:" + side + "Leg"),
            s.find("mixamorig:" + side + "Foot"), s.find("mixamorig:" + side + "ToeBase")};
  }
  return h;
}

// The rest pose standing still for `frames` frames, the hips moved by `offset` (metres).
Clip standing(const Humanoid& h, int frames, const Vec3& offset) {
  Clip clip;
  clip.fps = 30.0;
  clip.frame_count = frames;
  clip.joint_count = h.skeleton.joint_count();
  for (int f = 0; f < frames; ++f)
    for (const Transform& t : h.skeleton.rest) clip.locals.push_back(t);
  for (int f = 0; f < frames; ++f) clip.at(f, h.rig.pelvis).translation += offset;
  return clip;
}

ClipMetrics measure(const Humanoid& h, const Clip& clip, const Terrain& ground,
                    const Skin* skin = nullptr) {
  MetricsInput in;
  in.skeleton = &h.skeleton;
  in.clip = &clip;
  in.rig = h.rig;
  in.terrain = &ground;
  in.skin = skin;
  return measure_clip(in);
}

// Standing at the foot of the stairs, toe tips 3 cm inside the first riser (z = 0.5), 13 cm
// under its tread: the joints are out, the toe tips are in.
TEST(MetricsFootPenetration, ToeTipsInsideARiser) {
  const Humanoid h = humanoid();
  const Terrain stairs(make_stairs_terrain(StairsParams{}));
  const ClipMetrics m = measure(h, standing(h, 20, Vec3(0, 0, 0.36)), stairs);
  EXPECT_EQ(m.penetration.value, 0.0);  // ankle and ball joints
  const FootPenetration& p = m.foot_penetration;
  EXPECT_NEAR(p.nearest.value, 0.03, 1e-9);
  EXPECT_EQ(p.nearest.point, "toe_tip");
  EXPECT_EQ(p.nearest.leg, 0);  // left first; the right ties
  EXPECT_EQ(p.nearest.frame, 0);
  EXPECT_NEAR(p.vertical.value, 0.13, 1e-9);
  EXPECT_EQ(p.vertical.point, "toe_tip");
  // Standing still: planted on every frame.
  EXPECT_NEAR(p.planted_nearest.value, 0.03, 1e-9);
  EXPECT_NEAR(p.planted_vertical.value, 0.13, 1e-9);
  ASSERT_FALSE(m.legs[1].plants.empty());
  EXPECT_NEAR(m.legs[1].plants[0].max_foot_penetration_m, 0.03, 1e-9);
  EXPECT_EQ(m.legs[0].toe_tip, ToeTipSource::EndSite);
  EXPECT_NEAR(m.legs[0].toe_length_m, 0.05, 1e-12);
  EXPECT_EQ(m.legs[0].sole_vertices, 0);
}

TEST(MetricsFootPenetration, NothingInsideIsZeroWithNoFrame) {
  const Humanoid h = humanoid();
  const Terrain flat(make_flat_terrain(FlatParams{}));
  const ClipMetrics m = measure(h, standing(h, 10, Vec3(0.0)), flat);
  EXPECT_EQ(m.foot_penetration.nearest.value, 0.0);
  EXPECT_EQ(m.foot_penetration.nearest.frame, -1);
  EXPECT_EQ(m.foot_penetration.planted_vertical.frame, -1);
}

// A skin with one vertex on the right foot's sole, 4 cm to the outside of the ankle, 5 mm up at
// rest. From frame 10 the right ankle rolls 0.3 rad outwards: that vertex goes 3 mm under the
// ground while the heel, ball and toe tip stay above it.
TEST(MetricsFootPenetration, SoleVerticesOfASkin) {
  const Humanoid h = humanoid();
  std::vector<Transform> rest_ws(h.skeleton.joint_count());
  forward_kinematics(h.skeleton, h.skeleton.rest, Transform{}, rest_ws);
  const int ankle = h.rig.legs[1].ankle;  // at (-0.1, 0.09, 0)
  Skin skin;
  SkinnedVertex v;
  v.joint[0] = ankle;
  v.weight[0] = 1.0;
  v.local[0] = inverse_transform_point(rest_ws[ankle], Vec3(-0.14, 0.005, 0.05));
  skin.vertices.push_back(v);
  Clip clip = standing(h, 20, Vec3(0.0));
  const double roll = 0.3;
  for (int f = 10; f < 20; ++f) clip.at(f, ankle).rotation = axis_angle(Vec3(0, 0, 1), roll);
  const Terrain flat(make_flat_terrain(FlatParams{}));
  const ClipMetrics m = measure(h, clip, flat, &skin);
  EXPECT_EQ(m.legs[1].sole_vertices, 1);
  EXPECT_EQ(m.legs[0].sole_vertices, 0);
  const double depth = -(0.09 - 0.04 * std::sin(roll) - 0.085 * std::cos(roll));
  EXPECT_NEAR(m.foot_penetration.nearest.value, depth, 1e-12);
  EXPECT_NEAR(m.foot_penetration.vertical.value, depth, 1e-12);
  EXPECT_EQ(m.foot_penetration.nearest.point, "sole");
  EXPECT_EQ(m.foot_penetration.nearest.leg, 1);
  EXPECT_EQ(m.foot_penetration.nearest.frame, 10);
  // Without the skin only the rigid points are measured: all above the ground.
  EXPECT_EQ(measure(h, clip, flat).foot_penetration.nearest.frame, -1);
}

// Standing 3 cm above flat ground: float (from each point's own planted level) sees nothing, the
// ground gap sees the balls and toe tips (2 cm up at rest) 5 cm above the terrain.
TEST(MetricsGroundGap, FeetStandingAboveTheGround) {
  const Humanoid h = humanoid();
  const Terrain flat(make_flat_terrain(FlatParams{}));
  const ClipMetrics m = measure(h, standing(h, 20, Vec3(0, 0.03, 0)), flat);
  EXPECT_NEAR(m.mean_float_m, 0.0, 1e-12);
  EXPECT_NEAR(m.mean_ground_gap_m, 0.05, 1e-9);
  EXPECT_NEAR(m.ground_gap.value, 0.05, 1e-9);
  EXPECT_EQ(m.ground_gap.point, "foot");
  for (int l = 0; l < 2; ++l) {
    ASSERT_EQ(m.legs[l].plants.size(), 1u);
    EXPECT_NEAR(m.legs[l].plants[0].ground_gap_m, 0.05, 1e-9);
  }
}

// A point inside the terrain counts as touching it (0), not as a negative gap: balls and tips
// 3 cm under the ground.
TEST(MetricsGroundGap, APointInsideIsZero) {
  const Humanoid h = humanoid();
  const Terrain flat(make_flat_terrain(FlatParams{}));
  const ClipMetrics m = measure(h, standing(h, 20, Vec3(0, -0.05, 0)), flat);
  EXPECT_EQ(m.mean_ground_gap_m, 0.0);
  ASSERT_FALSE(m.legs[0].plants.empty());
  EXPECT_EQ(m.legs[0].plants[0].ground_gap_m, 0.0);
}

}  // namespace
}  // namespace ikfix::core
