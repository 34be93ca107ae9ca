// `--take all` end to end: every take that animates the skeleton is fixed, written in one file and
// reported per take. No multi-take humanoid is in the shared data, so the several-takes case is the
// Fox (3 glTF animations) with its hind legs given by --legs, plus the bundled one-take BVH.
#include <cmath>
#include <cstdio>

#include "e2e_support.hpp"

namespace ikfix::test {
namespace {

const char* const kFoxLegs =
    " --legs b_LeftLeg01_015,b_LeftLeg02_016,b_LeftFoot01_017,b_LeftFoot02_018,"
    "b_RightLeg01_019,b_RightLeg02_020,b_RightFoot01_021,b_RightFoot02_022";

void expect_totals_cover_takes(const nlohmann::json& report) {
  ASSERT_TRUE(report.contains("takes"));
  int unreachable = 0;
  double worst = 0;
  for (const auto& take : report["takes"]) {
    unreachable += take["totals"]["unreachable_frames"].get<int>();
    worst = std::max(worst, take["totals"]["max_shortfall_m"].get<double>());
  }
  EXPECT_EQ(report["totals"]["unreachable_frames"].get<int>(), unreachable);
  EXPECT_EQ(report["totals"]["max_shortfall_m"].get<double>(), worst);
}

TEST(TakeAllE2E, BvhHasOneTake) {
  const auto dir = temp_dir("take_all_bvh");
  const auto out = dir / "walk.bvh";
  const auto report_path = dir / "report.json";
  const auto r = run_ikfix("run " + quoted(bundled("clips/walk.bvh")) + " --terrain " +
                           quoted(bundled("terrain/stairs.obj")) + " -o " + quoted(out) +
                           " --report " + quoted(report_path) + " --take all");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(std::filesystem::exists(out));
  const auto report = read_json(report_path);
  ASSERT_EQ(report["takes"].size(), 1u);
  const auto& take = report["takes"][0];
  EXPECT_EQ(take["take"]["index"], 0);
  // The top level is the first take's report, as without --take all.
  EXPECT_EQ(report["frames"], take["frames"]);
  EXPECT_EQ(report["per_leg"], take["per_leg"]);
  EXPECT_EQ(report["metrics"], take["metrics"]);
  expect_totals_cover_takes(report);
  // Same output as a plain run.
  const auto plain = dir / "plain.bvh";
  const auto p = run_ikfix("run " + quoted(bundled("clips/walk.bvh")) + " --terrain " +
                           quoted(bundled("terrain/stairs.obj")) + " -o " + quoted(plain));
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_EQ(io::read_file(out), io::read_file(plain));
  std::filesystem::remove_all(dir);
}

TEST(TakeAllE2E, CheckBvhWritesNothing) {
  const auto dir = temp_dir("take_all_check");
  const auto report_path = dir / "report.json";
  const auto r = run_ikfix("check " + quoted(bundled("clips/walk.bvh")) + " --terrain " +
                           quoted(bundled("terrain/stairs.obj")) + " --report " +
                           quoted(report_path) + " --take all");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = read_json(report_path);
  EXPECT_EQ(report["command"], "check");
  ASSERT_EQ(report["takes"].size(), 1u);
  expect_totals_cover_takes(report);
  std::filesystem::remove_all(dir);
}

TEST(TakeAllE2E, FbxLoadTakesSharesOneDocument) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto path = shared_data_dir() / "anim" / "fbx" / "sausage_3takes_maya_7500_ascii.fbx";
  const auto takes = io::load_takes(path);
  ASSERT_EQ(takes.size(), 3u);
  const char* names[] = {"wiggle", "spin", "deform"};
  for (std::size_t i = 0; i < takes.size(); ++i) {
    EXPECT_EQ(takes[i].take_index, static_cast<int>(i));
    EXPECT_EQ(takes[i].take_count, 3);
    EXPECT_NE(takes[i].take_name.find(names[i]), std::string::npos) << takes[i].take_name;
    EXPECT_EQ(takes[i].document, takes[0].document);
    // Each take as load_clip gives it.
    io::ClipLoadOptions one;
    one.take = std::to_string(i);
    const io::LoadedClip single = io::load_clip(path, one);
    EXPECT_EQ(single.take_name, takes[i].take_name);
    EXPECT_EQ(single.clip.frame_count, takes[i].clip.frame_count);
  }
  // Not a biped: --take all is refused like a single take.
  const auto r =
      run_ikfix("run " + quoted(path) + " --terrain " + quoted(bundled("terrain/flat.obj")) +
                " -o " + quoted(temp_dir("take_all_sausage") / "s.fbx") + " --take all");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("legs"), std::string::npos) << r.output;
}

