// Real-data regression (ACL style): every humanoid clip in ../shared/data/anim (BVH, FBX, glTF)
// x every bundled terrain, fixed by `ikfix run` and measured by `ikfix check` on the written file.
// A failure prints the clip, terrain, metric, worst frame and the command to reproduce it.
// Each case also appends a row to regression_table.md in the working folder: clip | terrain |
// slide mean before / after (m/s) | slide max before / after | planted penetration before /
// after (m) | penetration | float | bone length change vs the input | foot jerk ratio (the worse
// ankle's) | pelvis jerk
// ratio | largest single-frame ankle jerk before / after (m/s^3, leg@frame after) | fastest
// leg-joint turn before / after (rad/s) | unreachable frames | max / mean pelvis drop (m) |
// heel-lift leg-frames | worst slide (leg point@frame) | foot penetration (every foot point,
// nearest-surface depth) before / after (m) | planted foot penetration after (m) | vertical foot
// depth after (m) | deepest foot point after (leg point@frame) | every goal met (a known miss's
// ratchet is no goal).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "e2e/e2e_support.hpp"
#include "regression/regression_clips.hpp"

namespace ikfix::test {
namespace {

// The issue's goals, met on every clip and terrain: they are the limits. History of the worst
// sliding (goal 2 cm/s, check's within-plant definition), once held by per-clip ratchets: boxing
// on flat, slope and bumps (13.6-18.0 cm/s next to "too close" frames) met it once the knees may
// fold as far as the boxer's own do; cmu_61_01 on bumps (7.7 cm/s, plans alternating over a heel
// at the contact speed threshold) and boxing on the stairs (27.4 cm/s, heel- and toe-held plans
// alternating over a step edge) once a leg still sliding after the contact passes gets its
// sliding point held where check measures it, a toe-held heel lifted out of the tread it is
// carried over (pivot_repair.hpp). regression_table.md still marks which cases meet the goal.
struct Limits {
  double planted_penetration_m = 0.002;
  double penetration_m = 0.005;
  // Every foot point (ankle, heel, ball, toe tip; sole vertices of a skinned character) by its
  // depth to the nearest surface of the terrain, risers included: what a viewer sees.
  double planted_foot_penetration_m = 0.002;
  double foot_penetration_m = 0.005;
  double float_mean_m = 0.01;
  double slide_mean_goal_mps = 0.005;
  double slide_max_goal_mps = 0.02;
  double bone_length = 1e-5;
  // Each ankle's mean jerk against the same ankle's in the input (and the hips'): a viewer sees
  // each foot, so one ankle's pops are not averaged away by the other's calm.
  double jerk_ratio_goal = 1.2;
  // No pops at lock changes: no frame's ankle jerk above this times the input's largest.
  double jerk_spike_ratio = 3.0;
  // No pops: a leg joint's fastest frame-to-frame turn after the fix stays within 1.2x the
  // input's fastest (the ratio the issue sets for jerk), or within 25 rad/s where the input is
  // slower: 1430 deg/s, about a knee's speed in a fast kick, 12 degrees a frame at 120 fps.
  // Relative, because the salsa and jump inputs turn their feet at 50-120 rad/s themselves
  // (mocap spins). Pops this caught: cmu_02_01 on the stairs, 78 rad/s (the knee 37 degrees in
  // one frame as a swing foot rose 7.4 cm at lift-off; now 22 rad/s, its trailing knee folding
  // as the foot is lifted over the step); boxing on the stairs, 49 rad/s (a toe-held heel's
  // rise dropped at lift-off; now the input's 40).
  double rotation_speed_ratio = 1.2;
  double rotation_speed_floor_rad_s = 25.0;
};

// The shared clips (regression_clips.hpp), or one placeholder case that skips (or fails under
// CI=true) when ../shared/data is missing.
std::vector<std::string> clips() {
  std::vector<std::string> out = shared_regression_clips();
  if (out.empty()) out.push_back("(no shared data)");
  return out;
}

// A case that misses goals is held here to what it measures so it cannot get worse (a ratchet,
// not a goal; regression_table.md marks it "not yet"). Ankle jerk is measured per ankle since the
// mean of both hid one ankle's pops. Each limit is the value measured, rounded up in its third
// digit.
// Once held here: the barbarian on the stairs (its foot mesh on the shin bone, no foot bone: the
// right sole 1.5 cm inside a riser as check then measured it, 8.7 cm by its whole foot; clean
// since plant placement is given the skinned foot's vertices and moves the plant off the riser),
// cmu_131_01 on the bumps (1.22x, a planted foot turned to each bump face its
// rising heel crossed; 1.15x since a plant keeps one ground normal, plant_normal.hpp), on the
// stairs (left ankle 1.21x: swings that climb or drop at once right at lift-off or touchdown;
// 1.15x since step 5d eases them, swing_ease.hpp) and CesiumMan on the bumps, its left ankle
// 1.26x (a swing foot's heel lift flipping sides as the ankle passed over the ball; 1.15x since
// the lift fades there, heel_lift_weight).
struct KnownMiss {
  double rotation_speed_rad_s = 0;  // 0: the goal holds
  double foot_jerk_ratio = 0;       // the worse ankle's
  double foot_jerk_max_mps3 = 0;
  double slide_max_mps = 0;
  double foot_penetration_m = 0;  // nearest-surface, any frame and planted
};
KnownMiss known_miss(const std::string& clip, const std::string& terrain) {
  (void)clip;
  (void)terrain;
  return {};
}

std::filesystem::path clip_path(const std::string& clip) {
  return shared_regression_clip_path(clip);
}

// Largest relative change of any bone's length between input and output, every bone and frame,
// measured from the two files (FBX and glTF rigs animate joint translations, so the rest pose is
// no reference: check's own metric is against it).
double bone_change_vs_input(const std::filesystem::path& input, const std::filesystem::path& output,
                            double metres_per_unit, const std::string& pelvis) {
  io::ClipLoadOptions options;
  options.metres_per_unit = metres_per_unit;
  const PosedClip before = pose_clip(input, options);
  const PosedClip after = pose_clip(output, options);
  EXPECT_EQ(before.loaded.clip.frame_count, after.loaded.clip.frame_count);
  EXPECT_EQ(before.joints, after.joints);
  if (before.joints != after.joints ||
      before.loaded.clip.frame_count != after.loaded.clip.frame_count)
    return 1e9;
  double worst = 0;
  const auto& parents = after.loaded.skeleton.parents;
  // The pelvis and its ancestors carry the root motion the fix changes (the body following the
  // terrain): their offsets from their parents are no bones.
  std::vector<char> moves_with_root(after.joints, 0);
  for (int j = after.loaded.skeleton.find(pelvis); j >= 0; j = parents[j]) moves_with_root[j] = 1;
  for (int f = 0; f < after.loaded.clip.frame_count; ++f)
    for (int j = 0; j < after.joints; ++j) {
      const int p = parents[j];
      if (p < 0) continue;
      const double a = glm::length(before.at(f, j) - before.at(f, p));
      const double b = glm::length(after.at(f, j) - after.at(f, p));
      if (a > 1e-9 && !moves_with_root[j]) worst = std::max(worst, std::abs(b - a) / a);
    }
  return worst;
}

class Regression : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(Regression, FixedClipMeetsTheQualityBar) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto& [clip_name, terrain_name] = GetParam();
  const auto clip = clip_path(clip_name);
  const auto terrain = bundled("terrain/" + terrain_name + ".obj");
  const auto dir = temp_dir("regression_" + clip.filename().string() + "_" + terrain_name);
  const auto out = dir / ("out" + clip.extension().string());
  const std::string run_cmd = "run " + quoted(clip) + " --terrain " + quoted(terrain) + " -o " +
                              quoted(out) + " --report " + quoted(dir / "run.json");
  const auto run = run_ikfix(run_cmd);
  ASSERT_EQ(run.exit_code, 0) << "ikfix " << run_cmd << "\n" << run.output;
  const std::string check_cmd = "check " + quoted(out) + " --terrain " + quoted(terrain) +
                                " --report " + quoted(dir / "check.json");
  const auto check = run_ikfix(
      check_cmd + " --clip-unit " +
      std::to_string(read_json(dir / "run.json")["unit"]["metres_per_unit"].get<double>()));
  ASSERT_EQ(check.exit_code, 0) << "ikfix " << check_cmd << "\n" << check.output;
  const auto before = read_json(dir / "run.json")["metrics"]["before"];
  const auto after = read_json(dir / "check.json")["metrics"];
  const auto run_report = read_json(dir / "run.json");
  const Limits lim;

