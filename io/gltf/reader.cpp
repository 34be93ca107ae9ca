#include "io/gltf/reader.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <glm/gtc/quaternion.hpp>
#include <limits>
#include <unordered_map>

#include "core/fk.hpp"
#include "core/units.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/gltf/base64.hpp"
#include "io/gltf/json_text.hpp"
#include "io/gltf/sampling.hpp"
#include "io/gltf/uri_file.hpp"
#include "io/matrix_trs.hpp"
#include "io/memory_budget.hpp"

namespace ikfix::io::gltf {
namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t kGlbMagic = 0x46546C67;   // "glTF"
constexpr std::uint32_t kChunkJson = 0x4E4F534A;  // "JSON"
constexpr std::uint32_t kChunkBin = 0x004E4942;   // "BIN\0"

[[noreturn]] void fail(const Document& doc, const std::string& cause) {
  throw InputError(doc.source_name, cause);
}

std::uint32_t u32(const std::string& bytes, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, bytes.data() + at, 4);
  return v;
}

void split_glb(Document& doc) {
  const std::string& b = doc.file_bytes;
  if (b.size() < 20)
    fail(doc, "GLB too short for its header (" + std::to_string(b.size()) + " bytes)");
  const std::uint32_t version = u32(b, 4);
  if (version != 2)
    fail(doc, "GLB version " + std::to_string(version) + " is not supported (glTF 2.0 only)");
  const std::uint32_t length = u32(b, 8);
  if (length > b.size())
    fail(doc, "GLB header says " + std::to_string(length) + " bytes but the file has " +
                  std::to_string(b.size()) + " (truncated?)");
  std::size_t pos = 12;
  const std::uint32_t json_length = u32(b, pos);
  if (u32(b, pos + 4) != kChunkJson) fail(doc, "GLB: the first chunk is not JSON");
  if (pos + 8 + static_cast<std::size_t>(json_length) > length)
    fail(doc, "GLB: the JSON chunk runs past the end");
  doc.json_offset = pos + 8;
  doc.json_length = json_length;
  // Some exporters pad the JSON chunk with NULs instead of spaces: not part of the JSON.
  while (doc.json_length > 0 && b[doc.json_offset + doc.json_length - 1] == '\0') --doc.json_length;
  pos = doc.json_offset + json_length;
  if (pos + 8 <= length && u32(b, pos + 4) == kChunkBin) {
    const std::uint32_t bin_length = u32(b, pos);
    if (pos + 8 + static_cast<std::size_t>(bin_length) > length)
      fail(doc, "GLB: the BIN chunk runs past the end");
    doc.has_bin_chunk = true;
    doc.bin_offset = pos + 8;
    doc.bin_length = bin_length;
    pos = doc.bin_offset + bin_length;
  }
  doc.tail_offset = pos;
  // Bytes after the declared length are not part of the asset; refuse rather than drop them.
  if (length != b.size())
    fail(doc, "GLB header says " + std::to_string(length) + " bytes but the file has " +
                  std::to_string(b.size()));
}

void read_buffers(Document& doc) {
  if (!doc.json.contains("buffers")) return;
  const Json& buffers = doc.json["buffers"];
  if (!buffers.is_array()) fail(doc, "'buffers' is not an array");
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const Json& jb = buffers[i];
    const std::string where = "buffer " + std::to_string(i);
    Buffer b;
    if (!jb.is_object() || !jb.contains("byteLength") || !jb["byteLength"].is_number_integer() ||
        jb["byteLength"].get<std::int64_t>() < 0)
      fail(doc, where + ": missing or bad byteLength");
    b.byte_length = static_cast<std::size_t>(jb["byteLength"].get<std::int64_t>());
    if (!jb.contains("uri")) {
      if (doc.container != Container::glb || i != 0 || !doc.has_bin_chunk)
        fail(doc, where + " has no uri and there is no GLB BIN chunk for it");
      if (b.byte_length > doc.bin_length)
        fail(doc, where + ": byteLength " + std::to_string(b.byte_length) +
                      " exceeds the BIN chunk (" + std::to_string(doc.bin_length) + " bytes)");
      b.source = BufferSource::glb_bin;
      b.offset = doc.bin_offset;
    } else {
      if (!jb["uri"].is_string()) fail(doc, where + ": uri is not a string");
      b.uri = jb["uri"].get<std::string>();
      std::string bytes;
      if (b.uri.rfind("data:", 0) == 0) {
        const std::size_t comma = b.uri.find(',');
        if (comma == std::string::npos) fail(doc, where + ": malformed data uri");
        const std::string_view header(b.uri.data(), comma);
        if (header.size() < 7 || header.substr(header.size() - 7) != ";base64")
          fail(doc, where + ": only base64 data uris are supported");
        auto decoded = base64_decode(std::string_view(b.uri).substr(comma + 1));
        if (!decoded) fail(doc, where + ": invalid base64 in its data uri");
        bytes = std::move(*decoded);
        b.source = BufferSource::data_uri;
      } else {
        if (b.uri.find("://") != std::string::npos && !b.uri.starts_with("file://"))
          fail(doc, where + ": remote uri '" + one_line(b.uri) + "' is not supported");
        bytes = read_uri_file(doc.path, doc.source_name, b.uri, b.byte_length, where);
        b.source = BufferSource::external;
      }
      if (bytes.size() < b.byte_length)
        fail(doc, where + ": byteLength " + std::to_string(b.byte_length) + " but its data has " +
                      std::to_string(bytes.size()) + " bytes");
      b.owner = static_cast<int>(doc.owned_buffers.size());
      b.offset = 0;
      doc.owned_buffers.push_back(std::move(bytes));
    }
    doc.buffers.push_back(std::move(b));
  }
}

