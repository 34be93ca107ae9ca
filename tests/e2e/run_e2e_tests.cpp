// `ikfix run` end to end: real binary, real files, and measurements taken from the written
// output (never from ikfix's internal state).
#include <cmath>
#include <set>
#include <string>

#include "e2e_support.hpp"

namespace ikfix::test {
namespace {

struct FootCheck {
  double worst_planted_penetration_m = 0;  // deepest planted ankle/toe joint below the terrain
  double max_bone_length_change = 0;       // relative, output vs input, every bone every frame
  double max_body_rise_m = -1e9;
  bool finite = true;
};

// Measures an output clip against its input and the terrain, with the plants from the report.
FootCheck measure(const std::filesystem::path& input, const std::filesystem::path& output,
                  const std::filesystem::path& terrain_path, const nlohmann::json& report) {
  io::ClipLoadOptions options;
  options.metres_per_unit = report["unit"]["metres_per_unit"].get<double>();
  const PosedClip before = pose_clip(input, options);
  const PosedClip after = pose_clip(output, options);
  core::Terrain terrain(io::load_terrain_mesh(terrain_path));
  const auto& s = after.loaded.skeleton;
  EXPECT_EQ(before.loaded.clip.frame_count, after.loaded.clip.frame_count);
  EXPECT_EQ(before.joints, after.joints);
  FootCheck check;
  const int frames = after.loaded.clip.frame_count;
  for (int f = 0; f < frames; ++f)
    for (int j = 0; j < after.joints; ++j) {
      if (!core::is_finite(after.at(f, j))) check.finite = false;
      const int p = s.parents[j];
      if (p < 0) continue;
      const double a = glm::length(before.at(f, j) - before.at(f, p));
      const double b = glm::length(after.at(f, j) - after.at(f, p));
      if (a > 1e-9)
        check.max_bone_length_change = std::max(check.max_bone_length_change, std::abs(b - a) / a);
    }
  const int pelvis = s.find(report["legs"]["pelvis"].get<std::string>());
  for (int f = 0; f < frames; ++f)
    check.max_body_rise_m =
        std::max(check.max_body_rise_m, after.at(f, pelvis).y - before.at(f, pelvis).y);
  for (int l = 0; l < 2; ++l) {
    const auto& leg = report["legs"][l == 0 ? "left" : "right"];
    std::vector<int> points = {s.find(leg["ankle"].get<std::string>())};
    if (!leg["toe"].is_null()) points.push_back(s.find(leg["toe"].get<std::string>()));
    for (const auto& plant : report["per_leg"][l]["plants"])
      for (int f = plant[0].get<int>(); f <= plant[1].get<int>(); ++f)
        for (int j : points) {
          const core::Vec3 p = after.at(f, j);
          const core::GroundHit g = terrain.ground_at(p.x, p.z);
          if (g.hit)
            check.worst_planted_penetration_m =
                std::max(check.worst_planted_penetration_m, g.height - p.y);
        }
  }
  return check;
}

struct RunCase {
  const char* name;
  std::filesystem::path clip;
  const char* terrain;  // in data/terrain
  double min_rise_m;    // the body must have followed the terrain at least this much
};

void run_and_check(const RunCase& c) {
  const auto dir = temp_dir(c.name);
  const auto out = dir / "out.bvh";
  const auto report_path = dir / "report.json";
  const auto terrain = bundled(std::string("terrain/") + c.terrain);
  const auto r = run_ikfix("run " + quoted(c.clip) + " --terrain " + quoted(terrain) + " -o " +
                           quoted(out) + " --report " + quoted(report_path));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(std::filesystem::exists(out));
  const auto report = read_json(report_path);
  EXPECT_EQ(report["schema_version"], 1);
  const FootCheck check = measure(c.clip, out, terrain, report);
  EXPECT_TRUE(check.finite);
  EXPECT_LE(check.worst_planted_penetration_m, 0.005) << c.name;
  EXPECT_LE(check.max_bone_length_change, 1e-9) << c.name;
  EXPECT_GE(check.max_body_rise_m, c.min_rise_m) << c.name;
  EXPECT_GT(report["per_leg"][0]["frames_in_contact"].get<int>(), 0);
  EXPECT_GT(report["per_leg"][1]["frames_in_contact"].get<int>(), 0);
  std::filesystem::remove_all(dir);
}

TEST(E2eRun, CmuWalkOntoStairs) {
  IKFIX_REQUIRE_SHARED_DATA();
  run_and_check(
      {"cmu_stairs", shared_data_dir() / "anim/bvh/cmu_02_01_walk.bvh", "stairs.obj", 0.3});
}

TEST(E2eRun, CmuWalkOntoSlope) {
  IKFIX_REQUIRE_SHARED_DATA();
  run_and_check({"cmu_slope", shared_data_dir() / "anim/bvh/cmu_02_01_walk.bvh", "slope.obj", 0.1});
}

TEST(E2eRun, BundledWalkOntoStairs) {
  run_and_check({"bundled_stairs", bundled("clips/walk.bvh"), "stairs.obj", 0.3});
}

TEST(E2eRun, BundledWalkOntoSlope) {
  run_and_check({"bundled_slope", bundled("clips/walk.bvh"), "slope.obj", 0.1});
}

TEST(E2eRun, BundledWalkOntoBumps) {
  run_and_check({"bundled_bumps", bundled("clips/walk.bvh"), "bumps.obj", 0.0});
}

TEST(E2eRun, FlatTerrainChangesAlmostNothing) {
  const auto dir = temp_dir("flat");
  const auto out = dir / "out.bvh";
  const auto report_path = dir / "r.json";
  const auto r = run_ikfix("run " + quoted(bundled("clips/walk.bvh")) + " --terrain " +
                           quoted(bundled("terrain/flat.obj")) + " -o " + quoted(out) +
                           " --report " + quoted(report_path));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = read_json(report_path);
  // On the floor it was recorded on, a clean clip needs (almost) no correction.
  for (int l = 0; l < 2; ++l)
    EXPECT_LE(report["per_leg"][l]["max_correction_m"].get<double>(), 0.01);
  EXPECT_EQ(report["totals"]["unreachable_frames"], 0);
  std::filesystem::remove_all(dir);
}

// The report says why a frame is given up: a drop beyond the legs' reach is "too low", a 45
// degree ramp (steeper than the foot may tilt, 35 degrees) "too steep" where a foot is planted.
TEST(E2eRun, UnreachableReasonsNameTheTerrain) {
  const auto dir = temp_dir("reasons");
  auto reasons_on = [&](const std::string& terrain_args, const std::string& name) {
    const auto terrain = dir / (name + ".obj");
    const auto t = run_ikfix("terrain " + terrain_args + " -o " + quoted(terrain));
    EXPECT_EQ(t.exit_code, 0) << t.output;
    const auto report_path = dir / (name + ".json");
    const auto r =
        run_ikfix("run " + quoted(bundled("clips/walk.bvh")) + " --terrain " + quoted(terrain) +
                  " -o " + quoted(dir / (name + ".bvh")) + " --report " + quoted(report_path));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::set<std::string> reasons;
    const auto report = read_json(report_path);
    for (const auto& leg : report["per_leg"])
      for (const auto& range : leg["unreachable"])
        reasons.insert(range["reason"].get<std::string>());
    return reasons;
  };
  EXPECT_TRUE(reasons_on("cliff --height -1.5 --start 1.0", "drop").count("too low"));
  EXPECT_TRUE(reasons_on("slope --angle 45", "steep").count("too steep"));
  std::filesystem::remove_all(dir);
}

TEST(E2eRun, CliffReportsUnreachableFrames) {
  const auto dir = temp_dir("cliff");
  const auto cliff = dir / "cliff.obj";
  // A 2 m wall rising 1 m ahead of the walker: no leg reaches its top.
  auto t = run_ikfix("terrain cliff --height 2 --start 1.0 -o " + quoted(cliff));
  ASSERT_EQ(t.exit_code, 0) << t.output;
  const auto out = dir / "out.bvh";
  const auto report_path = dir / "r.json";
  const auto r = run_ikfix("run " + quoted(bundled("clips/walk.bvh")) + " --terrain " +
                           quoted(cliff) + " -o " + quoted(out) + " --report " +
                           quoted(report_path) + " --fail-on unreachable");
  EXPECT_EQ(r.exit_code, 1) << r.output;  // the work ran, the --fail-on condition held
  EXPECT_NE(r.output.find("unreachable"), std::string::npos) << r.output;
  const auto report = read_json(report_path);
  EXPECT_GT(report["totals"]["unreachable_frames"].get<int>(), 0);
  const auto& worst = report["totals"]["worst"];
  ASSERT_FALSE(worst.is_null());
  EXPECT_GT(worst["shortfall_m"].get<double>(), 0.1);
  bool has_range = false;
  for (const auto& leg : report["per_leg"])
    for (const auto& range : leg["unreachable"]) {
      has_range = true;
      EXPECT_LE(range["first"].get<int>(), range["last"].get<int>());
      EXPECT_GT(range["max_shortfall_m"].get<double>(), 0.0);
      EXPECT_FALSE(range["reason"].get<std::string>().empty());
    }
  EXPECT_TRUE(has_range);
  std::filesystem::remove_all(dir);
}

TEST(E2eRun, PelvisLimitFramesAreReportedWhereTheyAre) {
  // With a 2% pelvis drop limit the legs cannot reach down the stairs on some frames: the
  // report says which, as ranges whose lengths add up to the count, and the warning names them.
  const auto dir = temp_dir("pelvis_limit");
  const auto r =
      run_ikfix("run " + quoted(bundled("clips/walk.bvh")) + " --terrain " +
                quoted(bundled("terrain/stairs.obj")) + " -o " + quoted(dir / "out.bvh") +
                " --report " + quoted(dir / "r.json") + " --max-pelvis-drop 0.02");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto body = read_json(dir / "r.json")["body"];
  const int count = body["pelvis_limit_frames"].get<int>();
  ASSERT_GT(count, 0);
  int covered = 0, previous_last = -1;
  for (const auto& range : body["pelvis_limit"]) {
    const int first = range["first"].get<int>(), last = range["last"].get<int>();
    EXPECT_GT(first, previous_last);
    EXPECT_LE(first, last);
    EXPECT_GE(range["worst_frame"].get<int>(), first);
    EXPECT_LE(range["worst_frame"].get<int>(), last);
    EXPECT_GT(range["max_needed_drop_m"].get<double>(), 0.02 * body["leg_length_m"].get<double>());
    covered += last - first + 1;
    previous_last = last;
  }
  EXPECT_EQ(covered, count);
  const auto& first = body["pelvis_limit"][0];
  EXPECT_NE(r.output.find("reached on " + std::to_string(count) + " frames (" +
                          std::to_string(first["first"].get<int>())),
            std::string::npos)
      << r.output;
  std::filesystem::remove_all(dir);
}

TEST(E2eRun, OutputIsDeterministic) {
  const auto dir = temp_dir("determinism");
  std::string first;
  for (int i = 0; i < 2; ++i) {
    const auto out = dir / ("out" + std::to_string(i) + ".bvh");
    const auto r = run_ikfix("run " + quoted(bundled("clips/walk.bvh")) + " --terrain " +
                             quoted(bundled("terrain/stairs.obj")) + " -o " + quoted(out) +
                             " --report " + quoted(dir / ("r" + std::to_string(i) + ".json")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    if (i == 0)
      first = io::read_file(out);
    else
      EXPECT_EQ(first, io::read_file(out));
  }
  // The reports differ only in the output path they name.
  auto a = read_json(dir / "r0.json"), b = read_json(dir / "r1.json");
  a.erase("output");
  b.erase("output");
  EXPECT_EQ(a, b);
  std::filesystem::remove_all(dir);
}

TEST(E2eRun, DefaultOutputGoesBesideTheInputAndNeverOverwritesIt) {
  const auto dir = temp_dir("default_out");
  const auto clip = dir / "walk.bvh";
  std::filesystem::copy_file(bundled("clips/walk.bvh"), clip);
  const std::string original = io::read_file(clip);
  auto r = run_ikfix("run " + quoted(clip) + " --terrain " + quoted(bundled("terrain/stairs.obj")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "walk.ikfix.bvh"));
  EXPECT_EQ(io::read_file(clip), original);
  // -o naming the input is refused without --in-place.
  r = run_ikfix("run " + quoted(clip) + " --terrain " + quoted(bundled("terrain/stairs.obj")) +
                " -o " + quoted(clip));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(io::read_file(clip), original);
  // With --in-place it is overwritten.
  r = run_ikfix("run " + quoted(clip) + " --terrain " + quoted(bundled("terrain/stairs.obj")) +
                " --in-place");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(io::read_file(clip), io::read_file(dir / "walk.ikfix.bvh"));
  std::filesystem::remove_all(dir);
}

TEST(E2eRun, UntouchedJointsKeepTheirValues) {
  const auto dir = temp_dir("untouched");
  const auto out = dir / "out.bvh";
  auto r = run_ikfix("run " + quoted(bundled("clips/walk.bvh")) + " --terrain " +
                     quoted(bundled("terrain/stairs.obj")) + " -o " + quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto before = io::load_clip(bundled("clips/walk.bvh"));
  const auto after = io::load_clip(out);
  for (const char* name : {"Spine", "Head", "LeftArm", "RightForeArm"}) {
    const int j = before.skeleton.find(name);
    ASSERT_GE(j, 0) << name;
    for (int f = 0; f < before.clip.frame_count; ++f)
      ASSERT_EQ(before.clip.at(f, j).rotation, after.clip.at(f, j).rotation)
          << name << " frame " << f;
  }
  std::filesystem::remove_all(dir);
}

TEST(E2eInspect, ShowsLegsUnitAndFrames) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto r =
      run_ikfix("inspect --json " + quoted(shared_data_dir() / "anim/bvh/cmu_02_01_walk.bvh"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["joints"], 31);
  EXPECT_EQ(j["frames"], 343);
  EXPECT_EQ(j["unit"]["name"], "cmu");
  EXPECT_NEAR(j["unit"]["metres_per_unit"].get<double>(), 0.0564, 0.001);
  EXPECT_EQ(j["legs"]["left"]["hip"], "LeftUpLeg");
  EXPECT_EQ(j["legs"]["right"]["ankle"], "RightFoot");
}

// Every BVH in the shared corpus: the unit guess lands on the right unit and legs are found.
TEST(E2eInspect, SharedBvhUnitsAndLegs) {
  IKFIX_REQUIRE_SHARED_DATA();
  for (const auto& entry : std::filesystem::directory_iterator(shared_data_dir() / "anim/bvh")) {
    const auto r = run_ikfix("inspect --json " + quoted(entry.path()));
    ASSERT_EQ(r.exit_code, 0) << entry.path() << "\n" << r.output;
    const auto j = nlohmann::json::parse(r.output);
    const std::string name = entry.path().filename().string();
    const std::string expected = name.find("metres") != std::string::npos   ? "m"
                                 : name.find("boxing") != std::string::npos ? "cm"
                                                                            : "cmu";
    EXPECT_EQ(j["unit"]["name"], expected) << name;
    EXPECT_FALSE(j["legs"].contains("error")) << name << ": " << j["legs"].dump();
  }
}

}  // namespace
}  // namespace ikfix::test
