#pragma once
// Terrain: a triangle mesh in world metres (Y up) with ray queries straight down.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/math.hpp"

namespace ikfix::core {

// Plain triangle soup in world space (metres, Y up, counter-clockwise front faces).
struct TerrainMesh {
  std::vector<Vec3> vertices;
  std::vector<std::array<std::uint32_t, 3>> triangles;
  std::vector<Vec3> vertex_normals;  // optional: empty, or one per vertex (used for smooth normals)
};

// Result of a vertical ray query at (x, z).
struct GroundHit {
  bool hit = false;       // false when no terrain lies below/above that point
  double height = 0.0;    // world Y of the surface, metres
  Vec3 normal{0, 1, 0};   // unit surface normal, facing up (y >= 0)
  int triangle = -1;      // index into TerrainMesh::triangles
};

struct TerrainOptions {
  // Interpolate vertex normals across a triangle (if the mesh has them) instead of face normals.
  bool smooth_normals = false;
  // Rays per packet in the span query: 0 = automatic (the widest packet the CPU runs natively:
  // 16 with AVX-512, 8 with AVX2, else 4), or 1 (single rays), 4, 8, 16. Results do not depend
  // on it except, possibly, which of two triangles sharing an edge a ray exactly on that edge
  // reports (same height). Other values throw std::invalid_argument.
  int packet_width = 0;
};

// Immutable after construction and safe to query from many threads at once.
// Queries treat the terrain as a height field: the topmost surface at (x, z) is returned,
// which is what a character standing on stairs, slopes or rocks steps on.
//
// Precision: the acceleration structure stores vertices in float relative to the centre of the
// bounds, so which triangle is hit is resolved to ~1e-7 of the terrain's extent (a ray within
// that distance of a step edge may land on either side; exactly on the edge it lands on the
// upper step). Height and normal are then computed in double from the hit triangle's plane,
// so a plane at y = 0.15 answers 0.15 to ~1e-15.
// Triangles a vertical ray cannot hit (zero area, or vertical like stair risers) are left out
// of the acceleration structure; they stay in mesh().
class Terrain {
 public:
  // Builds the acceleration structure. Throws std::invalid_argument on a malformed mesh
  // (indices out of range, non-finite vertices, no triangles).
  explicit Terrain(TerrainMesh mesh, TerrainOptions options = {});
  ~Terrain();
  Terrain(const Terrain&) = delete;
  Terrain& operator=(const Terrain&) = delete;

  // Topmost surface at horizontal position (x, z), world metres.
  GroundHit ground_at(double x, double z) const;
  // Same for many points at once (faster: packet queries). xz[i] = {x, z}; out.size() == xz.size().
  void ground_at(std::span<const std::array<double, 2>> xz, std::span<GroundHit> out) const;

  const TerrainMesh& mesh() const;
  // Bounds of all mesh vertices, world metres.
  Vec3 bounds_min() const;
  Vec3 bounds_max() const;
  // Triangles in the acceleration structure (mesh triangles minus zero-area and vertical ones).
  std::size_t ground_triangle_count() const;
  // Rays per packet the span query uses (1, 4, 8 or 16; see TerrainOptions::packet_width).
  int packet_width() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ikfix::core
