// A planted foot whose toe tip would sink into a riser is placed where the whole foot fits: a
// CMU walk (3ds-Max joint names) that stops at the foot of 15 cm stairs, the first riser between
// the stopped right foot's ball and its toe tip. Measured on the written clip, independently of
// the fix: every foot point (ankle, heel, ball, toe tip) against the stairs mesh, with the depth
// inside the terrain solid as the distance to the nearest triangle.
#include <algorithm>
#include <cmath>

#include "core/foot_model.hpp"
#include "e2e_support.hpp"

namespace ikfix::test {
namespace {

using core::Vec3;

// The closest point to `p` on triangle (a, b, c): the region tests of the triangle's Voronoi
// regions (vertices, edges, face).
Vec3 closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
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

// Depth of `p` inside the terrain solid: 0 above the ground under it, else the distance to the
// nearest surface (metres).
double depth_inside(const core::Terrain& terrain, const Vec3& p) {
  const core::GroundHit g = terrain.ground_at(p.x, p.z);
  if (!g.hit || g.height <= p.y) return 0.0;
  const core::TerrainMesh& mesh = terrain.mesh();
  double nearest = g.height - p.y;
  for (const auto& t : mesh.triangles) {
    const Vec3 q =
        closest_on_triangle(p, mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]]);
    nearest = std::min(nearest, glm::length(q - p));
  }
  return nearest;
}

struct FootDepths {
  int frames_over_1cm = 0;  // frames with a foot point deeper than 1 cm
  double deepest_m = 0;
  int deepest_frame = -1;
  std::string deepest_point;
};

// Every foot point of both legs on every frame of `clip` from `first_frame` on (read with the
// report's unit).
FootDepths foot_depths(const std::filesystem::path& clip, const core::Terrain& terrain,
                       const nlohmann::json& report, int first_frame) {
  io::ClipLoadOptions options;
  options.metres_per_unit = report["unit"]["metres_per_unit"].get<double>();
  const io::LoadedClip loaded = io::load_clip(clip, options);
  const core::Skeleton& sk = loaded.skeleton;
  core::FootModel feet[2];
  for (int l = 0; l < 2; ++l) {
    const auto& names = report["legs"][l == 0 ? "left" : "right"];
    core::Leg leg;
    leg.hip = sk.find(names["hip"].get<std::string>());
    leg.knee = sk.find(names["knee"].get<std::string>());
    leg.ankle = sk.find(names["ankle"].get<std::string>());
    leg.toe = sk.find(names["toe"].get<std::string>());
    feet[l] = core::build_foot_model(sk, leg, loaded.space.to_world());
  }
  FootDepths out;
  std::vector<core::Transform> world(sk.joint_count());
  std::vector<Vec3> points;
  for (int f = first_frame; f < loaded.clip.frame_count; ++f) {
    core::forward_kinematics(sk, loaded.clip.frame(f), loaded.space.to_world(), world);
    double frame_deepest = 0;
    for (const core::FootModel& foot : feet) {
      core::pose_foot_points(foot, nullptr, world, points);
      for (int i = 0; i < foot.point_count(); ++i) {
        const double d = depth_inside(terrain, points[i]);
        frame_deepest = std::max(frame_deepest, d);
        if (d > out.deepest_m) {
          out.deepest_m = d;
          out.deepest_frame = f;
          out.deepest_point = core::foot_point_name(foot.kind(i));
        }
      }
    }
    if (frame_deepest > 0.01) ++out.frames_over_1cm;
  }
  return out;
}

TEST(E2ePlantPlacement, AWalkStoppingAtStairsStandsBeforeTheFirstRiser) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("plant_placement");
  const auto clip = shared_data_dir() / "anim/bvh/cmu_131_01_start_walk_stop_max.bvh";
  const auto stairs = dir / "stairs.obj";
  // The walk goes along +z and stops (frames 792-993) with its right foot locked where it
  // landed: ball joint at z = 0.766 m, toe tip up to 0.805 m and 0.11 m high. The first riser at
  // 0.77 m is just ahead of the ball, behind the tip (the left tip, at 0.76-0.79 m, too).
  ASSERT_EQ(
      run_ikfix("terrain stairs --step-height 0.15 --steps 6 --start 0.77 -o " + quoted(stairs))
          .exit_code,
      0);
  const core::Terrain terrain(io::load_terrain_mesh(stairs));
  auto fix = [&](const std::string& name, const std::string& extra) {
    const auto r = run_ikfix("run " + quoted(clip) + " --terrain " + quoted(stairs) + " -o " +
                             quoted(dir / (name + ".bvh")) + " --report " +
                             quoted(dir / (name + ".json")) + extra);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return read_json(dir / (name + ".json"));
  };
  const nlohmann::json left_in_place = fix("in_place", " --no-place-plants");
  const nlohmann::json placed = fix("placed", "");
  // Measured from the stop (the first frame of the later of the legs' last plants) on: before
  // it the walk is on flat ground, where a toe tip's own depth is not this case's.
  int stop = 0;
  for (const auto& leg : left_in_place["per_leg"])
    stop = std::max(stop, leg["plants"].back()[0].get<int>());
  // Before: the input itself (recorded on flat ground) against the stairs. Fixed without placement
  // the foot is no longer inside either: step 5c raises the plant onto the tread instead (the
  // heel then stands in the air), which is why the plant is moved back when it can be.
  const FootDepths before = foot_depths(clip, terrain, left_in_place, stop);
  const FootDepths after = foot_depths(dir / "placed.bvh", terrain, placed, stop);
  std::printf(
      "from frame %d: frames with a foot point > 1 cm inside: %d -> %d; deepest %.4f m (frame "
      "%d, %s) -> %.4f m (frame %d, %s)\n",
      stop, before.frames_over_1cm, after.frames_over_1cm, before.deepest_m, before.deepest_frame,
      before.deepest_point.c_str(), after.deepest_m, after.deepest_frame,
      after.deepest_point.c_str());
  // The case: where the walk stopped, the toe tip is inside the riser for over a second.
  EXPECT_GT(before.frames_over_1cm, 120);
  EXPECT_GT(before.deepest_m, 0.025);
  // Placed: no foot point deeper than the planted goal (2 mm) while the walk stands there.
  EXPECT_EQ(after.frames_over_1cm, 0);
  EXPECT_LE(after.deepest_m, 0.002);
  // The move is reported: the right foot's last plant, moved back (against the foot) by a few
  // centimetres, and nothing is blocked.
  const auto& moves = placed["per_leg"][1]["plant_moves"];
  ASSERT_FALSE(moves.empty());
  const auto& last = moves.back();
  EXPECT_EQ(last["along"], "backward");
  EXPECT_GT(last["move_m"].get<double>(), 0.02);
  EXPECT_LT(last["move_m"].get<double>(), 0.15);
  EXPECT_LT(last["direction"][2].get<double>(), -0.9);  // the walk goes along +z
  for (const auto& leg : placed["per_leg"])
    for (const auto& range : leg["unreachable"]) EXPECT_NE(range["reason"], "blocked");
  EXPECT_TRUE(left_in_place["per_leg"][1]["plant_moves"].empty());
  // Never sliding during the plant: the planted feet slide as little as before.
  EXPECT_LE(placed["metrics"]["after"]["slide"]["max_mps"].get<double>(),
            std::max(0.02, left_in_place["metrics"]["after"]["slide"]["max_mps"].get<double>()));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test