double number(const Document& doc, const Json& v, const std::string& where) {
  if (!v.is_number()) fail(doc, where + " is not a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) fail(doc, where + " is not finite");
  return d;
}

core::Vec3 vec3(const Document& doc, const Json& v, const std::string& where) {
  if (!v.is_array() || v.size() != 3) fail(doc, where + " needs 3 numbers");
  return {number(doc, v[0], where), number(doc, v[1], where), number(doc, v[2], where)};
}

// Decomposes a column-major 4x4 matrix into TRS; returns the largest shear left out.
double decompose(const std::array<double, 16>& m, core::Transform& out) {
  glm::dmat4 matrix;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) matrix[c][r] = m[static_cast<std::size_t>(4 * c + r)];
  return decompose_trs(matrix, out);
}

void read_nodes(Document& doc) {
  if (!doc.json.contains("nodes")) return;
  const Json& nodes = doc.json["nodes"];
  if (!nodes.is_array()) fail(doc, "'nodes' is not an array");
  const int n = static_cast<int>(nodes.size());
  doc.nodes.resize(n);
  std::unordered_map<std::string, int> name_count;
  for (int i = 0; i < n; ++i) {
    const Json& jn = nodes[i];
    const std::string where = "node " + std::to_string(i);
    if (!jn.is_object()) fail(doc, where + " is not an object");
    Node& node = doc.nodes[i];
    if (jn.contains("name") && jn["name"].is_string() && !jn["name"].get<std::string>().empty())
      node.display_name = jn["name"].get<std::string>();
    if (jn.contains("children")) {
      if (!jn["children"].is_array()) fail(doc, where + ": children is not an array");
      for (const Json& c : jn["children"]) {
        if (!c.is_number_integer() || c.get<std::int64_t>() < 0 || c.get<std::int64_t>() >= n)
          fail(doc, where + ": child " + c.dump() + " does not exist");
        node.children.push_back(c.get<int>());
      }
    }
    if (jn.contains("matrix")) {
      const Json& jm = jn["matrix"];
      if (!jm.is_array() || jm.size() != 16) fail(doc, where + ": matrix needs 16 numbers");
      std::array<double, 16> m;
      for (int k = 0; k < 16; ++k) m[k] = number(doc, jm[k], where + " matrix");
      node.has_matrix = true;
      decompose(m, node.rest);
    } else {
      if (jn.contains("translation"))
        node.rest.translation = vec3(doc, jn["translation"], where + " translation");
      if (jn.contains("scale")) node.rest.scale = vec3(doc, jn["scale"], where + " scale");
      if (jn.contains("rotation")) {
        const Json& r = jn["rotation"];
        if (!r.is_array() || r.size() != 4) fail(doc, where + ": rotation needs 4 numbers");
        const core::Quat q(number(doc, r[3], where), number(doc, r[0], where),
                           number(doc, r[1], where), number(doc, r[2], where));
        const double len = glm::length(q);
        if (!(len > 1e-6)) fail(doc, where + ": rotation is zero");
        node.rest.rotation = q / len;
      }
    }
  }
  for (int i = 0; i < n; ++i)
    for (int c : doc.nodes[i].children) {
      if (doc.nodes[c].parent != -1 || c == i)
        fail(doc, "node " + std::to_string(c) +
                      " has more than one parent (the node tree must be a forest)");
      doc.nodes[c].parent = i;
    }
  for (int i = 0; i < n; ++i) {
    int steps = 0;
    for (int p = doc.nodes[i].parent; p >= 0; p = doc.nodes[p].parent)
      if (++steps > n)
        fail(doc, "node " + std::to_string(i) + " is part of a cycle in the node tree");
  }
  // Stable, unique display names: unnamed nodes are "node_<i>"; a repeated name gets " (node_<i>)".
  for (int i = 0; i < n; ++i)
    if (!doc.nodes[i].display_name.empty()) ++name_count[doc.nodes[i].display_name];
  std::unordered_map<std::string, int> seen;
  for (int i = 0; i < n; ++i) {
    std::string& name = doc.nodes[i].display_name;
    if (name.empty()) {
      name = "node_" + std::to_string(i);
      if (name_count.count(name)) name += " (unnamed)";
    } else if (name_count[name] > 1 && seen[name]++ > 0) {
      name += " (node_" + std::to_string(i) + ")";
    }
  }
}

