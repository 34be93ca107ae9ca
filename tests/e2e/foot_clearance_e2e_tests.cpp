// The whole foot out of the terrain (issue 16, step 5c): real clips fixed by the binary, every foot
// point (ankle, heel, ball, toe tip) of the written file measured as `ikfix check` measures it (the
// run report's metrics.after.foot_penetration): nearest-surface depth at most 5 mm on any frame,
// 2 mm on planted frames.
#include "e2e_support.hpp"

namespace ikfix::test {
namespace {

// The run report's foot_penetration after the fix (empty when the run failed).
nlohmann::json fix_and_measure(const std::filesystem::path& clip, const std::string& terrain_name,
                               const std::string& case_name) {
  const auto dir = temp_dir("foot_clearance_" + case_name);
  const auto terrain = bundled("terrain/" + terrain_name + ".obj");
  const auto out = dir / ("out" + clip.extension().string());
  const auto r = run_ikfix("run " + quoted(clip) + " --terrain " + quoted(terrain) + " -o " +
                           quoted(out) + " --report " + quoted(dir / "r.json"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (r.exit_code != 0) return nlohmann::json::object();
  nlohmann::json p = read_json(dir / "r.json")["metrics"]["after"]["foot_penetration"];
  std::filesystem::remove_all(dir);
  return p;
}

double depth(const nlohmann::json& p, const char* which) {
  return p.contains(which) ? p[which]["max_m"].get<double>() : 1e9;
}

std::string where(const nlohmann::json& p, const char* which) {
  if (!p.contains(which) || p[which]["frame"].get<int>() < 0) return "-";
  const auto& w = p[which];
  return w["leg"].get<std::string>() + " " + w["point"].get<std::string>() + " at frame " +
         std::to_string(w["frame"].get<int>());
}

TEST(E2eFootClearance, TheBundledWalkKeepsEveryFootPointOutOfEachTerrain) {
  for (const char* terrain : {"flat", "stairs", "slope", "bumps"}) {
    const auto p =
        fix_and_measure(bundled("clips/walk.bvh"), terrain, std::string("walk_") + terrain);
    EXPECT_LE(depth(p, "nearest"), 0.005) << terrain << ": " << where(p, "nearest");
    EXPECT_LE(depth(p, "planted_nearest"), 0.002) << terrain << ": " << where(p, "planted_nearest");
  }
}

// The case: a CMU skeleton FBX walk onto the 10 degree slope had its right toe tip
// under the slope (measured in Blender) while ikfix reported no penetration.
TEST(E2eFootClearance, ACmuFbxWalkKeepsItsToeTipsOutOfTheSlope) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto p = fix_and_measure(shared_data_dir() / "anim/fbx/cmu_07_01_walk_skeleton.fbx",
                                 "slope", "cmu_07_01_slope");
  EXPECT_LE(depth(p, "nearest"), 0.005) << where(p, "nearest");
  EXPECT_LE(depth(p, "planted_nearest"), 0.002) << where(p, "planted_nearest");
}

}  // namespace
}  // namespace ikfix::test
