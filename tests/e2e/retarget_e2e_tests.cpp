// `ikfix retarget` and `ikfix map` end to end: the real binary on the shared retarget pairs,
// checking the written clip (joints, frames, bone lengths, where the feet are) and the report.
#include <gtest/gtest.h>

#include "e2e_support.hpp"

namespace ikfix::test {
namespace {

std::filesystem::path anim(const std::string& rel) { return shared_data_dir() / "anim" / rel; }
std::filesystem::path pair_file(const std::string& rel) {
  return shared_data_dir() / "retarget" / rel;
}

TEST(RetargetE2E, CmuWalkOntoKenneyStairsBvh) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("retarget_kenney_bvh");
  const auto out = dir / "walk_on_kenney.bvh";
  const auto report_path = dir / "r.json";
  const auto r = run_ikfix("retarget " + quoted(anim("bvh/cmu_02_01_walk.bvh")) + " --to " +
                           quoted(pair_file("kenney_rest.bvh")) + " --target-unit m --terrain " +
                           quoted(bundled("terrain/stairs.obj")) + " -o " + quoted(out) +
                           " --report " + quoted(report_path));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const PosedClip source = pose_clip(anim("bvh/cmu_02_01_walk.bvh"));
  const PosedClip written = pose_clip(out, io::ClipLoadOptions{1.0, std::nullopt, std::nullopt});
  EXPECT_EQ(written.loaded.skeleton.joint_count(), 32);
  EXPECT_EQ(written.loaded.clip.frame_count, source.loaded.clip.frame_count);

  const auto report = read_json(report_path);
  EXPECT_EQ(report["command"], "retarget");
  const auto& rt = report["retarget"];
  EXPECT_NEAR(rt["scale"]["horizontal"].get<double>(), 1.36, 0.02);
  EXPECT_TRUE(rt["feet_fixed"].get<bool>());
  const auto& feet = rt["quality"]["final"]["feet_at_source_contacts"];
  const auto& naive = rt["quality"]["transfer"]["feet_at_source_contacts"];
  EXPECT_LT(feet["slide_mean_mps"].get<double>(), naive["slide_mean_mps"].get<double>());
  EXPECT_LE(feet["float_mean_m"].get<double>(), 0.01);
  EXPECT_LE(feet["penetration_max_m"].get<double>(), 0.002);
  EXPECT_LE(rt["quality"]["final"]["max_bone_length_change"].get<double>(), 1e-5);
  // No control or helper bone is ever written as a deform bone (the BVH has none; the map none).
  for (const auto& p : rt["map"]) {
    const std::string t = p["target"];
    EXPECT_EQ(t.find("Ctrl"), std::string::npos) << t;
    EXPECT_EQ(t.find("IK"), std::string::npos) << t;
  }
}

TEST(RetargetE2E, SavedMapGivesTheSameOutput) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("retarget_map_roundtrip");
  const std::string source = quoted(anim("bvh/cmu_02_01_walk.bvh"));
  const std::string target = quoted(pair_file("cmu_131_max_armsdown_rest.bvh"));
  const auto map = dir / "map.json";
  auto r = run_ikfix("map " + source + " --to " + target + " --save " + quoted(map));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_ikfix("retarget " + source + " --to " + target + " -o " + quoted(dir / "auto.bvh"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_ikfix("retarget " + source + " --to " + target + " --map " + quoted(map) + " -o " +
                quoted(dir / "file.bvh"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(io::read_file(dir / "auto.bvh"), io::read_file(dir / "file.bvh"));
}

TEST(RetargetE2E, SameInputSameBytes) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("retarget_deterministic");
  const std::string args = "retarget " + quoted(anim("bvh/boxing_toes.bvh")) + " --to " +
                           quoted(pair_file("cmu_02_tpose_rest.bvh")) + " --terrain " +
                           quoted(bundled("terrain/bumps.obj"));
  ASSERT_EQ(run_ikfix(args + " -o " + quoted(dir / "a.bvh") + " --report " + quoted(dir / "a.json"))
                .exit_code,
            0);
  ASSERT_EQ(run_ikfix(args + " -o " + quoted(dir / "b.bvh") + " --report " + quoted(dir / "b.json"))
                .exit_code,
            0);
  EXPECT_EQ(io::read_file(dir / "a.bvh"), io::read_file(dir / "b.bvh"));
  auto a = read_json(dir / "a.json"), b = read_json(dir / "b.json");
  a.erase("output");
  b.erase("output");
  EXPECT_EQ(a, b);
}

TEST(RetargetE2E, MissingCharacterIsAOneLineError) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("retarget_missing");
  const auto r = run_ikfix("retarget " + quoted(anim("bvh/cmu_02_01_walk.bvh")) + " --to " +
                           quoted(dir / "nobody.fbx") + " -o " + quoted(dir / "out.fbx"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("nobody.fbx"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out.fbx"));
}

TEST(RetargetE2E, BatchPutsALibraryOnOneCharacter) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("retarget_batch");
  const auto lib = dir / "mocap";
  std::filesystem::create_directories(lib / "dance");
  std::filesystem::copy_file(anim("bvh/cmu_02_01_walk.bvh"), lib / "walk.bvh");
  std::filesystem::copy_file(anim("bvh/cmu_60_01_salsa_sl_metres.bvh"),
                             lib / "dance" / "salsa.bvh");
  const auto character = pair_file("kenney_rest.glb");
  const auto r =
      run_ikfix("batch " + quoted(lib) + " --to " + quoted(character) + " --terrain " +
                quoted(bundled("terrain/stairs.obj")) + " --out-dir " + quoted(dir / "out") +
                " --jobs 2 --report " + quoted(dir / "batch.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* rel : {"walk.glb", "dance/salsa.glb"}) {
    SCOPED_TRACE(rel);
    // The character's file (no animation of its own) with the retargeted clip as its animation.
    const io::LoadedClip written = io::load_character(
        dir / "out" / rel, io::ClipLoadOptions{std::nullopt, std::nullopt, std::string("0")});
    const io::LoadedClip rest = io::load_character(character);
    EXPECT_EQ(written.skeleton.names, rest.skeleton.names);
    EXPECT_GT(written.clip.frame_count, 100);
    EXPECT_EQ(written.take_count, 1);
  }
  const auto report = read_json(dir / "batch.json");
  EXPECT_EQ(report["totals"]["clips"].get<int>(), 2);
  EXPECT_EQ(report["totals"]["ok"].get<int>(), 2);
}

}  // namespace
}  // namespace ikfix::test