Interpolation interpolation_of(const Document& doc, const Json& s, const std::string& where) {
  if (!s.contains("interpolation")) return Interpolation::linear;
  const std::string v = s["interpolation"].is_string() ? s["interpolation"].get<std::string>() : "";
  if (v == "LINEAR") return Interpolation::linear;
  if (v == "STEP") return Interpolation::step;
  if (v == "CUBICSPLINE") return Interpolation::cubic_spline;
  fail(doc, where + ": unknown interpolation '" + v + "'");
}

void read_animations(Document& doc) {
  if (!doc.json.contains("animations")) return;
  const Json& anims = doc.json["animations"];
  if (!anims.is_array()) fail(doc, "'animations' is not an array");
  for (std::size_t a = 0; a < anims.size(); ++a) {
    const Json& ja = anims[a];
    Animation anim;
    if (ja.contains("name") && ja["name"].is_string()) anim.name = ja["name"].get<std::string>();
    anim.display_name = anim.name.empty() ? "animation_" + std::to_string(a) : anim.name;
    const std::string where = "animation '" + anim.display_name + "'";
    if (!ja.contains("samplers") || !ja["samplers"].is_array() || !ja.contains("channels") ||
        !ja["channels"].is_array())
      fail(doc, where + ": samplers or channels missing");
    for (std::size_t s = 0; s < ja["samplers"].size(); ++s) {
      const Json& js = ja["samplers"][s];
      const std::string sw = where + " sampler " + std::to_string(s);
      Sampler sampler;
      if (!js.is_object() || !js.contains("input") || !js.contains("output") ||
          !js["input"].is_number_integer() || !js["output"].is_number_integer())
        fail(doc, sw + ": input or output missing");
      sampler.input = js["input"].get<int>();
      sampler.output = js["output"].get<int>();
      sampler.interpolation = interpolation_of(doc, js, sw);
      anim.samplers.push_back(sampler);
    }
    for (std::size_t c = 0; c < ja["channels"].size(); ++c) {
      const Json& jc = ja["channels"][c];
      const std::string cw = where + " channel " + std::to_string(c);
      Channel channel;
      if (!jc.is_object() || !jc.contains("sampler") || !jc["sampler"].is_number_integer() ||
          !jc.contains("target"))
        fail(doc, cw + ": sampler or target missing");
      channel.sampler = jc["sampler"].get<int>();
      if (channel.sampler < 0 || channel.sampler >= static_cast<int>(anim.samplers.size()))
        fail(doc, cw + ": sampler " + std::to_string(channel.sampler) + " does not exist");
      const Json& target = jc["target"];
      if (target.contains("node")) {
        if (!target["node"].is_number_integer() || target["node"].get<std::int64_t>() < 0 ||
            target["node"].get<std::int64_t>() >= static_cast<std::int64_t>(doc.nodes.size()))
          fail(doc, cw + ": target node " + target["node"].dump() + " does not exist");
        channel.node = target["node"].get<int>();
      }
      const std::string path = target.contains("path") && target["path"].is_string()
                                   ? target["path"].get<std::string>()
                                   : "";
      channel.path = path == "translation" ? Path::translation
                     : path == "rotation"  ? Path::rotation
                     : path == "scale"     ? Path::scale
                                           : Path::other;
      anim.channels.push_back(channel);
    }
    doc.animations.push_back(std::move(anim));
  }
}

// ---- takes ----

struct FrameGrid {
  std::vector<double> times;
  double fps = 30.0;
  bool uniform = false;
};

// Refuses (InputError naming the file) a take of `frames` frames of `joints` joints whose
// estimate exceeds the clip's memory budget (io/memory_budget.hpp), before its arrays exist.
void check_take_memory(const Document& doc, std::uint64_t frames, int joints) {
  std::error_code size_error;
  const std::uintmax_t file_bytes = std::filesystem::file_size(doc.path, size_error);
  io::check_clip_memory(doc.source_name, {size_error ? 0 : file_bytes, frames,
                                          static_cast<std::uint64_t>(joints), 0});
}