TEST(TakeAllE2E, FoxEveryTakeFixedAndWritten) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto input = shared_data_dir() / "anim" / "gltf" / "Fox.glb";
  const auto dir = temp_dir("take_all_fox");
  const auto out = dir / "fox.glb";
  const auto report_path = dir / "report.json";
  const auto r = run_ikfix(
      "run " + quoted(input) + " --terrain " + quoted(bundled("terrain/bumps.obj")) + " -o " +
      quoted(out) + " --report " + quoted(report_path) + " --clip-unit cm --take all" + kFoxLegs);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = read_json(report_path);
  ASSERT_EQ(report["takes"].size(), 3u);
  const char* names[] = {"Survey", "Walk", "Run"};
  for (int t = 0; t < 3; ++t) {
    EXPECT_EQ(report["takes"][t]["take"]["name"], names[t]);
    EXPECT_EQ(report["takes"][t]["take"]["index"], t);
  }
  EXPECT_EQ(report["take"]["name"], "Survey");
  expect_totals_cover_takes(report);

  io::ClipLoadOptions options;
  options.metres_per_unit = 0.01;
  for (int t = 0; t < 3; ++t) {
    SCOPED_TRACE(names[t]);
    options.take = std::to_string(t);
    const PosedClip before = pose_clip(input, options);
    const PosedClip after = pose_clip(out, options);
    const auto& s = after.loaded.skeleton;
    ASSERT_EQ(before.loaded.clip.frame_count, after.loaded.clip.frame_count);
    ASSERT_EQ(report["takes"][t]["frames"].get<int>(), after.loaded.clip.frame_count);
    // The head is not part of the fix: it reads back exactly.
    const int head = s.find("b_Head_05");
    ASSERT_GE(head, 0);
    for (int f = 0; f < after.loaded.clip.frame_count; ++f)
      EXPECT_EQ(after.loaded.clip.at(f, head).rotation, before.loaded.clip.at(f, head).rotation);
    // The fix of this take is in the file: the ankles moved as much as the report says.
    double moved = 0;
    for (const char* ankle : {"b_LeftFoot01_017", "b_RightFoot01_021"}) {
      const int j = s.find(ankle);
      for (int f = 0; f < after.loaded.clip.frame_count; ++f)
        moved = std::max(moved, static_cast<double>(glm::length(after.at(f, j) - before.at(f, j))));
    }
    double reported = 0;
    for (const auto& leg : report["takes"][t]["per_leg"])
      reported = std::max(reported, leg["max_correction_m"].get<double>());
    EXPECT_GT(reported, 1e-3);
    EXPECT_NEAR(moved, reported, 0.01 + 0.05 * reported);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test

namespace ikfix::test {
namespace {

// Without --take, a file with several takes has all of them fixed (issue 3's default); with a
// take named, only that one.
TEST(TakeAllE2E, SeveralTakesAreAllFixedByDefault) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto input = shared_data_dir() / "anim" / "gltf" / "Fox.glb";
  const auto dir = temp_dir("take_default_fox");
  auto r = run_ikfix("run " + quoted(input) + " --terrain " + quoted(bundled("terrain/flat.obj")) +
                     " -o " + quoted(dir / "all.glb") + " --report " + quoted(dir / "all.json") +
                     " --clip-unit cm" + kFoxLegs);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_json(dir / "all.json")["takes"].size(), 3u);
  r = run_ikfix("run " + quoted(input) + " --terrain " + quoted(bundled("terrain/flat.obj")) +
                " -o " + quoted(dir / "walk.glb") + " --report " + quoted(dir / "walk.json") +
                " --clip-unit cm --take Walk" + kFoxLegs);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto walk = read_json(dir / "walk.json");
  EXPECT_FALSE(walk.contains("takes"));
  EXPECT_EQ(walk["take"]["name"], "Walk");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test

namespace ikfix::test {
namespace {

// --fail-on with several takes: a metric condition holds when it holds for any take, not only
// for the first take (whose metrics are the report's top level). The limit is taken from a first
// run's report: just at the first take's value, where a later take is worse. --weight 0 keeps
// each take's own feet (the full fix leaves all three Fox takes clean on the bumps): the
// standing Survey sinks into the bumps less than Walk and Run do.
TEST(TakeAllE2E, FailOnMetricsCountEveryTake) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto input = shared_data_dir() / "anim" / "gltf" / "Fox.glb";
  const auto dir = temp_dir("take_all_fail_on");
  const std::string command =
      "run " + quoted(input) + " --terrain " + quoted(bundled("terrain/bumps.obj")) + " -o " +
      quoted(dir / "fox.glb") + " --clip-unit cm --take all --weight 0" + kFoxLegs;
  auto r = run_ikfix(command + " --report " + quoted(dir / "report.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto report = read_json(dir / "report.json");
  ASSERT_EQ(report["takes"].size(), 3u);
  // A metric on which a later take is worse than the first one.
  struct Metric {
    const char* condition;
    const char* group;
    const char* key;
  };
  const Metric metrics[] = {{"penetration", "penetration", "max_m"},
                            {"slide", "slide", "max_mps"},
                            {"slide-mean", "slide", "mean_mps"},
                            {"float", "float", "mean_m"},
                            {"knee", "knee", "limit_violation_deg"}};
  auto value = [](const nlohmann::json& r, const Metric& m) {
    return r["metrics"]["after"][m.group][m.key].get<double>();
  };
  const Metric* chosen = nullptr;
  double first = 0, worst = 0;
  std::string worst_take;
  for (const Metric& m : metrics) {
    first = value(report["takes"][0], m);
    worst = first;
    for (const auto& t : report["takes"])
      if (value(t, m) > worst) {
        worst = value(t, m);
        worst_take = t["take"]["name"].get<std::string>();
      }
    if (worst > first) {
      chosen = &m;
      break;
    }
  }
  ASSERT_NE(chosen, nullptr) << "no metric where a later Fox take is worse than the first";
  EXPECT_EQ(value(report, *chosen), first);  // the top level is the first take's
  char limit[64];
  // Just at the first take's value: only a later take exceeds it.
  std::snprintf(limit, sizeof limit, "%.17g", first);
  r = run_ikfix(command + " --fail-on '" + chosen->condition + ">" + limit +
                "'");  // quoted: > redirects
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(std::string("--fail-on condition held: ") + chosen->condition),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("(take '" + worst_take + "')"), std::string::npos) << r.output;
  // At the worst take's value nothing exceeds it.
  std::snprintf(limit, sizeof limit, "%.17g", worst);
  r = run_ikfix(command + " --fail-on '" + chosen->condition + ">" + limit + "'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test
