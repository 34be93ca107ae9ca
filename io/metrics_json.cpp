#include "io/metrics_json.hpp"

#include <cmath>

namespace ikfix::io {
namespace {

using Json = nlohmann::ordered_json;

double round9(double v) { return std::isfinite(v) ? std::round(v * 1e9) / 1e9 : 0.0; }
double degrees(double radians) { return round9(radians * 180.0 / core::kPi); }

Json where(const core::Worst& w) {
  Json j{{"frame", w.frame}};
  j["leg"] = w.leg < 0 ? Json(nullptr) : Json(core::kLegSideNames[w.leg]);
  j["point"] = w.point;
  return j;
}

// A depth's worst: {"max_m", "frame", "leg", "point"}; frame -1, leg and point null when no
// point is inside.
Json deepest(const core::Worst& w) {
  Json j{{"max_m", round9(w.value)}};
  j.update(where(w));
  if (w.frame < 0) j["point"] = nullptr;
  return j;
}

Json foot_penetration_json(const core::FootPenetration& p) {
  return {{"nearest", deepest(p.nearest)},
          {"vertical", deepest(p.vertical)},
          {"planted_nearest", deepest(p.planted_nearest)},
          {"planted_vertical", deepest(p.planted_vertical)}};
}

// A largest single-frame jerk (m/s^3) and where: frame (-1 for a clip under 5 frames), leg, point.
Json largest_jerk(const core::Worst& w) {
  Json j{{"mps3", round9(w.value)}};
  j.update(where(w));
  return j;
}

}  // namespace

Json metrics_json(const core::ClipMetrics& m) {
  Json out;
  Json pen{{"max_m", round9(m.penetration.value)}};
  pen.update(where(m.penetration));
  out["penetration"] = pen;
  Json planted{{"max_m", round9(m.planted_penetration.value)}};
  planted.update(where(m.planted_penetration));
  out["planted_penetration"] = planted;
  out["foot_penetration"] = foot_penetration_json(m.foot_penetration);
  Json slide{{"mean_mps", round9(m.mean_slide_mps)}, {"max_mps", round9(m.slide.value)}};
  slide.update(where(m.slide));
  out["slide"] = slide;
  Json fl{{"mean_m", round9(m.mean_float_m)}, {"worst_plant_m", round9(m.float_height.value)}};
  fl.update(where(m.float_height));
  Json gap{{"mean_m", round9(m.mean_ground_gap_m)}, {"worst_plant_m", round9(m.ground_gap.value)}};
  gap.update(where(m.ground_gap));
  fl["ground_gap"] = gap;
  out["float"] = fl;
  out["bone_length_change"] = {{"max", m.bone_length_change.value},
                               {"frame", m.bone_length_change.frame},
                               {"joint", m.bone_length_change.point}};
  Json knee;
  for (int l = 0; l < 2; ++l)
    knee[core::kLegSideNames[l]] = {{"min_deg", degrees(m.legs[l].knee_angle_min_rad)},
                                    {"max_deg", degrees(m.legs[l].knee_angle_max_rad)}};
  knee["limit_violation_deg"] = degrees(m.knee_limit_violation.value);
  knee.update(where(m.knee_limit_violation));
  out["knee"] = knee;
  // "joint" names the joint; "leg" says whose it is (both legs' joints are measured).
  Json turn{{"max_rad_s", round9(m.rotation_speed.value)}, {"frame", m.rotation_speed.frame}};
  turn["leg"] =
      m.rotation_speed.leg < 0 ? Json(nullptr) : Json(core::kLegSideNames[m.rotation_speed.leg]);
  turn["joint"] = m.rotation_speed.point;
  out["rotation_speed"] = turn;
  out["jerk"] = {{"foot_mean_mps3", round9(m.foot_jerk_mean)},
                 {"pelvis_mean_mps3", round9(m.pelvis_jerk_mean)},
                 {"foot_max", largest_jerk(m.foot_jerk_max)},
                 {"pelvis_max", largest_jerk(m.pelvis_jerk_max)}};
  out["non_finite"] = m.non_finite;
  Json legs = Json::array();
  for (const auto& lm : m.legs) {
    Json plants = Json::array();
    for (const auto& p : lm.plants)
      plants.push_back({{"first", p.first},
                        {"last", p.last},
                        {"mean_slide_mps", round9(p.mean_slide_mps)},
                        {"max_slide_mps", round9(p.max_slide_mps)},
                        {"mean_float_m", round9(p.mean_float_m)},
                        {"ground_gap_m", round9(p.ground_gap_m)},
                        {"max_penetration_m", round9(p.max_penetration_m)},
                        {"max_foot_penetration_m", round9(p.max_foot_penetration_m)}});
    legs.push_back({{"side", lm.side},
                    {"frames_in_contact", lm.frames_in_contact},
                    {"foot_jerk_mean_mps3", round9(lm.foot_jerk_mean)},
                    {"foot",
                     {{"toe_tip", core::toe_tip_source_name(lm.toe_tip)},
                      {"toe_length_m", round9(lm.toe_length_m)},
                      {"sole_vertices", lm.sole_vertices}}},
                    {"foot_jerk_max", largest_jerk(lm.foot_jerk_max)},
                    {"plants", plants}});
  }
  out["per_leg"] = legs;
  return out;
}

}  // namespace ikfix::io
