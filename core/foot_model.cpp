#include "core/foot_model.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/fk.hpp"

namespace ikfix::core {
namespace {

// Most sole vertices kept per foot: enough to outline a sole, few enough to query every frame.
constexpr int kMaxSoleVertices = 32;
// The sole band: vertices at most this fraction of the ankle's height above the foot's lowest.
constexpr double kSoleBandFraction = 0.25;
// The foot's outline: all of its vertices below the ankle when there are at most this many, else
// those farthest out along each of kOutlineDirections directions (vertices of its convex hull).
constexpr int kMaxOutlineVertices = 64;
constexpr int kOutlineDirections = 64;

// The ankle's tip when it has no toe joint: its end site (the ball of a foot without toes).
std::optional<Vec3> ankle_tip_ls(const Skeleton& sk, const Leg& leg) {
  if (leg.toe >= 0) return std::nullopt;
  return sk.end_sites[leg.ankle];
}

// The toe bone's end in the toe's frame: its end site, else its one child when that child is a
// leaf joint (a clip's FBX keeps Blender's or MotionBuilder's "*_end" bones as joints), posed
// with the toe as an end site is; none for a toe with no end, or with children of its own.
std::optional<Vec3> toe_end_ls(const Skeleton& sk, int toe) {
  if (sk.end_sites[toe]) return sk.end_sites[toe];
  const std::vector<int> children = sk.children(toe);
  if (children.size() == 1 && sk.children(children[0]).empty())
    return sk.rest[children[0]].translation;
  return std::nullopt;
}

// The weight of `v` on the ankle and the joints below it.
double foot_weight(const SkinnedVertex& v, const Skeleton& sk, int ankle) {
  double w = 0;
  for (int i = 0; i < 4; ++i)
    if (v.joint[i] >= 0 && sk.is_ancestor(ankle, v.joint[i])) w += v.weight[i];
  return w;
}

// Up to kMaxSoleVertices of `band` (indices with positions `pos`), spread over the sole by
// farthest-point sampling in the horizontal plane from the lowest one. Deterministic.
std::vector<int> spread(const std::vector<int>& band, const std::vector<Vec3>& pos) {
  if (static_cast<int>(band.size()) <= kMaxSoleVertices) return band;
  std::vector<double> dist(band.size(), 1e300);
  std::vector<int> kept;
  std::size_t next = 0;
  for (std::size_t i = 1; i < band.size(); ++i)
    if (pos[i].y < pos[next].y) next = i;
  while (static_cast<int>(kept.size()) < kMaxSoleVertices) {
    kept.push_back(band[next]);
    std::size_t far = 0;
    for (std::size_t i = 0; i < band.size(); ++i) {
      const double d = std::hypot(pos[i].x - pos[next].x, pos[i].z - pos[next].z);
      dist[i] = std::min(dist[i], d);
      if (dist[i] > dist[far]) far = i;
    }
    if (!(dist[far] > 0)) break;
    next = far;
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

// The weight of `v` on joint `j` alone.
double joint_weight(const SkinnedVertex& v, int j) {
  double w = 0;
  for (int i = 0; i < 4; ++i)
    if (v.joint[i] == j) w += v.weight[i];
  return w;
}

// `v` carried by joint `j` alone (one of its influences) in the pose `world`.
Vec3 on_joint(const SkinnedVertex& v, int j, std::span<const Transform> world) {
  for (int i = 0; i < 4; ++i)
    if (v.joint[i] == j) return transform_point(world[j], v.local[i]);
  return skinned_position(v, world);
}

// The top of the foot's region at rest (world Y): the ankle and a quarter of the foot's height
// below it above it (kSoleBandFraction), so that the vertices around the ankle joint, which
// the rest pose may hold a little above it, count with the foot. `lowest`: its lowest vertex.
double region_top(double ankle_y, double lowest) {
  return ankle_y + kSoleBandFraction * std::max(0.0, ankle_y - lowest);
}

// The foot's skinned vertices and their rest positions: those weighing at least half on the
// ankle and below. An ankle nothing is skinned to (a leg whose ankle is its shin bone's end, as
// in a 2-bone Blender leg) has its foot mesh on the shin bone: then the shin's vertices up to
// region_top at rest, where the shin carries them. Returns whether the vertices are the shin's.
bool foot_vertices(const Skeleton& sk, const Leg& leg, const Skin& skin,
                   std::span<const Transform> rest_world, std::vector<int>& foot,
                   std::vector<Vec3>& pos) {
  for (int v = 0; v < static_cast<int>(skin.vertices.size()); ++v)
    if (foot_weight(skin.vertices[v], sk, leg.ankle) >= 0.5) {
      foot.push_back(v);
      pos.push_back(skinned_position(skin.vertices[v], rest_world));
    }
  const int shin = sk.parents[leg.ankle];
  if (!foot.empty() || shin < 0) return false;
  const double ankle_y = rest_world[leg.ankle].translation.y;
  std::vector<int> on_shin;
  std::vector<Vec3> shin_pos;
  double lowest = ankle_y;
  for (int v = 0; v < static_cast<int>(skin.vertices.size()); ++v) {
    if (joint_weight(skin.vertices[v], shin) < 0.5) continue;
    // Where the shin carries it: a rest pose that is not the bind pose would blend a vertex
    // shared with a bone off the leg (a foot controller at the root) somewhere else.
    on_shin.push_back(v);
    shin_pos.push_back(on_joint(skin.vertices[v], shin, rest_world));
    lowest = std::min(lowest, shin_pos.back().y);
  }
  const double top = region_top(ankle_y, lowest);
  for (std::size_t i = 0; i < on_shin.size(); ++i)
    if (shin_pos[i].y <= top) {
      foot.push_back(on_shin[i]);
      pos.push_back(shin_pos[i]);
    }
  return !foot.empty();
}

// Directions spread evenly over the sphere (a Fibonacci lattice), the same on every call.
std::vector<Vec3> sphere_directions(int n) {
  std::vector<Vec3> out;
  const double golden = kPi * (3.0 - std::sqrt(5.0));
  for (int i = 0; i < n; ++i) {
    const double y = 1.0 - 2.0 * (i + 0.5) / n;
    const double r = std::sqrt(std::max(0.0, 1.0 - y * y));
    out.emplace_back(r * std::cos(golden * i), y, r * std::sin(golden * i));
  }
  return out;
}

// The outline of `region` (indices with rest positions `pos`): all of it when small, else the
// vertex farthest out along each direction of sphere_directions (ascending, no repeats). A
// rigid foot's deepest point into a plane (a tread, a riser, a slope) is one of its hull's
// vertices, so these stand for the vertices between them.
std::vector<int> outline(const std::vector<int>& region, const std::vector<Vec3>& pos) {
  if (static_cast<int>(region.size()) <= kMaxOutlineVertices) return region;
  std::vector<int> kept;
  for (const Vec3& d : sphere_directions(kOutlineDirections)) {
    std::size_t best = 0;
    double farthest = glm::dot(pos[0], d);
    for (std::size_t i = 1; i < region.size(); ++i) {
      const double out = glm::dot(pos[i], d);
      if (out > farthest) {
        farthest = out;
        best = i;
      }
    }
    kept.push_back(region[best]);
  }
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  return kept;
}

// The foot's skinned vertices (see FootModel::sole_vertices) at rest; `rest_world` FK of the
// rest pose. `on_shin`: whether they are the shin's (FootModel::sole_on_shin); `lowest` (left
// as it is without foot vertices): the lowest foot vertex's height at rest, world metres.
std::vector<int> sole_vertices(const Skeleton& sk, const Leg& leg, const Skin& skin,
                               std::span<const Transform> rest_world, bool& on_shin,
                               double& lowest) {
  std::vector<int> foot;
  std::vector<Vec3> pos;
  on_shin = foot_vertices(sk, leg, skin, rest_world, foot, pos);
  if (foot.empty()) return {};
  lowest = pos[0].y;
  for (const Vec3& p : pos) lowest = std::min(lowest, p.y);
  const double ankle_y = rest_world[leg.ankle].translation.y;
  const double band = lowest + kSoleBandFraction * std::max(0.0, ankle_y - lowest);
  std::vector<int> in_band, below_ankle;
  std::vector<Vec3> band_pos, below_pos;
  for (std::size_t i = 0; i < foot.size(); ++i) {
    if (pos[i].y <= band) {
      in_band.push_back(foot[i]);
      band_pos.push_back(pos[i]);
    }
    if (pos[i].y <= region_top(ankle_y, lowest)) {
      below_ankle.push_back(foot[i]);
      below_pos.push_back(pos[i]);
    }
  }
  const std::vector<int> sole = spread(in_band, band_pos);
  std::vector<int> out = sole;
  for (int v : outline(below_ankle, below_pos))
    if (!std::binary_search(sole.begin(), sole.end(), v)) out.push_back(v);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

const char* foot_point_name(FootPointKind kind) {
  switch (kind) {
    case FootPointKind::Ankle:
      return "ankle";
    case FootPointKind::Heel:
      return "heel";
    case FootPointKind::Ball:
      return "ball";
    case FootPointKind::ToeTip:
      return "toe_tip";
    case FootPointKind::Sole:
      return "sole";
  }
  return "?";
}

const char* toe_tip_source_name(ToeTipSource source) {
  switch (source) {
    case ToeTipSource::EndSite:
      return "end site";
    case ToeTipSource::Estimated:
      return "estimated";
    case ToeTipSource::None:
      return "none";
  }
  return "?";
}

FootModel build_foot_model(const Skeleton& sk, const Leg& leg, const Transform& to_world,
                           const Skin* skin) {
  FootModel foot;
  foot.hip = leg.hip;
  foot.knee = leg.knee;
  foot.ankle = leg.ankle;
  foot.toe = leg.toe;
  std::vector<Transform> rest(sk.joint_count());
  forward_kinematics(sk, sk.rest, to_world, rest);
  const Transform& ankle_ws = rest[leg.ankle];
  // The ball: the toe joint, else the ankle's end site; the tip: the toe's end (toe_end_ls),
  // else estimated along the foot's horizontal direction.
  const int tip_joint = leg.toe >= 0 ? leg.toe : leg.ankle;
  std::optional<Vec3> ball_ws;
  if (leg.toe >= 0) {
    ball_ws = rest[leg.toe].translation;
  } else if (const auto tip = ankle_tip_ls(sk, leg)) {
    ball_ws = transform_point(ankle_ws, *tip);
  }
  std::optional<Vec3> tip_ws;
  const std::optional<Vec3> toe_end = leg.toe >= 0 ? toe_end_ls(sk, leg.toe) : std::nullopt;
  if (toe_end) {
    tip_ws = transform_point(rest[leg.toe], *toe_end);
    foot.tip_source = ToeTipSource::EndSite;
  } else if (ball_ws) {
    const Vec3 d = *ball_ws - ankle_ws.translation;
    const Vec3 forward = safe_normalize(Vec3(d.x, 0, d.z), Vec3(0, 0, 1));
    tip_ws = *ball_ws + forward * (kEstimatedToeFraction * std::hypot(d.x, d.z));
    foot.tip_source = ToeTipSource::Estimated;
  }
  double sole_y = ankle_ws.translation.y;
  if (skin) foot.sole_vertices = sole_vertices(sk, leg, *skin, rest, foot.sole_on_shin, sole_y);
  sole_y = std::min(sole_y, ankle_ws.translation.y);
  if (ball_ws) sole_y = std::min(sole_y, ball_ws->y);
  if (tip_ws) sole_y = std::min(sole_y, tip_ws->y);
  foot.sole_height_m = ankle_ws.translation.y - sole_y;
  const Vec3 heel_ws(ankle_ws.translation.x, sole_y, ankle_ws.translation.z);
  foot.points.push_back({FootPointKind::Ankle, leg.ankle, Vec3(0.0)});
  foot.points.push_back(
      {FootPointKind::Heel, leg.ankle, inverse_transform_point(ankle_ws, heel_ws)});
  if (ball_ws) {
    const Vec3 ball_ls = leg.toe >= 0 ? Vec3(0.0) : inverse_transform_point(ankle_ws, *ball_ws);
    foot.points.push_back({FootPointKind::Ball, tip_joint, ball_ls});
  }
  if (tip_ws) {
    foot.points.push_back(
        {FootPointKind::ToeTip, tip_joint, inverse_transform_point(rest[tip_joint], *tip_ws)});
    foot.toe_length_m = glm::length(*tip_ws - *ball_ws);
  }
  return foot;
}

void pose_foot_points(const FootModel& foot, const Skin* skin, std::span<const Transform> world,
                      std::vector<Vec3>& out) {
  out.resize(foot.point_count());
  std::size_t i = 0;
  for (const RigidFootPoint& p : foot.points) out[i++] = pose_rigid_point(p, world[p.joint]);
  for (int v : foot.sole_vertices) out[i++] = skinned_position(skin->vertices[v], world);
}

}  // namespace ikfix::core