// `key_times`: the key times of each sampler that drives the skeleton's `joints` joints.
// `where` names the animation in an error.
FrameGrid frame_grid(const Document& doc, const std::string& where,
                     const std::vector<std::vector<double>>& key_times, double fallback_fps,
                     int joints) {
  FrameGrid grid;
  // Times that differ only by float rounding are the same key (written by two samplers).
  auto close = [](double a, double b) {
    return b - a <= std::max(1e-6, 4 * 1.1920929e-7 * std::abs(b));
  };
  // The grid step is a step some sampler really has: its smallest gap between two keys. (The
  // union's smallest gap would turn a 24 fps sampler next to a 30 fps one into a 120 fps grid.)
  double min_gap = 1e300;
  std::vector<double> keys;
  for (const auto& times : key_times) {
    for (std::size_t i = 1; i < times.size(); ++i)
      if (!close(times[i - 1], times[i])) min_gap = std::min(min_gap, times[i] - times[i - 1]);
    keys.insert(keys.end(), times.begin(), times.end());
  }
  std::sort(keys.begin(), keys.end());
  std::vector<double> merged;
  for (double t : keys)
    if (merged.empty() || !close(merged.back(), t)) merged.push_back(t);
  grid.fps = fallback_fps;
  if (merged.size() == 1) {
    grid.times = merged;
    grid.uniform = true;
    return grid;
  }
  const double t0 = merged.front();
  const double span = merged.back() - t0;
  const double steps = std::round(span / min_gap);
  if (min_gap < 1e300 && steps >= 1 && steps <= 1e6) {
    const double step = span / steps;
    bool on_grid = step >= 1e-4;
    std::vector<double> times(static_cast<std::size_t>(steps) + 1);
    std::vector<char> set(times.size(), 0);
    for (std::size_t i = 0; i < merged.size() && on_grid; ++i) {
      const double k = std::round((merged[i] - t0) / step);
      const double tolerance = 1e-3 * step + 8 * 1.1920929e-7 * std::abs(merged[i]);
      if (std::abs(merged[i] - (t0 + k * step)) > tolerance || k < 0 || k > steps ||
          set[static_cast<std::size_t>(k)]) {
        on_grid = false;
        break;
      }
      times[static_cast<std::size_t>(k)] = merged[i];
      set[static_cast<std::size_t>(k)] = 1;
    }
    if (on_grid) {
      for (std::size_t k = 0; k < times.size(); ++k)
        if (!set[k])
          times[k] = static_cast<double>(static_cast<float>(t0 + static_cast<double>(k) * step));
      grid.times = std::move(times);
      grid.uniform = true;
      grid.fps = 1.0 / step;
      // 23.99999 -> 24: key times are floats, so the measured rate is a hair off a round one.
      const double rounded = std::round(grid.fps);
      if (std::abs(grid.fps - rounded) < 1e-4 * grid.fps) grid.fps = rounded;
      return grid;
    }
  }
  // Not one grid: sample at the fallback rate; the last frame lands on the last key.
  const double t_end = merged.back();
  const double frames = std::floor(span * fallback_fps + 1e-9) + 1;
  if (!(frames < static_cast<double>(std::numeric_limits<int>::max() - 1)))
    fail(doc, where + ": its keys span " + std::to_string(span) + " s, " + std::to_string(frames) +
                  " frames at " + std::to_string(fallback_fps) + " fps: too many");
  const auto count = static_cast<std::size_t>(frames);
  // Checked here, not only once sampled: the times alone are 8 bytes a frame.
  check_take_memory(doc, count, joints);
  grid.times.reserve(count + 1);
  for (std::size_t k = 0; k < count; ++k)
    grid.times.push_back(
        static_cast<double>(static_cast<float>(t0 + static_cast<double>(k) / fallback_fps)));
  if (grid.times.back() < t_end) grid.times.push_back(t_end);
  return grid;
}

std::string format_metres(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// Joints `in_skeleton` in order: depth first from the roots, the default scene's roots first
// (parents before children, children in file order). Fills `joint_nodes`; returns each node's
// joint index, -1 for nodes that are not joints.
std::vector<int> order_joints(const Document& doc, const std::vector<char>& in_skeleton,
                              std::vector<int>& joint_nodes) {
  const int node_count = static_cast<int>(doc.nodes.size());
  std::vector<int> roots;
  std::vector<char> is_listed(node_count, 0);
  if (doc.scene >= 0 && doc.json.contains("scenes") && doc.json["scenes"].is_array() &&
      doc.scene < static_cast<int>(doc.json["scenes"].size())) {
    const Json& scene = doc.json["scenes"][doc.scene];
    if (scene.contains("nodes") && scene["nodes"].is_array())
      for (const Json& r : scene["nodes"])
        if (r.is_number_integer() && r.get<std::int64_t>() >= 0 &&
            r.get<std::int64_t>() < node_count && doc.nodes[r.get<int>()].parent < 0 &&
            !is_listed[r.get<int>()]) {
          roots.push_back(r.get<int>());
          is_listed[r.get<int>()] = 1;
        }
  }
  for (int i = 0; i < node_count; ++i)
    if (doc.nodes[i].parent < 0 && !is_listed[i]) roots.push_back(i);
  std::vector<int> joint_of_node(node_count, -1);
  std::vector<int> stack;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back(*it);
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    if (!in_skeleton[i]) continue;
    joint_of_node[i] = static_cast<int>(joint_nodes.size());
    joint_nodes.push_back(i);
    const auto& children = doc.nodes[i].children;
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
  }
  return joint_of_node;
}

