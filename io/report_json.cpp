#include "io/report_json.hpp"

#include <cmath>

#include "io/clip_facts.hpp"
#include "io/file_util.hpp"
#include "io/metrics_json.hpp"

namespace ikfix::io {
namespace {

using Json = nlohmann::ordered_json;

// Rounded to 1e-9 so the report is stable and readable (no 0.30000000000000004).
double round9(double v) { return std::isfinite(v) ? std::round(v * 1e9) / 1e9 : 0.0; }

Json pelvis_limit_json(const std::vector<core::PelvisLimitRange>& ranges) {
  Json out = Json::array();
  for (const auto& r : ranges)
    out.push_back({{"first", r.first},
                   {"last", r.last},
                   {"max_needed_drop_m", round9(r.max_needed_drop_m)},
                   {"worst_frame", r.worst_frame}});
  return out;
}

Json leg_json(const core::LegDiagnostics& leg) {
  Json ranges = Json::array();
  for (const auto& r : leg.unreachable)
    ranges.push_back({{"first", r.first},
                      {"last", r.last},
                      {"max_shortfall_m", round9(r.max_shortfall_m)},
                      {"worst_frame", r.worst_frame},
                      {"reason", r.reason}});
  Json plants = Json::array();
  for (const auto& [first, last] : leg.plants) plants.push_back({first, last});
  Json moves = Json::array();
  for (const auto& m : leg.plant_moves)
    moves.push_back({{"first", m.first},
                     {"last", m.last},
                     {"move_m", round9(m.move_m)},
                     {"direction", {round9(m.direction_x), 0.0, round9(m.direction_z)}},
                     {"along", m.along},
                     {"excess_m", round9(m.excess_m)}});
  Json clearance = {{"toe_bend_frames", leg.toe_clearance_frames},
                    {"raised_frames", leg.foot_raise_frames},
                    {"max_raise_m", round9(leg.max_foot_raise_m)}};
  if (leg.shin_sole_raise_frames >= 0)
    clearance["shin_sole"] = {{"raised_frames", leg.shin_sole_raise_frames},
                              {"max_raise_m", round9(leg.max_shin_sole_raise_m)},
                              {"passes", leg.shin_sole_passes}};
  return {{"side", leg.side},
          {"frames_in_contact", leg.frames_in_contact},
          {"contacts", leg.contact_count},
          {"plants", plants},
          {"plant_moves", moves},
          {"foot_clearance", clearance},
          {"max_correction_m", round9(leg.max_correction_m)},
          {"max_correction_frame", leg.max_correction_frame},
          {"max_penetration_m", round9(leg.max_penetration_m)},
          {"unreachable_frames", leg.unreachable_frames},
          {"unreachable", ranges},
          {"worst_frame", leg.worst_frame},
          {"max_shortfall_m", round9(leg.max_shortfall_m)},
          {"solver",
           {{"mean_iterations", round9(leg.mean_iterations)},
            {"max_iterations", leg.max_iterations},
            {"max_residual_m", round9(leg.max_residual_m)}}}};
}

}  // namespace

Json legs_json(const core::Skeleton& s, const core::LegRig& rig) {
  auto name = [&](int j) { return j >= 0 ? Json(s.names[j]) : Json(nullptr); };
  Json out{{"method", rig.method}, {"pelvis", name(rig.pelvis)}};
  for (int l = 0; l < 2; ++l) {
    const core::Leg& leg = rig.legs[l];
    out[core::kLegSideNames[l]] = {{"hip", name(leg.hip)},
                                   {"knee", name(leg.knee)},
                                   {"ankle", name(leg.ankle)},
                                   {"toe", name(leg.toe)}};
  }
  return out;
}

Json make_run_report(const RunReportInput& in) {
  const LoadedClip& clip = *in.clip;
  const core::FixDiagnostics& d = *in.diagnostics;
  Json report;
  report["schema_version"] = kReportSchemaVersion;
  report["tool"] = {{"name", "ikfix"}, {"version", in.tool_version}};
  report["command"] = in.command;
  report["input"] = clip.path.string();
  report["output"] = in.output_path.empty() ? Json(nullptr) : Json(in.output_path);
  report["terrain"] = in.terrain_path;
  report["format"] = clip.format;
  report["take"] = {
      {"name", clip.take_name}, {"index", clip.take_index}, {"count", clip.take_count}};
  report["skeleton"] = {{"joints", clip.skeleton.joint_count()},
                        {"root", clip.skeleton.names.at(0)}};
  report["legs"] = legs_json(clip.skeleton, *in.rig);
  report["unit"] = {{"name", clip.unit_name},
                    {"metres_per_unit", clip.space.metres_per_unit},
                    {"source", clip.unit_source},
                    {"guessed", clip.unit_source == "guessed"},
                    {"reason", clip.unit_reason}};
  report["up_axis"] = std::string(1, clip.up_axis);
  if (const std::string positions = bvh_positions(clip); !positions.empty())
    report["bvh_positions"] = positions;
  report["frames"] = d.frames;
  report["fps"] = d.fps;
  report["duration_s"] = round9(d.fps > 0 ? d.frames / d.fps : 0.0);
  report["solver"] = d.solver;
  report["floor"] = {{"height_m", round9(d.floor_height_m)}, {"method", d.floor_method}};
  report["body"] = {{"leg_length_m", round9(d.leg_length_m)},
                    {"max_rise_m", round9(d.max_body_rise_m)},
                    {"min_rise_m", round9(d.min_body_rise_m)},
                    {"max_pelvis_drop_m", round9(d.max_pelvis_drop_m)},
                    {"mean_pelvis_drop_m", round9(d.mean_pelvis_drop_m)},
                    {"heel_lift_frames", d.heel_lift_frames},
                    {"max_heel_lift_deg", round9(d.max_heel_lift_rad * 180.0 / core::kPi)},
                    {"pelvis_limit_frames", d.pelvis_limit_frames},
                    {"pelvis_limit", pelvis_limit_json(d.pelvis_limit)}};
  Json legs = Json::array();
  int unreachable = 0;
  double worst = 0;
  int worst_leg = -1;
  for (int l = 0; l < 2; ++l) {
    legs.push_back(leg_json(d.legs[l]));
    unreachable += d.legs[l].unreachable_frames;
    if (d.legs[l].worst_frame >= 0 && d.legs[l].max_shortfall_m > worst) {
      worst = d.legs[l].max_shortfall_m;
      worst_leg = l;
    }
  }
  report["per_leg"] = legs;
  report["totals"] = {{"unreachable_frames", unreachable},
                      {"max_shortfall_m", round9(worst)},
                      {"worst", worst_leg < 0 ? Json(nullptr)
                                              : Json{{"leg", d.legs[worst_leg].side},
                                                     {"frame", d.legs[worst_leg].worst_frame},
                                                     {"shortfall_m", round9(worst)}}},
                      {"off_terrain_samples", d.off_terrain_frames},
                      {"max_bone_length_change", d.max_bone_length_change}};
  if (in.metrics_before && in.metrics_after)
    report["metrics"] = {{"before", metrics_json(*in.metrics_before)},
                         {"after", metrics_json(*in.metrics_after)}};
  else if (in.metrics_before)
    report["metrics"] = metrics_json(*in.metrics_before);
  Json warnings = Json::array();
  for (const auto& w : clip.warnings) warnings.push_back(w);
  for (const auto& w : d.warnings) warnings.push_back(w);
  report["warnings"] = warnings;
  return report;
}

void save_json(const std::filesystem::path& path, const nlohmann::ordered_json& json) {
  write_file_atomic(path, json.dump(2) + "\n");
}

}  // namespace ikfix::io
