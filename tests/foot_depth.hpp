#pragma once
// How deep every foot point of a written clip goes into the terrain, measured from the file as a
// viewer would see it: the clip read back, its joints posed by FK, each foot's points
// (core::FootModel: ankle, heel, ball, toe tip, sole) placed on every frame and compared with the
// terrain mesh. Two depths per point: vertical (the surface above it at its own x, z) and
// nearest-surface (distance to the closest triangle, risers included, for a point under the
// surface). Planted frames are the run report's plants.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/fk.hpp"
#include "core/foot_model.hpp"
#include "core/terrain.hpp"
#include "core/xz_grid.hpp"
#include "io/clip_io.hpp"
#include "io/terrain_io.hpp"

namespace ikfix::test {

// The closest point to `p` on triangle (a, b, c), by the region `p` projects into: a vertex, an
// edge, or the face.
inline core::Vec3 closest_on_triangle(const core::Vec3& p, const core::Vec3& a, const core::Vec3& b,
                                      const core::Vec3& c) {
  using core::Vec3;
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = glm::dot(ab, ap), d2 = glm::dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const Vec3 bp = p - b;
  const double d3 = glm::dot(ab, bp), d4 = glm::dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + ab * (d1 / (d1 - d3));
  const Vec3 cp = p - c;
  const double d5 = glm::dot(ab, cp), d6 = glm::dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + ac * (d2 / (d2 - d6));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0)
    return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
  const double denom = 1.0 / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
}

// A terrain with both depth queries, world metres, Y up.
class DepthTerrain {
 public:
  explicit DepthTerrain(core::TerrainMesh mesh) : terrain_(mesh), mesh_(std::move(mesh)) {
    std::vector<core::XzBox> boxes;
    for (const auto& t : mesh_.triangles) {
      core::XzBox box{1e300, 1e300, -1e300, -1e300};
      for (auto v : t) {
        const core::Vec3& p = mesh_.vertices[v];
        box = {std::min(box.min_x, p.x), std::min(box.min_z, p.z), std::max(box.max_x, p.x),
               std::max(box.max_z, p.z)};
      }
      boxes.push_back(box);
    }
    grid_ = core::XzGrid(boxes);
  }

  // Metres below the topmost surface at the point's x, z (0 above it or off the terrain).
  double vertical_depth(const core::Vec3& p) const {
    const core::GroundHit g = terrain_.ground_at(p.x, p.z);
    return g.hit ? std::max(0.0, g.height - p.y) : 0.0;
  }

  // For a point under the surface: its distance to the nearest triangle (0 above the surface).
  double nearest_depth(const core::Vec3& p) const {
    const double vertical = vertical_depth(p);
    if (!(vertical > 0)) return 0.0;
    double best = vertical;  // the surface straight above is at most this far
    grid_.for_each_near(p.x, p.z, vertical, [&](std::uint32_t t) {
      const auto& tri = mesh_.triangles[t];
      const core::Vec3 q = closest_on_triangle(p, mesh_.vertices[tri[0]], mesh_.vertices[tri[1]],
                                               mesh_.vertices[tri[2]]);
      best = std::min(best, glm::length(q - p));
    });
    return best;
  }

 private:
  core::Terrain terrain_;
  core::TerrainMesh mesh_;
  core::XzGrid grid_;
};

// One worst depth and where it is.
struct FootDepth {
  double depth = 0;  // metres
  int frame = -1;
  int leg = -1;
  std::string point;  // foot_point_name
  void offer(double d, int f, int l, const std::string& p) {
    if (d > depth) *this = FootDepth{d, f, l, p};
  }
};

// The worst of a clip, nearest-surface and vertical, over every frame and over planted frames;
// per point kind (core::FootPointKind order) for the nearest-surface depth over every frame.
struct FootDepths {
  FootDepth nearest_any, nearest_planted, vertical_any, vertical_planted;
  std::array<FootDepth, 5> nearest_by_kind;
  int frames_over_5mm = 0;  // leg-frames with a point deeper than 5 mm (nearest-surface)
};

// `report`: the run report of `clip` (its unit, legs and plants; the clip's first take).
inline FootDepths measure_foot_depths(const std::filesystem::path& clip,
                                      const DepthTerrain& terrain, const nlohmann::json& report) {
  io::ClipLoadOptions options;
  options.metres_per_unit = report["unit"]["metres_per_unit"].get<double>();
  const io::LoadedClip loaded = io::load_clip(clip, options);
  const core::Skeleton& sk = loaded.skeleton;
  const core::Transform to_world = loaded.space.to_world();
  core::FootModel feet[2];
  std::vector<char> planted[2];
  for (int l = 0; l < 2; ++l) {
    const auto& names = report["legs"][core::kLegSideNames[l]];
    core::Leg leg{sk.find(names["hip"].get<std::string>()),
                  sk.find(names["knee"].get<std::string>()),
                  sk.find(names["ankle"].get<std::string>()), -1};
    if (names.contains("toe") && names["toe"].is_string())
      leg.toe = sk.find(names["toe"].get<std::string>());
    feet[l] = core::build_foot_model(sk, leg, to_world, loaded.skin.get());
    planted[l].assign(loaded.clip.frame_count, 0);
    for (const auto& plant : report["per_leg"][l]["plants"])
      for (int f = plant[0].get<int>(); f <= plant[1].get<int>(); ++f)
        if (f >= 0 && f < loaded.clip.frame_count) planted[l][f] = 1;
  }
  FootDepths out;
  std::vector<core::Transform> world(sk.joint_count());
  std::vector<core::Vec3> points;
  for (int f = 0; f < loaded.clip.frame_count; ++f) {
    core::forward_kinematics(sk, loaded.clip.frame(f), to_world, world);
    for (int l = 0; l < 2; ++l) {
      core::pose_foot_points(feet[l], loaded.skin.get(), world, points);
      double deepest = 0;
      for (int i = 0; i < static_cast<int>(points.size()); ++i) {
        const core::FootPointKind kind = feet[l].kind(i);
        const std::string name = core::foot_point_name(kind);
        const double vertical = terrain.vertical_depth(points[i]);
        const double nearest = terrain.nearest_depth(points[i]);
        deepest = std::max(deepest, nearest);
        out.nearest_any.offer(nearest, f, l, name);
        out.vertical_any.offer(vertical, f, l, name);
        out.nearest_by_kind[static_cast<int>(kind)].offer(nearest, f, l, name);
        if (planted[l][f]) {
          out.nearest_planted.offer(nearest, f, l, name);
          out.vertical_planted.offer(vertical, f, l, name);
        }
      }
      if (deepest > 0.005) ++out.frames_over_5mm;
    }
  }
  return out;
}

}  // namespace ikfix::test
