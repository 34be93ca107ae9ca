#include "core/terrain_solid.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/triangle_distance.hpp"
#include "core/xz_grid.hpp"

namespace ikfix::core {
namespace {

// A triangle is skipped when its bounding box lies farther than the best distance so far plus
// this (metres): far above the rounding of either distance (~1e-16 relative), so a skipped
// triangle is never the nearest, whatever order the triangles are visited in.
constexpr double kPruneMargin = 1e-9;

// A triangle's plane: unit normal n and offset d (n . x = d on the plane). The distance to
// the plane is a lower bound of the distance to the triangle, at a few operations.
struct Plane {
  Vec3 n;
  double d;
};

// The triangles with area whose horizontal bounds touch a rectangle, with their bounds.
struct NearTriangles {
  std::vector<std::uint32_t> triangles;  // indices into the mesh, ascending
  std::vector<XzBox> boxes;
  std::vector<std::array<double, 2>> y_range;  // lowest and highest vertex y
  std::vector<Plane> planes;
  XzGrid grid;
};

NearTriangles near_triangles(const TerrainMesh& mesh, const XzBox& rect) {
  NearTriangles near;
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    const Vec3& a = mesh.vertices[tri[0]];
    const Vec3& b = mesh.vertices[tri[1]];
    const Vec3& c = mesh.vertices[tri[2]];
    const XzBox box{std::min({a.x, b.x, c.x}), std::min({a.z, b.z, c.z}), std::max({a.x, b.x, c.x}),
                    std::max({a.z, b.z, c.z})};
    if (box.max_x < rect.min_x || box.min_x > rect.max_x || box.max_z < rect.min_z ||
        box.min_z > rect.max_z)
      continue;
    const Vec3 n = glm::cross(b - a, c - a);
    const double area2 = glm::length(n);
    if (!(area2 > 0.0)) continue;  // zero area: no surface
    near.planes.push_back({n / area2, glm::dot(n / area2, a)});
    near.triangles.push_back(static_cast<std::uint32_t>(t));
    near.boxes.push_back(box);
    near.y_range.push_back({std::min({a.y, b.y, c.y}), std::max({a.y, b.y, c.y})});
  }
  near.grid = XzGrid(near.boxes);
  return near;
}

// True when entry k's triangle cannot be nearer to p than `reach` (metres): p is farther than
// that from its bounding box or from its plane (both lower bounds of the distance to it).
bool beyond(const NearTriangles& near, std::uint32_t k, const Vec3& p, double reach) {
  const XzBox& b = near.boxes[k];
  const double dx = std::max({b.min_x - p.x, 0.0, p.x - b.max_x});
  const double dy = std::max({near.y_range[k][0] - p.y, 0.0, p.y - near.y_range[k][1]});
  const double dz = std::max({b.min_z - p.z, 0.0, p.z - b.max_z});
  if (dx * dx + dy * dy + dz * dz > reach * reach) return true;
  const Plane& plane = near.planes[k];
  return std::abs(glm::dot(plane.n, p) - plane.d) > reach;
}

// The least distance from p to a triangle of `near`, at most `bound` (a distance to the surface
// already known: every triangle nearer than it touches the square of that radius around p).
double nearest_surface(const TerrainMesh& mesh, const NearTriangles& near, const Vec3& p,
                       double bound) {
  double best = bound;
  near.grid.for_each_near(p.x, p.z, bound, [&](std::uint32_t k) {
    if (beyond(near, k, p, best + kPruneMargin)) return;
    const auto& tri = mesh.triangles[near.triangles[k]];
    best = std::min(best, point_triangle_distance(p, mesh.vertices[tri[0]], mesh.vertices[tri[1]],
                                                  mesh.vertices[tri[2]]));
  });
  return best;
}

}  // namespace

