#include "io/terrain_io.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <glm/gtc/matrix_inverse.hpp>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/parallel.hpp"
#include "io/assimp/assimp_module.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/mapped_file.hpp"
#include "io/memory_budget.hpp"
#include "io/obj_read_ahead.hpp"
#include "io/obj_reader.hpp"
#include "io/obj_terrain.hpp"
#include "io/parallel_blocks.hpp"
#include "io/prepared_terrain.hpp"

namespace ikfix::io {

namespace {

using core::Vec3;
using glm::dmat3;
using glm::dmat4;

dmat4 to_dmat4(const std::array<assimp::Real, 16>& m) {
  // Assimp is row-major (a4, b4, c4 = translation); glm is column-major: g[column][row].
  dmat4 g(1.0);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) g[c][r] = static_cast<double>(m[4 * r + c]);
  return g;
}

// Exact merge of vertices with bit-identical position and normal (no tolerance: geometry is
// never changed, only shared).
struct VertexKey {
  double v[6];
  bool operator==(const VertexKey& o) const { return std::memcmp(v, o.v, sizeof v) == 0; }
};
struct VertexKeyHash {
  std::size_t operator()(const VertexKey& k) const {
    std::uint64_t h = 0;
    for (double d : k.v) {
      std::uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      // splitmix64 finaliser per component: nearby coordinates differ only in low bits.
      h += bits + 0x9e3779b97f4a7c15ull;
      h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
      h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
      h ^= h >> 31;
    }
    return static_cast<std::size_t>(h);
  }
};

class MeshCollector {
 public:
  MeshCollector(const assimp::Scene& scene, const std::string& file, const dmat4& to_world)
      : scene_(scene), file_(file), to_world_(to_world) {
    with_normals_ = !scene.meshes.empty();
    std::size_t corners = 0;
    for (const assimp::Mesh& mesh : scene.meshes) {
      if (mesh.normals.empty()) with_normals_ = false;
      corners += mesh.vertices.size();
    }
    index_.reserve(corners);
  }

  void visit(std::uint32_t node_index, const dmat4& parent) {
    const assimp::Node& node = scene_.nodes[node_index];
    const dmat4 node_ws = parent * to_dmat4(node.matrix);
    for (std::uint32_t mesh : node.meshes) add_mesh(scene_.meshes[mesh], node_ws);
    for (std::uint32_t child : node.children) visit(child, node_ws);
  }

  core::TerrainMesh take() {
    if (!with_normals_) mesh_.vertex_normals.clear();
    return std::move(mesh_);
  }

 private:
  void add_mesh(const assimp::Mesh& in, const dmat4& node_ws) {
    const dmat4 m = to_world_ * node_ws;
    const dmat3 linear(m);
    const dmat3 normal_matrix = glm::inverseTranspose(linear);
    const bool mirrored = glm::determinant(linear) < 0.0;  // keep front faces counter-clockwise

    // Map this mesh's vertices to merged output vertices, lazily (unused ones are skipped).
    std::vector<std::uint32_t> remap(in.vertices.size(), kUnmapped);
    auto output_index = [&](std::uint32_t v) {
      if (remap[v] != kUnmapped) return remap[v];
      const assimp::Vec3r& p = in.vertices[v];
      const Vec3 position = Vec3(m * glm::dvec4(p.x, p.y, p.z, 1.0));
      Vec3 normal(0.0);
      if (with_normals_) {
        const assimp::Vec3r& n = in.normals[v];
        normal = core::safe_normalize(normal_matrix * Vec3(n.x, n.y, n.z), Vec3(0.0));
      }
      if (!core::is_finite(position))
        throw InputError(file_,
                         "mesh \"" + in.name + "\" vertex " + std::to_string(v) + " is not finite");
      const VertexKey key{{position.x, position.y, position.z, normal.x, normal.y, normal.z}};
      auto [it, inserted] =
          index_.try_emplace(key, static_cast<std::uint32_t>(mesh_.vertices.size()));
      if (inserted) {
        if (mesh_.vertices.size() >= std::numeric_limits<std::uint32_t>::max())
          throw InputError(file_, "too many vertices");
        mesh_.vertices.push_back(position);
        if (with_normals_) mesh_.vertex_normals.push_back(normal);
      }
      remap[v] = it->second;
      return it->second;
    };

    // Points and lines are not in `triangles` (polygons were triangulated).
    for (const auto& face : in.triangles) {
      std::array<std::uint32_t, 3> tri{output_index(face[0]), output_index(face[1]),
                                       output_index(face[2])};
      if (mirrored) std::swap(tri[1], tri[2]);
      mesh_.triangles.push_back(tri);
    }
  }

