#pragma once
// Terrain: a triangle mesh in world metres (Y up) with queries straight down (vertical casts).
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/math.hpp"

namespace ikfix::core {

// Thrown where a query needs triangles of the whole mesh beyond the part read for a clip
// (TerrainOptions::crop): the caller may read the whole terrain and try again.
struct TerrainPartTooSmall : std::logic_error {
  using std::logic_error::logic_error;
};

// Plain triangle soup in world space (metres, Y up, counter-clockwise front faces).
struct TerrainMesh {
  std::vector<Vec3> vertices;
  std::vector<std::array<std::uint32_t, 3>> triangles;
  std::vector<Vec3> vertex_normals;  // optional: empty, or one per vertex (used for smooth normals)
};

// The part of `mesh` a character inside the rectangle [min_x, max_x] x [min_z, max_z] (world
// metres) can stand on: every triangle whose horizontal bounding box touches the rectangle,
// with only the vertices (and normals) they use. Queries inside the rectangle give the same
// height and normal as on the whole mesh, and building it costs a fraction (DESIGN.md: build
// the terrain under the clip's footprint plus a margin). `original_triangle`, when not null,
// receives the index in `mesh` of each kept triangle. An empty result (no triangles) means no
// ground there; Terrain rejects it, so check before building.
TerrainMesh crop_terrain_mesh(const TerrainMesh& mesh, double min_x, double min_z, double max_x,
                              double max_z,
                              std::vector<std::uint32_t>* original_triangle = nullptr);

// Result of a vertical query at (x, z).
struct GroundHit {
  bool hit = false;      // false when no terrain lies below/above that point
  double height = 0.0;   // world Y of the surface, metres
  Vec3 normal{0, 1, 0};  // unit surface normal, facing up (y >= 0)
  int triangle = -1;     // index into TerrainMesh::triangles
};

// A mesh that is the part of a larger ("whole") mesh a clip can reach: every triangle of the
// whole mesh whose horizontal bounding box touches the rectangle [min_x, max_x] x [min_z, max_z]
// (world metres), in the whole mesh's order, with vertices numbered by first use (what
// crop_terrain_mesh returns). A Terrain built from it gives the whole mesh's answers bit for bit
// at every point at least kTerrainCropMargin inside the rectangle: the edge tolerances follow the
// whole mesh's bounds.
struct TerrainCrop {
  Vec3 whole_min{0.0}, whole_max{0.0};  // bounds of the whole mesh's vertices, world metres
  double min_x = 0.0, min_z = 0.0, max_x = 0.0, max_z = 0.0;
};

// Metres a query point must lie inside a crop's rectangle (far more than every triangle a
// query's edge search can reach: a few float ulps of the mesh's extent).
inline constexpr double kTerrainCropMargin = 0.05;

struct TerrainOptions {
  // Interpolate vertex normals across a triangle (if the mesh has them) instead of face normals.
  bool smooth_normals = false;
  // The mesh is a part of a larger one (see TerrainCrop); empty: the mesh is the whole terrain.
  std::optional<TerrainCrop> crop;
  // Mesh triangles per query scene tile (see Size below); 0: one scene over the whole mesh.
  // Answers do not depend on it.
  std::size_t scene_tile_triangles = 256;
};

// Immutable after construction and safe to query from many threads at once.
// Queries treat the terrain as a height field: the topmost surface at (x, z) is returned,
// which is what a character standing on stairs, slopes or rocks steps on.
//
// How: a query at (x, z) takes the topmost triangle whose horizontal projection holds the point
// (found in double among the few a grid over the ground lists under it; of equal heights the
// first in the mesh). Near edges the answer must not depend on which of two triangles sharing
// an edge holds a point a rounding off it: with u = FLT_EPSILON x the mesh's horizontal half
// extent (1.2e-6 m for a 20 m terrain; the resolution of float coordinates, which a mesh read
// from a file usually had), within 2u of that triangle's edge (or when no triangle holds the
// point inside the bounds) the topmost triangle within 4u of the point or of its four diagonal
// nudges by 4u wins: a step edge always gives the upper step, whatever the winding or
// direction, and the mesh border counts as inside. Height and normal are computed in double
// from the chosen triangle's plane: a plane at y = 0.15 answers 0.15 to ~1e-15, slopes are
// exact to ~1e-12.
//
// Triangles a vertical cast cannot land on (zero area, or vertical like stair risers) are left
// out of the query structures; they stay in mesh().
//
// Size: the ground is cut into square tiles of about scene_tile_triangles triangles, and a tile's
// query structure (its triangles' records and a grid over them) is built on the first query in
// it (a clip's feet touch a few square metres of a level of millions of triangles), over the
// triangles touching the tile or lying within a few float ulps of it. The answers are those of a
// structure over the whole mesh, bit for bit, whatever the order and threads of the queries:
// every triangle holding a query's point or reached by its edge search is in its tile's
// structure, kept in mesh order. A tile's triangles are listed and sorted into ground and the
// rest on its first use too (from blocks of consecutive triangles listed under the tiles they
// reach), so the set-up a query pays is about the tiles it reaches, not the whole mesh.
class Terrain {
 public:
  // Checks the mesh and prepares the queries. Throws std::invalid_argument on a malformed mesh
  // (indices out of range, non-finite vertices or normals, vertex_normals neither empty nor
  // one per vertex, no triangles, or none that is neither zero-area nor vertical).
  explicit Terrain(TerrainMesh mesh, TerrainOptions options = {});
  ~Terrain();
  Terrain(const Terrain&) = delete;
  Terrain& operator=(const Terrain&) = delete;

