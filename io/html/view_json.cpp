#include "io/html/view_json.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

#include "io/html/packed_data.hpp"
#include "io/html/script_safe.hpp"

namespace ikfix::io {
namespace {

// `json` (an object's text) with `"name":"text"` added as its last member. For long base64 text,
// which needs no escaping: the JSON library would scan every character of it.
std::string with_string(std::string json, std::string_view name, std::string_view text) {
  json.pop_back();  // the closing brace
  if (json.size() > 1) json += ',';
  json += '"';
  json += name;
  json += "\":\"";
  json += text;
  json += "\"}";
  return json;
}

// {"step": grid, "bytes": series_varints in base64}: the page decodes absent values as null.
// Not deflated: mostly one byte a frame already, and the page decodes them without a stream.
void put_series(std::string& out, const char* name, const std::vector<double>& values,
                double step) {
  const nlohmann::ordered_json j = {{"step", step}};
  out += '"';
  out += name;
  out += "\":" + with_string(j.dump(), "bytes", base64(series_varints(values, step)));
}

void put_series(std::string& out, const char* name,
                const std::vector<std::optional<double>>& values, double step) {
  std::vector<double> plain;
  plain.reserve(values.size());
  for (const auto& v : values) plain.push_back(v.value_or(std::nan("")));
  put_series(out, name, plain, step);
}

constexpr double kMetreStep = 1e-5, kSpeedStep = 1e-5, kDegreeStep = 1e-3;

std::string foot_series_json(const core::FootSeries& s) {
  std::string out = "{";
  put_series(out, "lowest_before_m", s.lowest_before_m, kMetreStep);
  out += ',';
  put_series(out, "lowest_after_m", s.lowest_after_m, kMetreStep);
  out += ',';
  put_series(out, "pivot_slide_before_mps", s.pivot_slide_before_mps, kSpeedStep);
  out += ',';
  put_series(out, "pivot_slide_after_mps", s.pivot_slide_after_mps, kSpeedStep);
  out += ',';
  put_series(out, "knee_before_deg", s.knee_before_deg, kDegreeStep);
  out += ',';
  put_series(out, "knee_after_deg", s.knee_after_deg, kDegreeStep);
  out += ',';
  put_series(out, "shortfall_m", s.shortfall_m, kMetreStep);
  return out + '}';
}

std::string terrain_json(const core::TerrainMesh& mesh) {
  std::vector<std::uint32_t> indices;
  indices.reserve(mesh.triangles.size() * 3);
  for (const auto& t : mesh.triangles) indices.insert(indices.end(), t.begin(), t.end());
  nlohmann::ordered_json j;
  j["vertexCount"] = mesh.vertices.size();
  j["triangleCount"] = mesh.triangles.size();
  std::string out = with_string(j.dump(), "vertices", packed(float32_bytes(mesh.vertices)));
  return with_string(std::move(out), "triangles", packed(uint32_bytes(indices)));
}

// {"step_m", "before", "after"}: delta_varints in base64.
std::string positions_json(const core::ReportView& view) {
  nlohmann::ordered_json j = {{"step_m", kPositionStep_m}};
  std::string out = with_string(
      j.dump(), "before", base64(delta_varints(view.before.positions, view.before.point_count)));
  return with_string(std::move(out), "after",
                     base64(delta_varints(view.after.positions, view.after.point_count)));
}

// Every member but "positions" (which follows them).
nlohmann::ordered_json skeleton_json(const core::ReportView& view) {
  nlohmann::ordered_json j;
  j["fps"] = view.fps;
  j["frames"] = view.after.frame_count;
  j["jointNames"] = view.joint_names;
  j["parents"] = view.parents;
  j["pointCount"] = view.after.point_count;
  j["pelvis"] = view.pelvis;
  for (const core::ViewFoot& foot : view.feet)
    j["feet"].push_back({{"ankle", foot.ankle}, {"toe", foot.toe}, {"tip", foot.tip}});
  return j;
}

std::string source_json(const core::ViewFigure& source) {
  nlohmann::ordered_json j;
  j["jointNames"] = source.joint_names;
  j["parents"] = source.parents;
  j["pointCount"] = source.positions.point_count;
  j["frames"] = source.positions.frame_count;
  return with_string(
      script_safe_json(j.dump()), "positions",
      base64(delta_varints(source.positions.positions, source.positions.point_count)));
}

}  // namespace

std::string view_json(const core::ReportView& view) {
  std::string out = script_safe_json(skeleton_json(view).dump());
  out.pop_back();  // the closing brace: positions, terrain and series follow
  out += ",\"positions\":" + positions_json(view);
  if (view.source) out += ",\"source\":" + source_json(*view.source);
  out += ",\"terrain\":" + terrain_json(view.terrain) + ",\"series\":{";
  put_series(out, "pelvis_change_m", view.series.pelvis_change_m, kMetreStep);
  out += ",\"feet\":[" + foot_series_json(view.series.feet[0]) + ',' +
         foot_series_json(view.series.feet[1]) + "]}}";
  return out;
}

}  // namespace ikfix::io