// take.skeleton from take.layout.joint_nodes; warns about sheared matrices.
void build_skeleton(const Document& doc, const std::vector<int>& joint_of_node, Take& take) {
  const std::vector<int>& joint_nodes = take.layout.joint_nodes;
  core::Skeleton& skeleton = take.skeleton;
  for (int i : joint_nodes) {
    const Node& node = doc.nodes[i];
    skeleton.names.push_back(node.display_name);
    skeleton.parents.push_back(node.parent >= 0 ? joint_of_node[node.parent] : -1);
    skeleton.rest.push_back(node.rest);
    skeleton.end_sites.emplace_back(std::nullopt);
  }
  for (int i : joint_nodes)
    if (doc.nodes[i].has_matrix) {
      std::array<double, 16> m;
      const Json& jm = doc.json["nodes"][i]["matrix"];
      for (int k = 0; k < 16; ++k) m[k] = jm[k].get<double>();
      core::Transform unused;
      if (decompose(m, unused) > 1e-6)
        take.warnings.push_back("node '" + doc.nodes[i].display_name +
                                "' has a sheared matrix; the shear is ignored");
    }
}

// glTF is metres; say so when the rest pose looks like another unit.
void note_unit(Take& take) {
  const core::Skeleton& skeleton = take.skeleton;
  std::vector<core::Transform> world(skeleton.joint_count());
  core::forward_kinematics(skeleton, skeleton.rest, core::Transform{}, world);
  double lo = 1e300, hi = -1e300;
  std::vector<core::Vec3> points;
  for (const auto& w : world) {
    lo = std::min(lo, w.translation.y);
    hi = std::max(hi, w.translation.y);
    points.push_back(w.translation);
  }
  const double height = hi - lo;
  if (height > 0 && (height < 0.3 || height > 3.0)) {
    const core::UnitGuess guess = core::guess_unit_from_height(points);
    take.unit_note =
        "glTF states metres, so the unit stays metres, but the rest pose is " +
        format_metres(height) + " m tall, which is not character-sized" +
        (guess.unit != "custom" && guess.unit != "m"
             ? " (authored in another unit? a 1.5 m human this size would be in '" + guess.unit +
                   "')"
             : std::string()) +
        "; if that is wrong, give the unit (--clip-unit, or --target-unit for a retarget target)";
    take.warnings.push_back(take.unit_note);
  }
}

// Marks the ancestors of every node in `set`.
void mark_ancestors(const Document& doc, std::vector<char>& set) {
  for (std::size_t i = 0; i < set.size(); ++i)
    if (set[i])
      for (int p = doc.nodes[i].parent; p >= 0 && !set[p]; p = doc.nodes[p].parent) set[p] = 1;
}

// Nodes of skin `s` (its joints), or an empty vector when it has none.
std::vector<char> skin_nodes(const Document& doc, const Json& skin) {
  const int node_count = static_cast<int>(doc.nodes.size());
  std::vector<char> set(node_count, 0);
  if (!skin.contains("joints") || !skin["joints"].is_array()) return {};
  for (const Json& j : skin["joints"])
    if (j.is_number_integer() && j.get<std::int64_t>() >= 0 && j.get<std::int64_t>() < node_count)
      set[j.get<int>()] = 1;
  return set;
}

}  // namespace

