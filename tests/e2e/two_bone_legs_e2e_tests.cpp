// Characters whose legs are 2-bone chains ending in a bone tail (no ankle joint): the barbarian
// (`jambe` = thigh, `pied` = shin, the ankle is the end of `pied`). `run`, `check` and `retarget`
// work on them through virtual ankle joints that never reach the written file.
#include <gtest/gtest.h>

#include <cmath>

#include "e2e_support.hpp"

namespace ikfix::test {
namespace {

std::filesystem::path barbarian() {
  return shared_data_dir() / "anim" / "fbx" / "barbarian_blender_7400.fbx";
}
std::filesystem::path character(const std::string& ext) {
  return shared_data_dir() / "retarget" / ("barbarian_rest" + ext);
}

// World position of a joint's end site on every frame.
std::vector<core::Vec3> tail_track(const io::LoadedClip& c, const std::string& joint) {
  const int j = c.skeleton.find(joint);
  EXPECT_GE(j, 0) << joint;
  EXPECT_TRUE(j >= 0 && c.skeleton.end_sites[j].has_value()) << joint << " has no end site";
  std::vector<core::Vec3> out;
  if (j < 0 || !c.skeleton.end_sites[j]) return out;
  for (int f = 0; f < c.clip.frame_count; ++f)
    out.push_back(
        core::transform_point(core::joint_world(c.skeleton, c.clip.frame(f), c.space.to_world(), j),
                              *c.skeleton.end_sites[j]));
  return out;
}

TEST(TwoBoneLegsE2E, BarbarianFbxRunsOntoStairs) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("barbarian_run");
  const auto out = dir / "barbarian_on_stairs.fbx";
  const auto stairs = bundled("terrain/stairs.obj");
  const auto r = run_ikfix("run " + quoted(barbarian()) + " --terrain " + quoted(stairs) + " -o " +
                           quoted(out) + " --report " + quoted(dir / "run.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = read_json(dir / "run.json");
  EXPECT_EQ(report["legs"]["left"]["hip"], "jambe gauche");
  EXPECT_EQ(report["legs"]["left"]["knee"], "pied gauche");
  EXPECT_EQ(report["legs"]["left"]["ankle"], "pied gauche_ankle");
  EXPECT_EQ(report["legs"]["right"]["knee"], "pied droit");
  EXPECT_EQ(report["skeleton"]["joints"], 18);
  EXPECT_EQ(report["skeleton"]["virtual_ankles"].size(), 2u);

  // The written file has the input's joints only, and what the fix did not touch is bit-exact.
  const io::LoadedClip before = io::load_clip(barbarian());
  const io::LoadedClip after = io::load_clip(out);
  ASSERT_EQ(before.skeleton.names, after.skeleton.names);
  ASSERT_EQ(before.clip.frame_count, after.clip.frame_count);
  for (const char* untouched :
       {"torse", "t\xC3\xAAte", "bras gauche", "main droite", "pagne avant"}) {
    const int j = before.skeleton.find(untouched);
    ASSERT_GE(j, 0) << untouched;
    for (int f = 0; f < before.clip.frame_count; ++f) {
      EXPECT_EQ(before.clip.at(f, j).rotation, after.clip.at(f, j).rotation)
          << untouched << " frame " << f;
      EXPECT_EQ(before.clip.at(f, j).translation, after.clip.at(f, j).translation)
          << untouched << " frame " << f;
    }
  }
  // The ankles (shin tails) stand on the stairs: never below them, and planted (idle) ankles do
  // not slide (they may still rise and sink a little, as the input's do); the input pushes the
  // left ankle 0.37 m into the steps.
  const core::Terrain terrain(io::load_terrain_mesh(stairs, 1.0, 'y'));
  double below_before = 0, below_after = 0, slide = 0;
  for (const char* shin : {"pied gauche", "pied droit"}) {
    const auto a = tail_track(before, shin);
    const auto b = tail_track(after, shin);
    ASSERT_EQ(b.size(), static_cast<std::size_t>(after.clip.frame_count));
    for (std::size_t f = 0; f < b.size(); ++f) {
      const core::GroundHit ga = terrain.ground_at(a[f].x, a[f].z),
                            gb = terrain.ground_at(b[f].x, b[f].z);
      ASSERT_TRUE(gb.hit);
      if (ga.hit) below_before = std::max(below_before, ga.height - a[f].y);
      below_after = std::max(below_after, gb.height - b[f].y);
      if (f > 0) slide = std::max(slide, std::hypot(b[f].x - b[f - 1].x, b[f].z - b[f - 1].z));
    }
  }
  EXPECT_GT(below_before, 0.1);
  EXPECT_LE(below_after, 0.002);
  EXPECT_LE(slide, 1e-4);  // metres per frame, horizontal

  // `check` finds the same legs on the output and measures it clean.
  const auto c = run_ikfix("check " + quoted(out) + " --terrain " + quoted(stairs) + " --report " +
                           quoted(dir / "check.json"));
  ASSERT_EQ(c.exit_code, 0) << c.output;
  const auto metrics = read_json(dir / "check.json")["metrics"];
  EXPECT_LE(metrics["penetration"]["max_m"].get<double>(), 0.002);
  EXPECT_LE(metrics["slide"]["mean_mps"].get<double>(), 0.005);
  EXPECT_EQ(metrics["non_finite"], 0);
  std::filesystem::remove_all(dir);
}

TEST(TwoBoneLegsE2E, CmuWalkRetargetsOntoTheBarbarian) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("barbarian_retarget");
  for (const std::string ext : {".glb", ".fbx"}) {
    SCOPED_TRACE(ext);
    const auto out = dir / ("walk_on_barbarian" + ext);
    const auto report_path = dir / ("r" + ext + ".json");
    const auto r = run_ikfix(
        "retarget " + quoted(shared_data_dir() / "anim/bvh/cmu_02_01_walk.bvh") + " --to " +
        quoted(character(ext)) + " --terrain " + quoted(bundled("terrain/stairs.obj")) + " -o " +
        quoted(out) + " --report " + quoted(report_path));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto report = read_json(report_path);
    EXPECT_EQ(report["legs"]["left"]["ankle"], "pied gauche_ankle");
    const auto& rt = report["retarget"];
    EXPECT_TRUE(rt["feet_fixed"].get<bool>());
    const auto& feet = rt["quality"]["final"]["feet_at_source_contacts"];
    const auto& naive = rt["quality"]["transfer"]["feet_at_source_contacts"];
    EXPECT_LE(feet["slide_mean_mps"].get<double>(), 0.005);
    EXPECT_LT(feet["slide_mean_mps"].get<double>(), naive["slide_mean_mps"].get<double>());
    EXPECT_LE(feet["penetration_max_m"].get<double>(), 0.002);
    // The barbarian's legs are 2.66 m: its ankles (shin tails) stand about 4 cm above the
    // ground at contacts, where the transfer left them 0.55 m off on average.
    EXPECT_LE(feet["float_mean_m"].get<double>(), 0.05);
    EXPECT_LE(rt["quality"]["final"]["max_bone_length_change"].get<double>(), 1e-5);
    EXPECT_GE(feet["contact_precision"].get<double>(), 0.95);
    EXPECT_GE(feet["contact_recall"].get<double>(), 0.85);
    // The new take animates the character's own joints only.
    const io::LoadedClip rest = io::load_character(character(ext));
    const io::LoadedClip written = io::load_character(
        out, io::ClipLoadOptions{std::nullopt, std::nullopt, std::string("cmu_02_01_walk")});
    EXPECT_EQ(written.skeleton.names, rest.skeleton.names);
    EXPECT_NEAR(written.clip.frame_count / written.clip.fps, 343 / 120.0,
                0.05);  // FBX resamples the rate
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test