  std::ostringstream failures;
  auto expect_le = [&](const char* metric, double value, double limit,
                       const nlohmann::json& where) {
    if (value <= limit) return;
    failures << "  " << metric << " = " << value << " > " << limit << " at frame "
             << where.value("frame", -1) << " ("
             << (where.contains("leg") && !where["leg"].is_null() ? where["leg"].get<std::string>()
                                                                  : "-")
             << " " << where.value("point", where.value("joint", std::string())) << ")\n";
  };
  expect_le("planted_penetration_m", after["planted_penetration"]["max_m"],
            lim.planted_penetration_m, after["planted_penetration"]);
  expect_le("penetration_m", after["penetration"]["max_m"], lim.penetration_m,
            after["penetration"]);
  const KnownMiss miss = known_miss(clip_name, terrain_name);
  const bool held_by_ratchet = miss.rotation_speed_rad_s > 0 || miss.foot_jerk_ratio > 0 ||
                               miss.foot_jerk_max_mps3 > 0 || miss.slide_max_mps > 0 ||
                               miss.foot_penetration_m > 0;
  const auto& foot = after["foot_penetration"];
  expect_le("planted_foot_penetration_m", foot["planted_nearest"]["max_m"],
            std::max(lim.planted_foot_penetration_m, miss.foot_penetration_m),
            foot["planted_nearest"]);
  expect_le("foot_penetration_m", foot["nearest"]["max_m"],
            std::max(lim.foot_penetration_m, miss.foot_penetration_m), foot["nearest"]);
  expect_le("float_mean_m", after["float"]["mean_m"], lim.float_mean_m, after["float"]);
  expect_le("slide_mean_mps", after["slide"]["mean_mps"], lim.slide_mean_goal_mps, after["slide"]);
  expect_le("slide_max_mps", after["slide"]["max_mps"],
            std::max(lim.slide_max_goal_mps, miss.slide_max_mps), after["slide"]);
  const double bone_change =
      bone_change_vs_input(clip, out, run_report["unit"]["metres_per_unit"].get<double>(),
                           run_report["legs"]["pelvis"].get<std::string>());
  expect_le("bone_length_change_vs_input", bone_change, lim.bone_length, nlohmann::json::object());
  double foot_jerk = 0;  // the worse ankle's ratio
  for (int l = 0; l < 2; ++l)
    foot_jerk = std::max(
        foot_jerk, after["per_leg"][l]["foot_jerk_mean_mps3"].get<double>() /
                       std::max(1e-9, before["per_leg"][l]["foot_jerk_mean_mps3"].get<double>()));
  const double pelvis_jerk = after["jerk"]["pelvis_mean_mps3"].get<double>() /
                             std::max(1e-9, before["jerk"]["pelvis_mean_mps3"].get<double>());
  expect_le("foot_jerk_ratio", foot_jerk, std::max(lim.jerk_ratio_goal, miss.foot_jerk_ratio),
            nlohmann::json::object());
  expect_le("pelvis_jerk_ratio", pelvis_jerk, lim.jerk_ratio_goal, nlohmann::json::object());
  const double foot_jerk_max_before = before["jerk"]["foot_max"]["mps3"].get<double>();
  const double foot_jerk_max_after = after["jerk"]["foot_max"]["mps3"].get<double>();
  expect_le("foot_jerk_max_mps3", foot_jerk_max_after,
            std::max(lim.jerk_spike_ratio * foot_jerk_max_before, miss.foot_jerk_max_mps3),
            after["jerk"]["foot_max"]);
  // The knee limit applies to what the fix makes: never tighter than the input's own bend.
  expect_le("knee_limit_violation_deg", after["knee"]["limit_violation_deg"],
            std::max(1e-3, before["knee"]["limit_violation_deg"].get<double>() + 1e-3),
            after["knee"]);
  expect_le("non_finite", after["non_finite"], 0.0, nlohmann::json::object());
  const double rotation_before = before["rotation_speed"]["max_rad_s"].get<double>();
  const double rotation_after = after["rotation_speed"]["max_rad_s"].get<double>();
  expect_le("rotation_speed_rad_s", rotation_after,
            std::max({lim.rotation_speed_ratio * rotation_before, lim.rotation_speed_floor_rad_s,
                      miss.rotation_speed_rad_s}),
            after["rotation_speed"]);