Document parse(std::string bytes, const std::filesystem::path& path) {
  Document doc;
  doc.path = path;
  doc.source_name = path.string();
  doc.file_bytes = std::move(bytes);
  if (doc.file_bytes.size() >= 4 && u32(doc.file_bytes, 0) == kGlbMagic) {
    doc.container = Container::glb;
    split_glb(doc);
  } else {
    doc.container = Container::gltf;
    doc.json_offset = doc.file_bytes.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;  // tolerate a UTF-8 BOM
    doc.json_length = doc.file_bytes.size() - doc.json_offset;
    doc.tail_offset = doc.file_bytes.size();
  }
  try {
    doc.json = Json::parse(doc.json_text());
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range: 1e36233
    std::string what = e.what();
    if (const auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    fail(doc, "invalid glTF JSON: " + what);
  }
  if (!doc.json.is_object()) fail(doc, "the glTF JSON is not an object");
  {
    const std::string_view text = doc.json_text();
    const json_text::Span top = json_text::value_at(text, 0);
    doc.top_begin = top.begin;
    doc.top_end = top.end;
    for (auto& [key, span] : json_text::members(text, top))
      doc.top_members.push_back({std::move(key), span.begin, span.end});
  }
  const Json* asset = doc.json.contains("asset") ? &doc.json["asset"] : nullptr;
  if (!asset || !asset->is_object() || !asset->contains("version") ||
      !(*asset)["version"].is_string())
    fail(doc, "not a glTF 2.0 asset (asset.version missing)");
  const std::string version = (*asset)["version"].get<std::string>();
  if (version.rfind("2.", 0) != 0)
    fail(doc, "glTF version " + version + " is not supported (2.0 only)");
  read_buffers(doc);
  read_nodes(doc);
  read_animations(doc);
  if (doc.json.contains("scene") && doc.json["scene"].is_number_integer()) {
    doc.scene = doc.json["scene"].get<int>();
  } else if (doc.json.contains("scenes") && doc.json["scenes"].is_array() &&
             !doc.json["scenes"].empty()) {
    doc.scene = 0;
  }
  return doc;
}

Document read_file(const std::filesystem::path& path) {
  // One read into a buffer of the file's size (GLB files are mostly binary and can be large).
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || std::filesystem::is_directory(path, ec))
    return parse(io::read_file(path), path);  // its errors
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return parse(io::read_file(path), path);
  std::string bytes(static_cast<std::size_t>(size), '\0');
  const std::size_t got = std::fread(bytes.data(), 1, bytes.size(), f);
  const bool more = std::fgetc(f) != EOF;  // the file grew meanwhile: read it the slow way
  std::fclose(f);
  if (got != bytes.size() || more) return parse(io::read_file(path), path);
  io::note_input(path);
  return parse(std::move(bytes), path);
}

int find_animation(const Document& doc, std::string_view take) {
  const int n = static_cast<int>(doc.animations.size());
  for (int a = 0; a < n; ++a)
    if (doc.animations[a].display_name == take || doc.animations[a].name == take) return a;
  int index = -1;
  const auto [p, ec] = std::from_chars(take.data(), take.data() + take.size(), index);
  if (ec == std::errc() && p == take.data() + take.size() && index >= 0 && index < n) return index;
  std::string list;
  for (int a = 0; a < n; ++a)
    list += (a ? ", " : "") + std::to_string(a) + " '" + doc.animations[a].display_name + "'";
  throw InputError(doc.source_name, "no animation '" + std::string(take) + "' (animations: " +
                                        (list.empty() ? std::string("none") : list) + ")");
}

