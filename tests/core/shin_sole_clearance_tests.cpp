// Step 6b (shin_sole_clearance.hpp): a 2-bone leg whose foot mesh hangs on the shin bone (no
// foot bone skinned: Blender's barbarian) has its sole posed with the solved shin, and the fix
// raises the foot until that sole is out of the terrain; OutputFoot carries each influence of a
// sole vertex with the bone the write-back moves it with.
#include <gtest/gtest.h>

#include "core/fix/footfix.hpp"
#include "core/fix/output_foot.hpp"
#include "core/fk.hpp"
#include "core/metrics.hpp"
#include "core/terrain_gen.hpp"
#include "retarget_test_rigs.hpp"

namespace ikfix::core {
namespace {

// The synthetic humanoid (retarget_test_rigs.hpp) as a 2-bone biped: legs of thigh and shin,
// the ankle the shin's end (its foot and toe joints not part of the legs), ankles at
// (+-0.1, 0.09, 0) facing +z. Its foot mesh is on the shins: a toe vertex 15 cm ahead of each
// ankle and a heel vertex 5 cm behind it, both on the ground at rest.
struct ShinFooted {
  Skeleton skeleton;
  LegRig rig;
  Skin skin;
  ShinFooted() : skeleton(test::build(test::humanoid(test::mixamo))) {
    const Skeleton& s = skeleton;
    rig.pelvis = s.find("mixamorig:Hips");
    std::vector<Transform> rest(s.joint_count());
    forward_kinematics(s, s.rest, Transform{}, rest);
    for (int l = 0; l < 2; ++l) {
      const std::string side = l == 0 ? "Left" : "Right";
      rig.legs[l] = Leg{s.find("mixamorig:" + side + "UpLeg"), s.find("mixamorig:" + side + "Leg"),
                        s.find("mixamorig:" + side + "Foot"), -1};
      const int shin = rig.legs[l].knee;
      const double x = rest[rig.legs[l].ankle].translation.x;
      for (const Vec3& p : {Vec3(x, 0.0, 0.15), Vec3(x, 0.0, -0.05)}) {
        SkinnedVertex v;
        v.joint[0] = shin;
        v.weight[0] = 1.0;
        v.local[0] = inverse_transform_point(rest[shin], p);
        skin.vertices.push_back(v);
      }
    }
  }
  // The rest pose standing still for `frames` frames at 30 fps.
  Clip standing(int frames) const {
    Clip clip;
    clip.fps = 30.0;
    clip.frame_count = frames;
    clip.joint_count = skeleton.joint_count();
    for (int f = 0; f < frames; ++f)
      for (const Transform& t : skeleton.rest) clip.locals.push_back(t);
    return clip;
  }
};

TEST(ShinSoleClearance, TheFootModelKnowsItsSoleIsOnTheShin) {
  const ShinFooted c;
  const FootModel on_shin = build_foot_model(c.skeleton, c.rig.legs[0], Transform{}, &c.skin);
  EXPECT_TRUE(on_shin.sole_on_shin);
  EXPECT_EQ(on_shin.sole_vertices, (std::vector<int>{0, 1}));
  // The same vertices on the foot bone: its own sole, not the shin's.
  Skin on_foot = c.skin;
  for (SkinnedVertex& v : on_foot.vertices) v.joint[0] = c.rig.legs[0].ankle;
  EXPECT_FALSE(build_foot_model(c.skeleton, c.rig.legs[0], Transform{}, &on_foot).sole_on_shin);
}

// A sole vertex on the shin turns with the solved shin; one hung on a joint above the pelvis
// stays where the input has it; without a solved leg both are carried with the ankle.
TEST(ShinSoleClearance, OutputFootCarriesAShinVertexWithTheSolvedShin) {
  ShinFooted c;
  const int root = c.skeleton.parents[c.rig.pelvis];
  ASSERT_GE(root, -1);
  const Clip clip = c.standing(1);
  const LegSamples samples = sample_legs(c.skeleton, clip, c.rig, Transform{}, 0.4, nullptr);
  const FootModel model = build_foot_model(c.skeleton, c.rig.legs[0], Transform{}, &c.skin);
  const OutputFoot foot(&model, &c.skin, &samples, &clip, &c.skeleton, Transform{}, c.rig.pelvis);
  const Leg& leg = c.rig.legs[0];
  const Transform& ankle_in = samples.at(0, leg.ankle);
  const Transform& knee_in = samples.at(0, leg.knee);
  const Transform& hip_in = samples.at(0, leg.hip);
  // The shin turned 30 degrees about the knee (ankle back and up): the toe vertex, 15 cm ahead
  // of the ankle, turns down with the shin where the ankle's carry would keep it level.
  const Quat turn = axis_angle(Vec3(1, 0, 0), kPi / 6);
  const Transform knee_out{knee_in.translation, turn * knee_in.rotation, knee_in.scale};
  const Vec3 ankle_out = knee_in.translation + turn * (ankle_in.translation - knee_in.translation);
  const SolvedLeg solved{hip_in, hip_in, knee_in, knee_out, Vec3(0.0)};
  std::vector<Vec3> with_leg, without;
  foot.pose(0, PlannedFoot{ankle_out, ankle_in.rotation, Vec3(1, 0, 0), 0.0, &solved}, with_leg);
  foot.pose(0, PlannedFoot{ankle_out, ankle_in.rotation, Vec3(1, 0, 0), 0.0}, without);
  ASSERT_EQ(with_leg.size(), 4u);  // ankle, heel, two sole vertices
  const Vec3 toe_expected =
      knee_in.translation + turn * (Vec3(0.1, 0.0, 0.15) - knee_in.translation);
  EXPECT_NEAR(glm::length(with_leg[2] - toe_expected), 0.0, 1e-12);
  // Carried with the ankle (unturned), the toe vertex stays 9 cm under the raised ankle.
  EXPECT_NEAR(without[2].y, ankle_out.y - 0.09, 1e-12);
  EXPECT_LT(with_leg[2].y, without[2].y - 0.05);
  // A vertex hung on a joint above the pelvis (an IK target bone under the armature) stays.
  if (root >= 0) {
    c.skin.vertices[0].joint[1] = root;
    c.skin.vertices[0].weight[0] = 0.5;
    c.skin.vertices[0].weight[1] = 0.5;
    c.skin.vertices[0].local[1] = Vec3(0.1, 0.0, 0.15);  // the root sits at the origin
    foot.pose(0, PlannedFoot{ankle_out, ankle_in.rotation, Vec3(1, 0, 0), 0.0, &solved}, with_leg);
    EXPECT_NEAR(glm::length(with_leg[2] - 0.5 * (toe_expected + Vec3(0.1, 0.0, 0.15))), 0.0, 1e-12);
  }
}

// Standing with the left foot on a 15 cm step (the stairs rise along +x from x = 0): the fix
// lifts that foot onto the tread and bends its knee, which tilts the shin and with it the foot
// mesh, toes down. Without step 6b the toe vertex goes 6.7 cm into the tread; with it the
// whole sole, as check measures it, is out.
TEST(ShinSoleClearance, TheSoleOfABentLegStaysOutOfTheStep) {
  const ShinFooted c;
  const Clip clip = c.standing(40);
  StairsParams stairs;
  stairs.axis = TerrainAxis::kPosX;
  stairs.start = 0.0;
  stairs.steps = 1;
  const Terrain terrain(make_stairs_terrain(stairs));
  FixInput in;
  in.skeleton = &c.skeleton;
  in.clip = &clip;
  in.rig = c.rig;
  in.terrain = &terrain;
  in.skin = &c.skin;
  const FixResult fixed = fix_clip(in);
  MetricsInput m;
  m.skeleton = &c.skeleton;
  m.clip = &fixed.clip;
  m.rig = c.rig;
  m.terrain = &terrain;
  m.skin = &c.skin;
  const ClipMetrics measured = measure_clip(m);
  EXPECT_LE(measured.foot_penetration.nearest.value, 0.002)
      << measured.foot_penetration.nearest.point << " of leg "
      << measured.foot_penetration.nearest.leg << " at frame "
      << measured.foot_penetration.nearest.frame;
  const LegDiagnostics& left = fixed.diagnostics.legs[0];
  EXPECT_GT(left.shin_sole_raise_frames, 0);
  EXPECT_GT(left.max_shin_sole_raise_m, 0.005);
  // The raise is one amount over the plant: the planted foot does not slide or bob.
  EXPECT_LE(measured.slide.value, 1e-3);
}

}  // namespace
}  // namespace ikfix::core
