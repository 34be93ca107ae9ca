#pragma once
// The terrain as a solid: whether a point lies inside it (below the topmost surface at its
// (x, z): the terrain is a height field, the surface Terrain::ground_at answers) and how deep,
// straight down and to the nearest surface of the mesh, stair risers and walls included.
#include <memory>
#include <span>

#include "core/math.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

struct SolidDepth {
  bool inside = false;      // strictly below the topmost surface; false off the terrain
  double vertical_m = 0.0;  // inside: surface height at (x, z) minus y, metres (> 0); else 0
  // Inside: the distance (metres) from the point to the closest point of any triangle of the
  // mesh, vertical ones (which the ray queries leave out) included, so <= vertical_m: a point 6 cm
  // behind a stair riser and 11 cm under the tread is 0.06 deep. Else 0.
  double nearest_m = 0.0;
};

// How deep each of `points_ws` (world metres) lies inside `terrain`'s solid; out.size() ==
// points_ws.size(). A point that is not finite is not inside. The nearest surface is searched
// for the inside points only, among the triangles within their vertical depth (the surface
// above is that close), through an xz grid over the mesh's triangles near them; distances are
// computed in double from the mesh's own vertices (core/triangle_distance.hpp), and a triangle
// is skipped only when its bounding box is farther than the best distance found (with a margin
// above rounding), so the answer is the least distance over every triangle, bit for bit the same
// whatever the other points of the call, the visiting order or the thread. Safe to call from
// many threads on one terrain. May throw what Terrain::ground_at throws.
void solid_depth(const Terrain& terrain, std::span<const Vec3> points_ws,
                 std::span<SolidDepth> out);
// Same, given the ground under each point: ground[i] is terrain.ground_at(points_ws[i].x,
// points_ws[i].z) (a caller that queried it already saves the rays).
void solid_depth(const Terrain& terrain, std::span<const Vec3> points_ws,
                 std::span<const GroundHit> ground, std::span<SolidDepth> out);
SolidDepth solid_depth(const Terrain& terrain, const Vec3& point_ws);

// The two halves of solid_depth, for a caller that needs the nearest-surface depth of only some
// points (the deepest of a set: nearest_m <= vertical_m, so a point whose vertical depth is below
// the deepest nearest found cannot be deeper). solid_depth_vertical fills `inside` and
// `vertical_m` as solid_depth does and sets nearest_m to vertical_m (its upper bound).
void solid_depth_vertical(std::span<const Vec3> points_ws, std::span<const GroundHit> ground,
                          std::span<SolidDepth> out);

// The mesh near a set of inside points (those solid_depth_vertical marked inside): answers the
// nearest-surface depth of any of them, bit for bit solid_depth's. Keeps a reference to
// `terrain`. Safe to call from many threads.
class NearestSurface {
 public:
  NearestSurface(const Terrain& terrain, std::span<const Vec3> points_ws,
                 std::span<const SolidDepth> vertical);
  ~NearestSurface();
  NearestSurface(const NearestSurface&) = delete;
  NearestSurface& operator=(const NearestSurface&) = delete;
  // nearest_m of `point_ws`, one of the points given, whose vertical depth is `vertical_m`.
  double depth(const Vec3& point_ws, double vertical_m) const;

 private:
  struct Near;
  const Terrain& terrain_;
  std::unique_ptr<Near> near_;  // null when no point is inside
};

}  // namespace ikfix::core