  {
    std::ofstream table("regression_table.md", std::ios::app);
    const auto& slide_at = after["slide"];
    const std::string worst_slide =
        (slide_at["leg"].is_null() ? std::string("-") : slide_at["leg"].get<std::string>()) + " " +
        slide_at.value("point", std::string("-")) + "@" +
        std::to_string(slide_at.value("frame", -1));
    const auto& jerk_at = after["jerk"]["foot_max"];
    const std::string worst_jerk =
        (jerk_at["leg"].is_null() ? std::string("-") : jerk_at["leg"].get<std::string>()) + "@" +
        std::to_string(jerk_at.value("frame", -1));
    const auto& deepest = after["foot_penetration"]["nearest"];
    const std::string deepest_at = deepest["leg"].is_null()
                                       ? std::string("-")
                                       : deepest["leg"].get<std::string>() + " " +
                                             deepest["point"].get<std::string>() + "@" +
                                             std::to_string(deepest["frame"].get<int>());
    char row[900];
    std::snprintf(
        row, sizeof row,
        "| %s | %s | %.4f / %.4f | %.4f / %.4f | %.4f / %.4f | %.4f | %.4f | %.2g | %.2f | %.2f | "
        "%.0f / %.0f (%s) | %.1f / %.1f | %d | %.3f / %.4f | %d | %s | %.4f / %.4f | %.4f | %.4f | "
        "%s | %s |\n",
        clip_name.c_str(), terrain_name.c_str(), before["slide"]["mean_mps"].get<double>(),
        after["slide"]["mean_mps"].get<double>(), before["slide"]["max_mps"].get<double>(),
        after["slide"]["max_mps"].get<double>(),
        before["planted_penetration"]["max_m"].get<double>(),
        after["planted_penetration"]["max_m"].get<double>(),
        after["penetration"]["max_m"].get<double>(), after["float"]["mean_m"].get<double>(),
        bone_change, foot_jerk, pelvis_jerk, foot_jerk_max_before, foot_jerk_max_after,
        worst_jerk.c_str(), rotation_before, rotation_after,
        run_report["totals"]["unreachable_frames"].get<int>(),
        run_report["body"]["max_pelvis_drop_m"].get<double>(),
        run_report["body"].value("mean_pelvis_drop_m", 0.0),
        run_report["body"].value("heel_lift_frames", 0), worst_slide.c_str(),
        before["foot_penetration"]["nearest"]["max_m"].get<double>(),
        deepest["max_m"].get<double>(),
        after["foot_penetration"]["planted_nearest"]["max_m"].get<double>(),
        after["foot_penetration"]["vertical"]["max_m"].get<double>(), deepest_at.c_str(),
        failures.str().empty() && !held_by_ratchet && foot_jerk <= lim.jerk_ratio_goal &&
                rotation_after <= std::max(lim.rotation_speed_ratio * rotation_before,
                                           lim.rotation_speed_floor_rad_s)
            ? "met"
            : "not yet");
    table << row;
  }
  EXPECT_TRUE(failures.str().empty())
      << clip_name << " on " << terrain_name << ":\n"
      << failures.str() << "reproduce: ikfix " << run_cmd << " && ikfix " << check_cmd;
  std::filesystem::remove_all(dir);
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<std::string, std::string>>& info) {
  std::string name = std::get<0>(info.param) + "_" + std::get<1>(info.param);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(SharedClips, Regression,
                         ::testing::Combine(::testing::ValuesIn(clips()),
                                            ::testing::Values("flat", "stairs", "slope", "bumps")),
                         case_name);

}  // namespace
}  // namespace ikfix::test
