// `ikfix check` end to end: a flat-ground clip measured against stairs is in the steps; the same
// clip after `ikfix run` is not, and its planted feet barely slide.
#include "e2e_support.hpp"

namespace ikfix::test {
namespace {

TEST(E2eCheck, FixedClipPassesWhatTheInputFails) {
  const auto dir = temp_dir("check");
  const auto stairs = bundled("terrain/stairs.obj");
  auto before =
      run_ikfix("check " + quoted(bundled("clips/walk.bvh")) + " --terrain " + quoted(stairs) +
                " --report " + quoted(dir / "before.json") + " --fail-on 'penetration>0.005'");
  EXPECT_EQ(before.exit_code, 1) << before.output;
  const auto b = read_json(dir / "before.json");
  EXPECT_EQ(b["command"], "check");
  EXPECT_TRUE(b["output"].is_null());
  EXPECT_GT(b["metrics"]["penetration"]["max_m"].get<double>(),
            0.1);  // walking through 1.5 m of stairs
  EXPECT_GE(b["metrics"]["penetration"]["frame"].get<int>(), 0);

  const auto out = dir / "fixed.bvh";
  auto run = run_ikfix("run " + quoted(bundled("clips/walk.bvh")) + " --terrain " + quoted(stairs) +
                       " -o " + quoted(out));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  auto after = run_ikfix("check " + quoted(out) + " --terrain " + quoted(stairs) + " --report " +
                         quoted(dir / "after.json") +
                         " --fail-on 'penetration>0.005,bone-length>0.00001,nan'");
  EXPECT_EQ(after.exit_code, 0) << after.output;
  const auto a = read_json(dir / "after.json");
  EXPECT_LE(a["metrics"]["planted_penetration"]["max_m"].get<double>(), 0.002);
  EXPECT_LE(a["metrics"]["slide"]["mean_mps"].get<double>(), 0.01);
  EXPECT_LE(a["metrics"]["float"]["mean_m"].get<double>(), 0.01);
  EXPECT_EQ(a["metrics"]["non_finite"], 0);
  // Both feet plant on every stride of the 4 s walk.
  for (const auto& leg : a["metrics"]["per_leg"]) EXPECT_GE(leg["plants"].size(), 3u);
  std::filesystem::remove_all(dir);
}

TEST(E2eCheck, RunReportCarriesMetricsBeforeAndAfter) {
  const auto dir = temp_dir("run_metrics");
  auto run = run_ikfix("run " + quoted(bundled("clips/walk.bvh")) + " --terrain " +
                       quoted(bundled("terrain/stairs.obj")) + " -o " + quoted(dir / "o.bvh") +
                       " --report " + quoted(dir / "r.json"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto r = read_json(dir / "r.json");
  ASSERT_TRUE(r["metrics"].contains("before"));
  ASSERT_TRUE(r["metrics"].contains("after"));
  EXPECT_GT(r["metrics"]["before"]["penetration"]["max_m"].get<double>(),
            r["metrics"]["after"]["penetration"]["max_m"].get<double>());
  // The fastest leg-joint turn names its joint and that joint's leg.
  const auto& turn = r["metrics"]["after"]["rotation_speed"];
  EXPECT_GT(turn["max_rad_s"].get<double>(), 0.0);
  const std::string side = turn["leg"].get<std::string>();
  ASSERT_TRUE(side == "left" || side == "right") << turn;
  const std::string joint = turn["joint"].get<std::string>();
  bool of_that_leg = false;
  for (const char* part : {"hip", "knee", "ankle", "toe"})
    of_that_leg = of_that_leg || (r["legs"][side].contains(part) && r["legs"][side][part] == joint);
  EXPECT_TRUE(of_that_leg) << joint << " is not a joint of the " << side << " leg: " << r["legs"];
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test
