// `ikfix run` on glTF/GLB end to end: the real binary on the shared glTF files; the written file
// is read back and measured (the Khronos validator runs on the same outputs in
// tests/interop/gltf_validator_tests.cpp, label interop).
#include <cmath>

#include "e2e_support.hpp"

namespace ikfix::test {
namespace {

std::filesystem::path gltf_clip(const std::string& name) {
  return shared_data_dir() / "anim" / "gltf" / name;
}

void run_cesium(const char* terrain_name) {
  const auto dir = temp_dir(std::string("gltf_cesium_") + terrain_name);
  const auto input = gltf_clip("CesiumMan.glb");
  const auto out = dir / "cesium.glb";
  const auto report_path = dir / "report.json";
  const auto terrain = bundled(std::string("terrain/") + terrain_name + ".obj");
  const auto r = run_ikfix("run " + quoted(input) + " --terrain " + quoted(terrain) + " -o " +
                           quoted(out) + " --report " + quoted(report_path));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(std::filesystem::exists(out));
  const auto report = read_json(report_path);
  EXPECT_EQ(report["format"], "glb");
  EXPECT_EQ(report["unit"]["name"], "m");
  EXPECT_EQ(report["unit"]["source"], "file");
  EXPECT_EQ(report["frames"], 48);

  const PosedClip before = pose_clip(input);
  const PosedClip after = pose_clip(out);
  const auto& s = after.loaded.skeleton;
  ASSERT_EQ(before.loaded.skeleton.names, s.names);
  ASSERT_EQ(before.loaded.clip.frame_count, after.loaded.clip.frame_count);
  EXPECT_EQ(after.loaded.clip.fps, 24.0);
  // Bone lengths: every joint's distance to its parent, except the pelvis, whose translation is
  // the fix's root motion.
  const int pelvis = s.find(report["legs"]["pelvis"].get<std::string>());
  ASSERT_GE(pelvis, 0);
  double worst = 0;
  for (int f = 0; f < after.loaded.clip.frame_count; ++f)
    for (int j = 0; j < after.joints; ++j) {
      const int p = s.parents[j];
      if (p < 0 || j == pelvis) continue;
      const double a = glm::length(before.at(f, j) - before.at(f, p));
      const double b = glm::length(after.at(f, j) - after.at(f, p));
      if (a > 1e-9) worst = std::max(worst, std::abs(b - a) / a);
    }
  EXPECT_LE(worst, 1e-6) << "relative bone length change (float storage)";
  // Joints the fix does not move read back exactly as before.
  for (const char* untouched :
       {"Skeleton_neck_joint_2", "Skeleton_arm_joint_L__2_", "torso_joint_3"}) {
    const int j = s.find(untouched);
    ASSERT_GE(j, 0) << untouched;
    for (int f = 0; f < after.loaded.clip.frame_count; ++f)
      EXPECT_EQ(after.loaded.clip.at(f, j).rotation, before.loaded.clip.at(f, j).rotation)
          << untouched;
  }
  std::filesystem::remove_all(dir);
}

TEST(GltfRunE2E, CesiumManOnStairs) {
  IKFIX_REQUIRE_SHARED_DATA();
  run_cesium("stairs");
}

TEST(GltfRunE2E, CesiumManOnFlat) {
  IKFIX_REQUIRE_SHARED_DATA();
  run_cesium("flat");
}

TEST(GltfRunE2E, CesiumManWithLegsGivenExplicitly) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("gltf_cesium_legs");
  const auto out = dir / "cesium.glb";
  const auto r = run_ikfix("run " + quoted(gltf_clip("CesiumMan.glb")) + " --terrain " +
                           quoted(bundled("terrain/stairs.obj")) + " -o " + quoted(out) +
                           " --legs leg_joint_L_1,leg_joint_L_2,leg_joint_L_3,leg_joint_L_5,"
                           "leg_joint_R_1,leg_joint_R_2,leg_joint_R_3,leg_joint_R_5");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(out));
  std::filesystem::remove_all(dir);
}

// Not bipeds: one clear line, exit 2, nothing written.
void expect_refused(const std::string& file, const std::string& expected) {
  const auto dir = temp_dir("gltf_refused");
  const auto out = dir / ("out_" + file);
  const auto r = run_ikfix("run " + quoted(gltf_clip(file)) + " --terrain " +
                           quoted(bundled("terrain/flat.obj")) + " -o " + quoted(out));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(expected), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(file), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  std::filesystem::remove_all(dir);
}

TEST(GltfRunE2E, FoxIsAQuadrupedAndRefused) {
  IKFIX_REQUIRE_SHARED_DATA();
  expect_refused("Fox.glb", "legs");
}

TEST(GltfRunE2E, LeglessRigsAreRefused) {
  IKFIX_REQUIRE_SHARED_DATA();
  expect_refused("RiggedSimple_blender.glb", "legs");
  expect_refused("SimpleSkin.gltf", "legs");
}

}  // namespace
}  // namespace ikfix::test
