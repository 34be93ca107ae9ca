#include "io/retarget_json.hpp"

#include <cmath>

namespace ikfix::io {
namespace {

using Json = nlohmann::ordered_json;

double round9(double v) { return std::round(v * 1e9) / 1e9; }
double degrees(double rad) { return round9(rad * 180.0 / core::kPi); }

Json names(const core::Skeleton& sk, const std::vector<int>& joints) {
  Json out = Json::array();
  for (int j : joints) out.push_back(sk.names[j]);
  return out;
}

}  // namespace

Json bone_pairs_json(const core::BoneMap& map, const core::Skeleton& source,
                     const core::Skeleton& target) {
  Json pairs = Json::array();
  for (const core::BonePair& p : map.pairs)
    pairs.push_back({{"source", source.names[p.source]},
                     {"target", target.names[p.target]},
                     {"target_end_site", p.target_end_site},
                     {"role", p.role},
                     {"provenance", core::provenance_name(p.provenance)},
                     {"confidence", round9(p.confidence)}});
  return pairs;
}

Json retarget_quality_json(const core::RetargetQuality& q) {
  Json chains = Json::array();
  for (const core::ChainError& c : q.chains)
    chains.push_back({{"chain", c.name},
                      {"mean", round9(c.mean)},
                      {"max", round9(c.max)},
                      {"worst_frame", c.worst_frame}});
  const core::FeetAtContacts& f = q.feet;
  return {{"end_effector_error", chains},
          {"bone_direction_error_deg",
           {{"mean", degrees(q.direction_error_mean_rad)},
            {"max", degrees(q.direction_error_max_rad)},
            {"worst_bone", q.direction_worst_bone},
            {"worst_frame", q.direction_worst_frame}}},
          {"max_bone_length_change", q.max_bone_length_change},
          {"feet_at_source_contacts",
           {{"slide_mean_mps", round9(f.slide_mean_mps)},
            {"slide_max_mps", round9(f.slide_max_mps)},
            {"worst_slide_frame", f.worst_slide_frame},
            {"worst_slide_leg",
             f.worst_slide_leg < 0 ? Json(nullptr) : Json(core::kLegSideNames[f.worst_slide_leg])},
            {"float_mean_m", round9(f.float_mean_m)},
            {"float_max_m", round9(f.float_max_m)},
            {"ground_gap_m", round9(f.ground_gap_m)},
            {"penetration_max_m", round9(f.penetration_max_m)},
            {"source_contact_frames", f.source_contact_frames},
            {"target_contact_frames", f.target_contact_frames},
            {"contact_precision", round9(f.contact_precision)},
            {"contact_recall", round9(f.contact_recall)}}}};
}

Json retarget_section_json(const core::RetargetPipelineResult& r, const core::BoneMap& map,
                           const core::Skeleton& source, const core::Skeleton& target) {
  const core::RetargetResult& t = r.transfer;
  Json alignment = Json::array();
  for (const core::BoneAlignment& a : t.alignment) {
    const core::BonePair& p = map.pairs[a.pair];
    alignment.push_back({{"target", target.names[p.target]},
                         {"source", source.names[p.source]},
                         {"angle_deg", degrees(a.angle_rad)},
                         {"from", a.has_direction ? "own bone" : "parent"}});
  }
  Json missing = Json::array();
  for (const auto& m : map.missing_roles) missing.push_back(m);
  Json warnings = Json::array();
  for (const auto& w : t.warnings) warnings.push_back(w);
  return {{"map", bone_pairs_json(map, source, target)},
          {"unmapped_source", names(source, map.unmapped_source)},
          {"unmapped_target", names(target, map.unmapped_target)},
          {"excluded_target", names(target, map.excluded_target)},
          {"missing_roles", missing},
          {"scale",
           {{"horizontal", round9(t.scale)},
            {"method", t.scale_method},
            {"source_leg_length_m", round9(t.source_leg_length_m)},
            {"target_leg_length_m", round9(t.target_leg_length_m)}}},
          {"ground_offset_m", round9(t.ground_offset_m)},
          {"ground",
           {{"level_m", round9(t.ground_level_m)},
            {"method", t.target_rest_on_ground ? "target rest" : "source scaled"}}},
          {"raised_toe_frames", t.raised_toe_frames},
          {"facing_deg", degrees(t.facing_angle_rad)},
          {"rest_alignment", alignment},
          {"feet_fixed", r.feet_fixed},
          {"quality",
           {{"transfer", retarget_quality_json(r.transfer_quality)},
            {"final", retarget_quality_json(r.quality)}}},
          {"warnings", warnings}};
}

}  // namespace ikfix::io
