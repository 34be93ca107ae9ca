// Toes bend at the ball joint: on a rising slope a planted foot turned to the ground would push
// its toe tips into it; after the fix no planted toe tip is below its level over the terrain.
#include <algorithm>

#include "e2e_support.hpp"
#include "io/terrain_io.hpp"

namespace ikfix::test {
namespace {

// Deepest planted toe tip below (terrain under it + the tip's own level in the input above the
// clip floor), metres; the tips are the end sites of the toe joints.
double deepest_planted_tip(const std::filesystem::path& clip,
                           const std::filesystem::path& terrain_path, const nlohmann::json& report,
                           double tip_level) {
  io::ClipLoadOptions options;
  options.metres_per_unit = report["unit"]["metres_per_unit"].get<double>();
  const auto loaded = io::load_clip(clip, options);
  const core::Terrain terrain(io::load_terrain_mesh(terrain_path));
  const auto& sk = loaded.skeleton;
  std::vector<core::Transform> world(sk.joint_count());
  double deepest = 0;
  for (int l = 0; l < 2; ++l) {
    const int toe = sk.find(report["legs"][l == 0 ? "left" : "right"]["toe"].get<std::string>());
    for (const auto& plant : report["per_leg"][l]["plants"])
      for (int f = plant[0].get<int>(); f <= plant[1].get<int>(); ++f) {
        core::forward_kinematics(sk, loaded.clip.frame(f), loaded.space.to_world(), world);
        const core::Vec3 tip = core::transform_point(world[toe], *sk.end_sites[toe]);
        const auto ground = terrain.ground_at(tip.x, tip.z);
        deepest = std::max(deepest, (ground.height + tip_level) - tip.y);
      }
  }
  return deepest;
}

TEST(E2eToeBend, PlantedToeTipsStayOnTheSlope) {
  const auto dir = temp_dir("toe_bend");
  const auto walk = bundled("clips/walk.bvh");
  const auto slope = bundled("terrain/slope.obj");
  const auto r = run_ikfix("run " + quoted(walk) + " --terrain " + quoted(slope) + " -o " +
                           quoted(dir / "out.bvh") + " --report " + quoted(dir / "r.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = read_json(dir / "r.json");
  // The tip's own planted level in the input (5th percentile of its height above the floor).
  io::ClipLoadOptions options;
  options.metres_per_unit = report["unit"]["metres_per_unit"].get<double>();
  const auto input = io::load_clip(walk, options);
  std::vector<double> heights;
  std::vector<core::Transform> world(input.skeleton.joint_count());
  const int toe = input.skeleton.find(report["legs"]["left"]["toe"].get<std::string>());
  for (int f = 0; f < input.clip.frame_count; ++f) {
    core::forward_kinematics(input.skeleton, input.clip.frame(f), input.space.to_world(), world);
    heights.push_back(core::transform_point(world[toe], *input.skeleton.end_sites[toe]).y);
  }
  std::sort(heights.begin(), heights.end());
  const double tip_level = heights[heights.size() / 20] - report["floor"]["height_m"].get<double>();
  const double deepest = deepest_planted_tip(dir / "out.bvh", slope, report, tip_level);
  // Without the bend the tips of the bundled walk go 3.0 mm into this slope.
  EXPECT_LE(deepest, 0.0005);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test