  static constexpr std::uint32_t kUnmapped = std::numeric_limits<std::uint32_t>::max();
  const assimp::Scene& scene_;
  const std::string& file_;
  dmat4 to_world_;
  bool with_normals_ = false;
  core::TerrainMesh mesh_;
  std::unordered_map<VertexKey, std::uint32_t, VertexKeyHash> index_;
};

// OBJ files through our own reader: the same result as the Assimp path (corners merged by
// identical position and normal, in face order; normals kept when every corner has one), but
// with the file's numbers in double. The file is mapped and read on `given`'s threads, or else
// on a pool of `threads` (0: one per hardware thread, at most 8), through copies into a small
// buffer per thread (read calls: a 10 M-triangle level is ~900 MB of text, and mapping a file's
// pages costs the kernel more than copying them); only a kept normal's line longer than the
// normals' copies and the sequential reader after a refusal read the mapping. With `ahead`
// begun on the same runner, a crop's first pass is ahead's (the file as ahead mapped it).
TerrainRead load_obj_terrain(const std::filesystem::path& path, const std::string& file,
                             const dmat4& to_world, const std::optional<core::XzBox>& keep_ws,
                             int threads, const core::ParallelRunner* given, ObjReadAhead* ahead) {
  if (ahead && (!keep_ws || ahead->path() != path || !ahead->file()))
    ahead->cancel(), ahead = nullptr;
  std::optional<MappedFile> own;
  const MappedFile& mapped = ahead ? *ahead->file() : own.emplace(path);
  std::optional<core::ThreadPool> pool;
  const core::ParallelRunner* runner = reader_threads(
      given, threads, mapped.text().size() >= ObjReadAhead::kReadAheadFromBytes, pool);
  if (ahead && ahead->runner() != runner) ahead->cancel(), ahead = nullptr;
  TerrainRead out;
  core::TerrainCrop crop;
  ObjTextPages pages;  // no `ahead` or `done`: the passes never read the mapping
  pages.copy = [&](std::size_t begin, char* out, std::size_t bytes) {
    return mapped.copy(begin, out, bytes);
  };
  ObjFirstPass first_pass;
  if (ahead) first_pass = [ahead](const ObjWorldRect& rect) { return ahead->finish(rect); };
  out.mesh =
      read_obj_terrain(mapped.text(), to_world, file, runner, keep_ws, &crop, pages, first_pass);
  if (keep_ws) {
    if (!core::is_finite(crop.whole_min))  // no triangle in the whole file
      throw InputError(file, "no triangles in the file (points and lines are ignored)");
    out.crop = crop;
  }
  return out;
}

// Appends `value` in fixed notation with `decimals` digits; never "-0.000".
void append_fixed(std::string& out, double value, int decimals) {
  char buffer[64];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
  const char* begin = buffer;
  if (result.ec != std::errc()) {
    out += '0';
    return;
  }
  if (*begin == '-') {
    bool zero = true;
    for (const char* p = begin + 1; p != result.ptr; ++p)
      if (*p != '0' && *p != '.') zero = false;
    if (zero) ++begin;
  }
  out.append(begin, static_cast<std::size_t>(result.ptr - begin));
}

void append_uint(std::string& out, std::uint64_t value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

}  // namespace

bool has_obj_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return ext == ".obj";
}

core::TerrainMesh load_terrain_mesh(const std::filesystem::path& path, double metres_per_unit,
                                    char up_axis) {
  return load_terrain_part(path, metres_per_unit, up_axis, std::nullopt).mesh;
}