  // Topmost surface at horizontal position (x, z), world metres. Both queries may build a tile's
  // query structure (see Size above).
  GroundHit ground_at(double x, double z) const;
  // Same for many points at once. xz[i] = {x, z}; out.size() == xz.size(). A point bit for bit
  // equal to the one before it gets that point's answer without a search of its own (a planted
  // foot's run of frames), and so does a point well inside the triangle that answered the point
  // searched before it when no other triangle overlaps that one (a foot on one face). Same
  // answers as one by one.
  void ground_at(std::span<const std::array<double, 2>> xz, std::span<GroundHit> out) const;

  // An upper bound of the ground's height at (x, z), world metres: ground_at(x, z) there misses
  // or answers at most this. -infinity where every query misses (off the bounds, no ground
  // triangle within reach), +infinity where a query would throw TerrainPartTooSmall. A point at
  // or above it is not under the terrain: a caller that needs only the points under it skips the
  // others' queries. The bound is that of the cell holding (x, z) of a grid over the ground
  // whose cells divide the scene tiles (about 256 cells along the longer side, more when there
  // are more tiles): the highest any ground triangle near the cell reaches in it, found from its
  // tile's triangles for a block of up to 8 x 8 cells on the first ask of one, without a cast.
  // Safe to call from many threads.
  double ground_ceiling(double x, double z) const;
  // A lower bound of the ground's height at (x, z), world metres: ground_at(x, z) there misses
  // or answers at least this (a miss is not bounded: a caller counting misses as some height
  // takes the lesser of the two). +infinity where every query misses, -infinity where a query
  // would throw TerrainPartTooSmall. The lowest any ground triangle near the cell holding
  // (x, z) reaches in it, from ground_ceiling's grid (found with its upper bound).
  double ground_floor(double x, double z) const;
  // Per point (world metres): 1 where it lies at or above ground_ceiling there (its query
  // misses or answers a height at most its y: it is not under the terrain), else 0.
  // out.size() == points_ws.size().
  void above_ground_ceiling(std::span<const Vec3> points_ws, std::span<char> out) const;
  // The mesh (with TerrainOptions::crop: the part read, not the whole mesh).
  const TerrainMesh& mesh() const;
  // Throws TerrainPartTooSmall when the rectangle [min_x, max_x] x [min_z, max_z] (world metres) is
  // not wholly inside the part of the terrain held (always inside without a crop): a caller
  // reading mesh() there would miss triangles of the whole mesh. `what` names the caller.
  void require_held(double min_x, double min_z, double max_x, double max_z, const char* what) const;
  // The horizontal distance (metres) from (x, z) to the edge of the part held: every triangle of
  // the whole mesh nearer than that is in mesh(). Infinite without a crop.
  double held_margin(double x, double z) const;
  // Bounds of all vertices of the (whole) mesh, world metres.
  Vec3 bounds_min() const;
  Vec3 bounds_max() const;
  // Triangles in the query structures (mesh triangles minus zero-area and vertical ones),
  // counted over the whole mesh on the first call.
  std::size_t ground_triangle_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ikfix::core