void solid_depth_vertical(std::span<const Vec3> points_ws, std::span<const GroundHit> ground,
                          std::span<SolidDepth> out) {
  if (ground.size() != points_ws.size() || out.size() != points_ws.size())
    throw std::invalid_argument("solid_depth: " + std::to_string(points_ws.size()) +
                                " points but " + std::to_string(ground.size()) +
                                " ground hits and " + std::to_string(out.size()) + " results");
  for (std::size_t i = 0; i < points_ws.size(); ++i) {
    const Vec3& p = points_ws[i];
    out[i] = SolidDepth{};
    if (!ground[i].hit || !is_finite(p) || !(p.y < ground[i].height)) continue;
    const double r = ground[i].height - p.y;
    out[i] = {true, r, r};
  }
}

struct NearestSurface::Near {
  NearTriangles triangles;
};

NearestSurface::NearestSurface(const Terrain& terrain, std::span<const Vec3> points_ws,
                               std::span<const SolidDepth> vertical)
    : terrain_(terrain) {
  // The square of radius vertical_m around every inside point, within the terrain's bounds
  // (which hold every triangle).
  const Vec3 lo = terrain.bounds_min(), hi = terrain.bounds_max();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  XzBox rect{kInf, kInf, -kInf, -kInf};
  for (std::size_t i = 0; i < points_ws.size(); ++i) {
    if (!vertical[i].inside) continue;
    const Vec3& p = points_ws[i];
    const double r = vertical[i].vertical_m;
    rect.min_x = std::min(rect.min_x, std::clamp(p.x - r, lo.x, hi.x));
    rect.min_z = std::min(rect.min_z, std::clamp(p.z - r, lo.z, hi.z));
    rect.max_x = std::max(rect.max_x, std::clamp(p.x + r, lo.x, hi.x));
    rect.max_z = std::max(rect.max_z, std::clamp(p.z + r, lo.z, hi.z));
  }
  if (rect.min_x > rect.max_x) return;  // no point inside
  // With a part of the mesh read for a clip, its triangles only: depth() checks the answer.
  near_ = std::make_unique<Near>(Near{near_triangles(terrain.mesh(), rect)});
}

NearestSurface::~NearestSurface() = default;

double NearestSurface::depth(const Vec3& point_ws, double vertical_m) const {
  if (!near_) throw std::logic_error("NearestSurface: the point was not given as inside");
  const double d = nearest_surface(terrain_.mesh(), near_->triangles, point_ws, vertical_m);
  // A triangle the part read leaves out lies beyond its edge, so no nearer than this: the
  // answer is the whole mesh's only when it is within it.
  if (d > terrain_.held_margin(point_ws.x, point_ws.z))
    throw TerrainPartTooSmall(
        "terrain: the solid depth reaches past the part of the terrain read for the clip");
  return d;
}

void solid_depth(const Terrain& terrain, std::span<const Vec3> points_ws,
                 std::span<const GroundHit> ground, std::span<SolidDepth> out) {
  solid_depth_vertical(points_ws, ground, out);
  const NearestSurface nearest(terrain, points_ws, out);
  for (std::size_t i = 0; i < points_ws.size(); ++i) {
    if (!out[i].inside) continue;
    // A point bit for bit the one before it (a planted foot) takes its answer.
    if (i > 0 && out[i - 1].inside &&
        std::memcmp(&points_ws[i], &points_ws[i - 1], sizeof(Vec3)) == 0)
      out[i].nearest_m = out[i - 1].nearest_m;
    else
      out[i].nearest_m = nearest.depth(points_ws[i], out[i].vertical_m);
  }
}

void solid_depth(const Terrain& terrain, std::span<const Vec3> points_ws,
                 std::span<SolidDepth> out) {
  std::vector<std::array<double, 2>> xz(points_ws.size());
  for (std::size_t i = 0; i < points_ws.size(); ++i) xz[i] = {points_ws[i].x, points_ws[i].z};
  std::vector<GroundHit> ground(points_ws.size());
  terrain.ground_at(xz, ground);
  solid_depth(terrain, points_ws, ground, out);
}

SolidDepth solid_depth(const Terrain& terrain, const Vec3& point_ws) {
  SolidDepth out;
  solid_depth(terrain, {&point_ws, 1}, {&out, 1});
  return out;
}

}  // namespace ikfix::core
