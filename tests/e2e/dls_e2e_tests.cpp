// `ikfix run --solver dls` end to end: the damped least squares leg solver fixes the bundled walk
// onto the stairs as FABRIK does (the goals `check` holds FABRIK to), reports what it cannot
// reach as FABRIK reports it, and writes a file `check` passes.
#include <string>

#include "e2e_support.hpp"

namespace ikfix::test {
namespace {

// `ikfix run` of the bundled walk onto the stairs with `solver` and `extra` options; the report.
nlohmann::json run_walk_on_stairs(const std::filesystem::path& dir, const std::string& solver,
                                  const std::string& extra = "") {
  const auto out = dir / ("walk." + solver + ".bvh");
  const auto report = dir / ("walk." + solver + ".json");
  const auto r = run_ikfix("run " + quoted(bundled("clips/walk.bvh")) + " --terrain " +
                           quoted(bundled("terrain/stairs.obj")) + " --solver " + solver + " -o " +
                           quoted(out) + " --report " + quoted(report) + " " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.exit_code == 0 ? read_json(report) : nlohmann::json();
}

// The goals E2eCheck holds the default solver to, on one run's measured output.
void expect_fix_goals(const nlohmann::json& after, const std::string& solver) {
  EXPECT_EQ(after["non_finite"], 0) << solver;
  EXPECT_LE(after["penetration"]["max_m"].get<double>(), 0.005) << solver;
  EXPECT_LE(after["planted_penetration"]["max_m"].get<double>(), 0.002) << solver;
  EXPECT_LE(after["slide"]["mean_mps"].get<double>(), 0.01) << solver;
  EXPECT_LE(after["float"]["mean_m"].get<double>(), 0.01) << solver;
  EXPECT_LE(after["bone_length_change"]["max"].get<double>(), 1e-5) << solver;
  EXPECT_EQ(after["knee"]["limit_violation_deg"].get<double>(), 0.0) << solver;
}

TEST(DlsE2E, WalkOntoStairsMeetsTheGoalsFabrikMeetsAndPassesCheck) {
  const auto dir = temp_dir("dls_walk");
  const nlohmann::json dls = run_walk_on_stairs(dir, "dls");
  const nlohmann::json fabrik = run_walk_on_stairs(dir, "fabrik");
  ASSERT_FALSE(dls.is_null());
  ASSERT_FALSE(fabrik.is_null());
  EXPECT_EQ(dls["solver"], "dls");
  expect_fix_goals(fabrik["metrics"]["after"], "fabrik");
  expect_fix_goals(dls["metrics"]["after"], "dls");
  EXPECT_EQ(dls["totals"]["unreachable_frames"], fabrik["totals"]["unreachable_frames"]);
  for (const auto& leg : dls["per_leg"]) {
    EXPECT_GT(leg["solver"]["mean_iterations"].get<double>(), 0.0) << leg["side"];
    EXPECT_LE(leg["solver"]["max_iterations"].get<int>(), 64) << leg["side"];  // the bound
    EXPECT_LE(leg["solver"]["max_residual_m"].get<double>(), 1e-3) << leg["side"];
  }
  const auto check =
      run_ikfix("check " + quoted(dir / "walk.dls.bvh") + " --terrain " +
                quoted(bundled("terrain/stairs.obj")) + " --report " + quoted(dir / "check.json") +
                " --fail-on 'penetration>0.005,bone-length>0.00001,nan'");
  EXPECT_EQ(check.exit_code, 0) << check.output;
  const auto measured = read_json(dir / "check.json");
  expect_fix_goals(measured["metrics"], "dls, checked");
  std::filesystem::remove_all(dir);
}

// Without pelvis drop or heel lift the walk cannot reach the lower steps: DLS reports the same
// frames, spans, reasons and shortfalls (to its tolerance) as FABRIK, since the limits that decide
// them are the leg solve's, shared by every solver.
TEST(DlsE2E, UnreachableFramesReportedAsFabrikReportsThem) {
  const auto dir = temp_dir("dls_unreachable");
  const std::string no_help = "--max-pelvis-drop 0 --max-heel-lift 0";
  const nlohmann::json dls = run_walk_on_stairs(dir, "dls", no_help);
  const nlohmann::json fabrik = run_walk_on_stairs(dir, "fabrik", no_help);
  ASSERT_FALSE(dls.is_null());
  ASSERT_FALSE(fabrik.is_null());
  EXPECT_GT(dls["totals"]["unreachable_frames"].get<int>(), 10);
  EXPECT_EQ(dls["totals"]["unreachable_frames"], fabrik["totals"]["unreachable_frames"]);
  EXPECT_NEAR(dls["totals"]["max_shortfall_m"].get<double>(),
              fabrik["totals"]["max_shortfall_m"].get<double>(), 1e-5);
  ASSERT_EQ(dls["per_leg"].size(), fabrik["per_leg"].size());
  for (std::size_t l = 0; l < dls["per_leg"].size(); ++l) {
    const auto& a = dls["per_leg"][l]["unreachable"];
    const auto& b = fabrik["per_leg"][l]["unreachable"];
    ASSERT_EQ(a.size(), b.size()) << l;
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i]["first"], b[i]["first"]) << l << " " << i;
      EXPECT_EQ(a[i]["last"], b[i]["last"]) << l << " " << i;
      EXPECT_EQ(a[i]["reason"], b[i]["reason"]) << l << " " << i;
      EXPECT_NEAR(a[i]["max_shortfall_m"].get<double>(), b[i]["max_shortfall_m"].get<double>(),
                  1e-5)
          << l << " " << i;
    }
  }
  EXPECT_EQ(dls["metrics"]["after"]["non_finite"], 0);
  std::filesystem::remove_all(dir);
}

// --weight blends after the leg solve: 0 keeps the input whatever the solver (the same bytes as
// FABRIK's, the input's measurements), 1 is the full fix (the default's bytes).
TEST(DlsE2E, WeightZeroKeepsTheInputAndWeightOneIsTheFullFix) {
  const auto dir = temp_dir("dls_weight");
  for (const char* solver : {"dls", "fabrik"}) {
    const auto sub = dir / solver;
    std::filesystem::create_directories(sub);
    EXPECT_FALSE(run_walk_on_stairs(sub, solver, "--weight 0").is_null()) << solver;
  }
  EXPECT_EQ(io::read_file(dir / "dls" / "walk.dls.bvh"),
            io::read_file(dir / "fabrik" / "walk.fabrik.bvh"));
  const nlohmann::json kept = read_json(dir / "dls" / "walk.dls.json");
  for (const char* metric : {"penetration", "planted_penetration"})
    EXPECT_EQ(kept["metrics"]["after"][metric]["max_m"], kept["metrics"]["before"][metric]["max_m"])
        << metric;
  EXPECT_EQ(kept["metrics"]["after"]["slide"]["mean_mps"],
            kept["metrics"]["before"]["slide"]["mean_mps"]);
  const auto full = dir / "full";
  const auto fixed = dir / "default";
  std::filesystem::create_directories(full);
  std::filesystem::create_directories(fixed);
  EXPECT_FALSE(run_walk_on_stairs(full, "dls", "--weight 1").is_null());
  EXPECT_FALSE(run_walk_on_stairs(fixed, "dls").is_null());
  EXPECT_EQ(io::read_file(full / "walk.dls.bvh"), io::read_file(fixed / "walk.dls.bvh"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test