namespace {

// Nodes the animation's translation / rotation / scale channels target.
std::vector<char> animated_nodes(const Document& doc, const Animation& anim) {
  std::vector<char> animated(doc.nodes.size(), 0);
  for (const Channel& c : anim.channels)
    if (c.node >= 0 && c.path != Path::other) animated[c.node] = 1;
  return animated;
}

// The skin whose joints (and their ancestors) the animation drives most, or -1 when the file
// has no skin with joints; its node set goes to `in_skeleton`.
int pick_skin(const Document& doc, const Animation& anim, std::vector<char>& in_skeleton) {
  const Json& skins = array_member(doc.json, "skins");
  int best_skin = -1;
  std::size_t best_count = 0;
  for (std::size_t s = 0; s < skins.size(); ++s) {
    std::vector<char> set = skin_nodes(doc, skins[s]);
    if (set.empty()) continue;
    mark_ancestors(doc, set);
    std::size_t count = 0;
    for (const Channel& c : anim.channels)
      if (c.node >= 0 && c.path != Path::other && set[c.node]) ++count;
    if (best_skin < 0 || count > best_count) {
      best_skin = static_cast<int>(s);
      best_count = count;
      in_skeleton = set;
    }
  }
  return best_skin;
}

// The nodes that are joints of the take: the chosen skin's, or without a skin the subtrees of
// the animated nodes, plus ancestors.
std::vector<char> skeleton_nodes(const Document& doc, const Animation& anim, Take& take) {
  const int node_count = static_cast<int>(doc.nodes.size());
  std::vector<char> in_skeleton(node_count, 0);
  const int best_skin = pick_skin(doc, anim, in_skeleton);
  const std::size_t skins = array_member(doc.json, "skins").size();
  if (best_skin < 0) {
    const std::vector<char> animated = animated_nodes(doc, anim);
    for (int i = 0; i < node_count; ++i) {
      bool under_animated = false;
      for (int p = i; p >= 0 && !under_animated; p = doc.nodes[p].parent)
        under_animated = animated[p] != 0;
      in_skeleton[i] = under_animated;
    }
    mark_ancestors(doc, in_skeleton);
  } else if (skins > 1) {
    take.warnings.push_back("the file has " + std::to_string(skins) + " skins; using skin " +
                            std::to_string(best_skin) + ", which animation '" + anim.display_name +
                            "' drives most");
  }
  return in_skeleton;
}

// One joint component an animation channel drives.
struct Driven {
  int joint;
  Path path;
  int sampler;
};

// The channels that drive the skeleton's joints (the first per joint and component counts).
std::vector<Driven> driven_channels(const Document& doc, const Animation& anim,
                                    const std::vector<int>& joint_of_node, int joints, Take& take) {
  std::vector<Driven> driven;
  std::vector<char> seen(static_cast<std::size_t>(joints) * 3, 0);
  for (const Channel& c : anim.channels) {
    if (c.node < 0 || c.path == Path::other || joint_of_node[c.node] < 0) continue;
    const int j = joint_of_node[c.node];
    char& flag = seen[static_cast<std::size_t>(j) * 3 + static_cast<int>(c.path)];
    if (flag) {
      take.warnings.push_back("node '" + doc.nodes[c.node].display_name + "' has two " +
                              std::string(path_name(c.path)) + " channels in animation '" +
                              anim.display_name + "'; the first one is used");
      continue;
    }
    if (doc.nodes[c.node].has_matrix)
      throw InputError(doc.source_name, "animation '" + anim.display_name + "' animates node '" +
                                            doc.nodes[c.node].display_name +
                                            "', which has a matrix (glTF forbids that)");
    flag = 1;
    driven.push_back({j, c.path, c.sampler});
  }
  return driven;
}

// The distinct key-time lists (samplers often share them) of `keyframes`; when nothing drives
// the skeleton, the animation's own times (the clip is then static).
std::vector<std::vector<double>> distinct_key_times(const Document& doc, const Animation& anim,
                                                    const std::vector<Keyframes>& keyframes) {
  std::vector<std::vector<double>> key_times;
  for (const Keyframes& keys : keyframes)
    if (std::find(key_times.begin(), key_times.end(), keys.times) == key_times.end())
      key_times.push_back(keys.times);
  if (!key_times.empty()) return key_times;
  for (std::size_t s = 0; s < anim.samplers.size(); ++s) {
    AccessorData input = read_accessor(doc, anim.samplers[s].input);
    if (input.count > 0) key_times.push_back(std::move(input.values));
  }
  if (key_times.empty())
    throw InputError(doc.source_name, "animation '" + anim.display_name + "' has no keyframes");
  return key_times;
}

// Writes one driven component's sampled values (`values`, frame-major) into joint j of `clip`;
// rotations are normalised, and a zero one is refused.
void put_driven(const Document& doc, const Animation& anim, const Take& take, const Driven& d,
                const std::vector<double>& values, int components, core::Clip& clip) {
  const int j = d.joint;
  for (int f = 0; f < clip.frame_count; ++f) {
    const double* v = values.data() + static_cast<std::size_t>(f) * components;
    core::Transform& t = clip.at(f, j);
    switch (d.path) {
      case Path::translation:
        t.translation = core::Vec3(v[0], v[1], v[2]);
        break;
      case Path::scale:
        t.scale = core::Vec3(v[0], v[1], v[2]);
        break;
      case Path::rotation: {
        const core::Quat q(v[3], v[0], v[1], v[2]);
        const double len = glm::length(q);
        if (!(len > 1e-9))
          throw InputError(doc.source_name, "animation '" + anim.display_name + "': node '" +
                                                doc.nodes[take.layout.joint_nodes[j]].display_name +
                                                "' has a zero rotation at " +
                                                std::to_string(take.layout.frame_times[f]) + " s");
        t.rotation = q / len;
        break;
      }
      default:
        break;
    }
  }
}

// The take's clip at its frame times: the rest pose, with every driven component sampled.
void sample_clip(const Document& doc, const Animation& anim, const std::vector<Driven>& driven,
                 const std::vector<Keyframes>& keyframes, double fps, Take& take) {
  const auto& times = take.layout.frame_times;
  const core::Skeleton& skeleton = take.skeleton;
  core::Clip& clip = take.clip;
  clip.fps = fps;
  clip.frame_count = static_cast<int>(times.size());
  clip.joint_count = skeleton.joint_count();
  check_take_memory(doc, times.size(), clip.joint_count);
  clip.locals.resize(static_cast<std::size_t>(clip.frame_count) * clip.joint_count);
  for (int f = 0; f < clip.frame_count; ++f)
    for (int j = 0; j < clip.joint_count; ++j) clip.at(f, j) = skeleton.rest[j];
  std::vector<double> values;
  for (std::size_t d = 0; d < driven.size(); ++d) {
    const Keyframes& keys = keyframes[d];
    values.resize(times.size() * keys.components);
    evaluate(keys, times, values);
    put_driven(doc, anim, take, driven[d], values, keys.components, clip);
  }
}

}  // namespace

