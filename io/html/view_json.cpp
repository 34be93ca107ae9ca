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

// Appends `"name":"` (preceded by a comma unless `out` ends an opening brace), then `text`'s
// base64 and the closing quote. Long base64 text needs no escaping, so it bypasses the JSON
// library, which would scan every character of it, and is appended in place.
void put_base64(std::string& out, std::string_view name, std::string_view bytes) {
  if (out.back() != '{') out += ',';
  out += '"';
  out += name;
  out += "\":\"";
  append_base64(out, bytes);
  out += '"';
}

// put_base64 of delta_varints(positions), made straight into `out`.
void put_positions_base64(std::string& out, std::string_view name,
                          const core::ViewPositions& positions) {
  if (out.back() != '{') out += ',';
  out += '"';
  out += name;
  out += "\":\"";
  append_delta_varints_base64(out, positions.positions, positions.point_count);
  out += '"';
}

// Appends `json` (an object's text) without its closing brace.
void put_open_object(std::string& out, const nlohmann::ordered_json& j) {
  out += j.dump();
  out.pop_back();
}

// "name":{"step": grid, "bytes": series_varints in base64}: the page decodes absent values as
// null. Not deflated: mostly one byte a frame already, and the page decodes them without a
// stream.
void put_series(std::string& out, const char* name, const std::vector<double>& values,
                double step) {
  out += '"';
  out += name;
  out += "\":";
  put_open_object(out, {{"step", step}});
  put_base64(out, "bytes", series_varints(values, step));
  out += '}';
}

void put_series(std::string& out, const char* name,
                const std::vector<std::optional<double>>& values, double step) {
  std::vector<double> plain;
  plain.reserve(values.size());
  for (const auto& v : values) plain.push_back(v.value_or(std::nan("")));
  put_series(out, name, plain, step);
}

constexpr double kMetreStep = 1e-5, kSpeedStep = 1e-5, kDegreeStep = 1e-3;

void put_foot_series(std::string& out, const core::FootSeries& s) {
  out += '{';
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
  out += '}';
}

void put_terrain(std::string& out, const core::TerrainMesh& mesh) {
  std::vector<std::uint32_t> indices;
  indices.reserve(mesh.triangles.size() * 3);
  for (const auto& t : mesh.triangles) indices.insert(indices.end(), t.begin(), t.end());
  nlohmann::ordered_json j;
  j["vertexCount"] = mesh.vertices.size();
  j["triangleCount"] = mesh.triangles.size();
  put_open_object(out, j);
  out += ",\"vertices\":\"" + packed(float32_bytes(mesh.vertices));
  out += "\",\"triangles\":\"" + packed(uint32_bytes(indices)) + "\"}";
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

void put_source(std::string& out, const core::ViewFigure& source) {
  nlohmann::ordered_json j;
  j["jointNames"] = source.joint_names;
  j["parents"] = source.parents;
  j["pointCount"] = source.positions.point_count;
  j["frames"] = source.positions.frame_count;
  out += script_safe_json(j.dump());
  out.pop_back();
  put_positions_base64(out, "positions", source.positions);
  out += '}';
}

// An upper bound of view_json_tail's length, so that it is built in one block: base64 of the
// positions' varints (at most 3 bytes a coordinate for the usual motion; more only grows the
// string) and room for the rest.
std::size_t expected_size(const core::ReportView& view) {
  const std::size_t points =
      view.after.positions.size() + (view.source ? view.source->positions.positions.size() : 0);
  return points * 3 * 4 + (view.terrain.vertices.size() + view.terrain.triangles.size()) * 24 +
         static_cast<std::size_t>(view.after.frame_count) * 64 + 65536;
}

}  // namespace

std::string positions_text(const core::ViewPositions& positions) {
  std::string out;
  out.reserve((positions.positions.size() * 3 * 2 + 2) / 3 * 4);  // two bytes a coordinate
  append_delta_varints_base64(out, positions.positions, positions.point_count);
  return out;
}

std::string view_json_head(const core::ReportView& view) {
  std::string out = script_safe_json(skeleton_json(view).dump());
  out.pop_back();  // the closing brace: positions, terrain and series follow
  out += ",\"positions\":";
  put_open_object(out, {{"step_m", kPositionStep_m}});
  out += ",\"before\":\"";
  return out;
}

std::string view_json_tail(const core::ReportView& view) {
  std::string out;
  out.reserve(expected_size(view));
  out += '"';
  put_positions_base64(out, "after", view.after);
  out += '}';
  if (view.source) {
    out += ",\"source\":";
    put_source(out, *view.source);
  }
  out += ",\"terrain\":";
  put_terrain(out, view.terrain);
  out += ",\"series\":{";
  put_series(out, "pelvis_change_m", view.series.pelvis_change_m, kMetreStep);
  out += ",\"feet\":[";
  put_foot_series(out, view.series.feet[0]);
  out += ',';
  put_foot_series(out, view.series.feet[1]);
  out += "]}}";
  return out;
}

std::string view_json(const core::ReportView& view) {
  return view_json_head(view) + positions_text(view.before) + view_json_tail(view);
}

}  // namespace ikfix::io
