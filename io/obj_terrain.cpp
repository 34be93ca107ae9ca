#include "io/obj_terrain.hpp"

#include <cstdint>
#include <cstring>
#include <glm/gtc/matrix_inverse.hpp>
#include <limits>
#include <utility>
#include <vector>

#include "core/unwritten_resize.hpp"
#include "io/error.hpp"
#include "io/parallel_blocks.hpp"

namespace ikfix::io {
namespace {

using core::Vec3;

// Output vertices by the bits of their position and normal (open addressing, linear probing;
// the keys are the mesh's own arrays, so a slot holds only a vertex index).
class VertexIndex {
 public:
  VertexIndex(core::TerrainMesh& mesh, bool normals, std::size_t expected)
      : mesh_(mesh), normals_(normals) {
    resize_table(expected);
  }

  std::uint32_t find_or_add(const Vec3& position, const Vec3& normal) {
    std::size_t slot = hash(position, normal) & mask_;
    for (;; slot = (slot + 1) & mask_) {
      const std::uint32_t v = slots_[slot];
      if (v == kEmpty) break;
      if (same(v, position, normal)) return v;
    }
    if (mesh_.vertices.size() >= std::numeric_limits<std::uint32_t>::max() - 1)
      throw std::length_error("too many vertices");
    const auto v = static_cast<std::uint32_t>(mesh_.vertices.size());
    mesh_.vertices.push_back(position);
    if (normals_) mesh_.vertex_normals.push_back(normal);
    slots_[slot] = v;
    if (2 * mesh_.vertices.size() > slots_.size()) rehash();
    return v;
  }

 private:
  static constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();

  static std::size_t hash(const Vec3& position, const Vec3& normal) {
    const double key[6] = {position.x, position.y, position.z, normal.x, normal.y, normal.z};
    std::uint64_t h = 0;
    for (const double d : key) {
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
  bool same(std::uint32_t v, const Vec3& position, const Vec3& normal) const {
    return std::memcmp(&mesh_.vertices[v], &position, sizeof position) == 0 &&
           (!normals_ || std::memcmp(&mesh_.vertex_normals[v], &normal, sizeof normal) == 0);
  }
  void resize_table(std::size_t expected) {
    std::size_t capacity = 16;
    while (capacity < 2 * expected) capacity *= 2;
    slots_.assign(capacity, kEmpty);
    mask_ = capacity - 1;
  }
  void rehash() {
    resize_table(mesh_.vertices.size() * 2);
    const Vec3 none(0.0);
    for (std::uint32_t v = 0; v < mesh_.vertices.size(); ++v) {
      std::size_t slot = hash(mesh_.vertices[v], normals_ ? mesh_.vertex_normals[v] : none) & mask_;
      while (slots_[slot] != kEmpty) slot = (slot + 1) & mask_;
      slots_[slot] = v;
    }
  }

  core::TerrainMesh& mesh_;
  bool normals_;
  std::vector<std::uint32_t> slots_;
  std::size_t mask_ = 0;
};

using Vec3Array = std::vector<Vec3, core::UnwrittenResizeAllocator<Vec3>>;

Vec3Array world_positions(const ObjParts& obj, const glm::dmat4& to_world, const std::string& file,
                          const core::ParallelRunner* runner) {
  Vec3Array out;
  core::resize_unwritten(out, obj.position_count);
  for_each_block(runner, static_cast<int>(obj.parts.size()), [&](int k) {
    const auto part = static_cast<std::size_t>(k);
    const std::size_t first = obj.position_offset[part];
    const auto& positions = obj.parts[part].positions;
    for (std::size_t i = 0; i < positions.size(); ++i) {
      out[first + i] = Vec3(to_world * glm::dvec4(positions[i], 1.0));
      if (!core::is_finite(out[first + i]))
        throw InputError(file,
                         "vertex " + std::to_string(first + i + 1) + " is not finite in metres");
    }
  });
  return out;
}

Vec3Array world_normals(const ObjParts& obj, const glm::dmat4& to_world,
                        const core::ParallelRunner* runner) {
  const glm::dmat3 normal_matrix = glm::inverseTranspose(glm::dmat3(to_world));
  Vec3Array out;
  core::resize_unwritten(out, obj.normal_count);
  for_each_block(runner, static_cast<int>(obj.parts.size()), [&](int k) {
    const auto part = static_cast<std::size_t>(k);
    const std::size_t first = obj.normal_offset[part];
    const auto& normals = obj.parts[part].normals;
    for (std::size_t i = 0; i < normals.size(); ++i)
      out[first + i] = core::safe_normalize(normal_matrix * normals[i], Vec3(0.0));
  });
  return out;
}

}  // namespace

core::TerrainMesh obj_terrain_mesh(const ObjParts& obj, const glm::dmat4& to_world,
                                   const std::string& file, const core::ParallelRunner* runner) {
  const Vec3Array positions_ws = world_positions(obj, to_world, file, runner);
  const Vec3Array normals_ws = world_normals(obj, to_world, runner);
  const bool mirrored = glm::determinant(glm::dmat3(to_world)) < 0.0;
  const bool with_normals = obj.triangle_count > 0 && obj.every_corner_has_normal;

  core::TerrainMesh mesh;
  mesh.vertices.reserve(obj.position_count);
  if (with_normals) mesh.vertex_normals.reserve(obj.position_count);
  mesh.triangles.reserve(obj.triangle_count);
  VertexIndex index(mesh, with_normals, obj.position_count);
  // Per file position: the normal index it was last used with and the vertex that gave (a
  // terrain uses each position with one normal, so the table is asked once per position).
  constexpr std::int32_t kNone = std::numeric_limits<std::int32_t>::min();
  std::vector<std::int32_t> cached_normal(obj.position_count, kNone);
  std::vector<std::uint32_t> cached_vertex(obj.position_count);
  const Vec3 no_normal(0.0);
  auto vertex_of = [&](const ObjCorner& c) {
    const std::int32_t normal = with_normals ? c.normal : -1;
    if (cached_normal[c.position] == normal) return cached_vertex[c.position];
    const std::uint32_t v =
        index.find_or_add(positions_ws[c.position],
                          with_normals ? normals_ws[static_cast<std::size_t>(normal)] : no_normal);
    cached_normal[c.position] = normal;
    cached_vertex[c.position] = v;
    return v;
  };
  for (const ObjPart& part : obj.parts)
    for (const auto& corners : part.triangles) {
      std::array<std::uint32_t, 3> tri{vertex_of(corners[0]), vertex_of(corners[1]),
                                       vertex_of(corners[2])};
      if (mirrored) std::swap(tri[1], tri[2]);
      mesh.triangles.push_back(tri);
    }
  return mesh;
}

}  // namespace ikfix::io