Take extract_take(std::shared_ptr<const Document> document, int animation,
                  const ReadOptions& options) {
  const Document& doc = *document;
  if (animation < 0 || animation >= static_cast<int>(doc.animations.size()))
    throw InputError(doc.source_name, "no animation " + std::to_string(animation));
  const Animation& anim = doc.animations[animation];
  Take take;
  take.name = anim.display_name;
  const std::vector<char> in_skeleton = skeleton_nodes(doc, anim, take);
  const std::vector<int> joint_of_node = order_joints(doc, in_skeleton, take.layout.joint_nodes);
  const std::vector<int>& joint_nodes = take.layout.joint_nodes;
  for (const Channel& c : anim.channels)
    if (c.node < 0) {
      take.warnings.push_back(
          "animation '" + anim.display_name +
          "' has channels without a target node (e.g. KHR_animation_pointer); they are ignored");
      break;
    }
  if (joint_nodes.empty())
    throw InputError(doc.source_name, "animation '" + anim.display_name +
                                          "' moves no node and the file has no skin");
  build_skeleton(doc, joint_of_node, take);

  const std::vector<Driven> driven =
      driven_channels(doc, anim, joint_of_node, static_cast<int>(joint_nodes.size()), take);
  std::vector<Keyframes> keyframes;
  keyframes.reserve(driven.size());
  for (const Driven& d : driven)
    keyframes.push_back(read_keyframes(doc, animation, d.sampler, d.path));
  const std::vector<std::vector<double>> key_times = distinct_key_times(doc, anim, keyframes);
  const double fallback_fps = options.sample_fps.value_or(30.0);
  if (!(fallback_fps > 0) || !std::isfinite(fallback_fps))
    throw InputError(doc.source_name, "sample rate must be a positive number of frames per second");
  FrameGrid grid = frame_grid(doc, "animation '" + anim.display_name + "'", key_times, fallback_fps,
                              take.skeleton.joint_count());
  take.uniform_grid = grid.uniform;
  take.layout.frame_times = std::move(grid.times);
  sample_clip(doc, anim, driven, keyframes, grid.fps, take);

  note_unit(take);
  take.layout.document = std::move(document);
  take.layout.animation = animation;
  return take;
}

}  // namespace ikfix::io::gltf

namespace ikfix::io::gltf {

Take extract_rest_take(std::shared_ptr<const Document> document) {
  const Document& doc = *document;
  const int node_count = static_cast<int>(doc.nodes.size());
  Take take;
  // The skin with the most joints (ties: the lower index), plus ancestors; without skins, the
  // whole node tree (a skeleton-only asset: every node is a bone).
  std::vector<char> in_skeleton;
  const Json& skins = array_member(doc.json, "skins");
  std::size_t best_count = 0;
  int best_skin = -1;
  for (std::size_t s = 0; s < skins.size(); ++s) {
    std::vector<char> set = skin_nodes(doc, skins[s]);
    const auto count = static_cast<std::size_t>(std::count(set.begin(), set.end(), 1));
    if (count > best_count) {
      best_count = count;
      best_skin = static_cast<int>(s);
      in_skeleton = std::move(set);
    }
  }
  if (best_skin < 0) {
    in_skeleton.assign(node_count, 1);
  } else {
    mark_ancestors(doc, in_skeleton);
    if (skins.size() > 1)
      take.warnings.push_back("the file has " + std::to_string(skins.size()) +
                              " skins; using skin " + std::to_string(best_skin) +
                              ", which has the most joints");
  }
  const std::vector<int> joint_of_node = order_joints(doc, in_skeleton, take.layout.joint_nodes);
  if (take.layout.joint_nodes.empty())
    throw InputError(doc.source_name, "no skeleton: the file has no nodes");
  build_skeleton(doc, joint_of_node, take);
  core::Clip& clip = take.clip;
  clip.fps = 30.0;
  clip.frame_count = 1;
  clip.joint_count = take.skeleton.joint_count();
  clip.locals.assign(take.skeleton.rest.begin(), take.skeleton.rest.end());
  take.uniform_grid = true;
  take.layout.frame_times = {0.0};
  take.layout.animation = -1;
  note_unit(take);
  take.layout.document = std::move(document);
  return take;
}

}  // namespace ikfix::io::gltf