TerrainRead load_terrain_part(const std::filesystem::path& path, double metres_per_unit,
                              char up_axis, const std::optional<core::XzBox>& keep_ws, int threads,
                              bool normals, const core::ParallelRunner* runner,
                              ObjReadAhead* ahead) {
  if (ahead && !has_obj_extension(path)) ahead->cancel(), ahead = nullptr;
  const std::string file = path.string();
  if (!(metres_per_unit > 0.0) || !std::isfinite(metres_per_unit))
    throw InputError(file, "metres per unit must be a finite number > 0, got " +
                               std::to_string(metres_per_unit));
  if (up_axis != 'y' && up_axis != 'Y' && up_axis != 'z' && up_axis != 'Z')
    throw InputError(file, std::string("up axis must be 'y' or 'z', got '") + up_axis + "'");

  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(file, "file not found");
  if (std::filesystem::is_directory(path, ec))
    throw InputError(file, "is a directory, not a mesh file");

  // File space -> metres, Y up. Z up: rotate -90 degrees about X, (x, y, z) -> (x, z, -y).
  dmat4 to_world(metres_per_unit);
  to_world[3][3] = 1.0;
  if (up_axis == 'z' || up_axis == 'Z') {
    dmat4 rotate(1.0);
    rotate[1] = glm::dvec4(0.0, 0.0, -1.0, 0.0);  // image of +Y
    rotate[2] = glm::dvec4(0.0, 1.0, 0.0, 0.0);   // image of +Z
    to_world = to_world * rotate;
  }

  if (is_prepared_terrain(path)) {  // prepared in metres, Y up
    if (metres_per_unit != 1.0 || up_axis == 'z' || up_axis == 'Z')
      throw InputError(file,
                       "a prepared terrain is in metres, Y up: give the unit and up axis to "
                       "`ikfix terrain prepare`, not here");
    return load_prepared_terrain(path, keep_ws, threads, normals, runner);
  }
  if (has_obj_extension(path)) {
    TerrainRead read = load_obj_terrain(path, file, to_world, keep_ws, threads, runner, ahead);
    if (!read.crop && read.mesh.triangles.empty())
      throw InputError(file, "no triangles in the file (points and lines are ignored)");
    return read;
  }

  // Through the Assimp module, loaded now (io/assimp/assimp_module.hpp). Pivots folded into plain
  // node transforms; only steps that leave geometry and nodes alone (triangulation; no vertex
  // joining or pre-transforming).
  assimp::ImportRequest request;
  request.file = file;
  request.triangulate = true;
  assimp::Scene scene;
  std::string assimp_error;
  if (!assimp::import_scene(request, memory_budget(), scene, assimp_error))
    throw InputError(file, "cannot read as a mesh: " + one_line(assimp_error));
  if (scene.nodes.empty()) throw InputError(file, "no triangles in the file");

  MeshCollector collector(scene, file, to_world);
  collector.visit(0, dmat4(1.0));
  TerrainRead read;  // read whole: other formats are not cropped
  read.mesh = collector.take();
  if (read.mesh.triangles.empty())
    throw InputError(file, "no triangles in the file (points and lines are ignored)");
  return read;
}

bool terrain_worth_cropping(const std::filesystem::path& path) {
  if (is_prepared_terrain(path)) return true;
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  return has_obj_extension(path) && !ec && bytes >= kCropFromBytes;
}

void save_obj(const std::filesystem::path& path, const core::TerrainMesh& mesh) {
  const std::string file = path.string();
  const bool normals = !mesh.vertex_normals.empty();
  if (normals && mesh.vertex_normals.size() != mesh.vertices.size())
    throw InputError(file, "cannot write: " + std::to_string(mesh.vertex_normals.size()) +
                               " normals for " + std::to_string(mesh.vertices.size()) +
                               " vertices");
  for (std::size_t i = 0; i < mesh.vertices.size(); ++i)
    if (!core::is_finite(mesh.vertices[i]) || (normals && !core::is_finite(mesh.vertex_normals[i])))
      throw InputError(file, "cannot write: vertex " + std::to_string(i) + " is not finite");
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    for (const std::uint32_t index : mesh.triangles[t])
      if (index >= mesh.vertices.size())
        throw InputError(file, "cannot write: triangle " + std::to_string(t) + " uses vertex " +
                                   std::to_string(index) + " of " +
                                   std::to_string(mesh.vertices.size()));

  std::string out;
  out.reserve(mesh.vertices.size() * (normals ? 80 : 40) + mesh.triangles.size() * 40 + 256);
  out += "# ikfix terrain mesh\n# units: metres, up axis: +Y, front faces counter-clockwise\n";
  out += "# vertices: ";
  append_uint(out, mesh.vertices.size());
  out += ", triangles: ";
  append_uint(out, mesh.triangles.size());
  out += "\no terrain\n";
  for (const Vec3& v : mesh.vertices) {
    out += "v ";
    append_fixed(out, v.x, 9);
    out += ' ';
    append_fixed(out, v.y, 9);
    out += ' ';
    append_fixed(out, v.z, 9);
    out += '\n';
  }
  for (const Vec3& n : mesh.vertex_normals) {
    out += "vn ";
    append_fixed(out, n.x, 7);
    out += ' ';
    append_fixed(out, n.y, 7);
    out += ' ';
    append_fixed(out, n.z, 7);
    out += '\n';
  }
  for (const auto& tri : mesh.triangles) {
    out += 'f';
    for (const std::uint32_t index : tri) {
      out += ' ';
      append_uint(out, std::uint64_t{index} + 1);
      if (normals) {
        out += "//";
        append_uint(out, std::uint64_t{index} + 1);
      }
    }
    out += '\n';
  }
  write_file_atomic(path, out);
}

}  // namespace ikfix::io
