#include "core/view/report_view.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "core/fk.hpp"

namespace ikfix::core {

ViewPositions sized_view_positions(const Skeleton& skeleton, int frames,
                                   const std::vector<int>& tip_owners) {
  ViewPositions out;
  out.frame_count = frames;
  out.point_count = skeleton.joint_count() + static_cast<int>(tip_owners.size());
  out.positions.resize(static_cast<std::size_t>(frames) * out.point_count);
  return out;
}

void put_view_row(const Skeleton& skeleton, std::span<const Transform> world_ws,
                  const std::vector<int>& tip_owners, int frame, ViewPositions& out) {
  Vec3* row = out.positions.data() + static_cast<std::size_t>(frame) * out.point_count;
  const int joints = skeleton.joint_count();
  for (int j = 0; j < joints; ++j) row[j] = world_ws[j].translation;
  for (std::size_t t = 0; t < tip_owners.size(); ++t) {
    const int owner = tip_owners[t];
    row[joints + t] = transform_point(world_ws[owner], skeleton.end_sites[owner].value_or(Vec3(0)));
  }
}

ViewPositions view_positions(const Skeleton& skeleton, const Clip& clip, const ClipSpace& space,
                             const std::vector<int>& tip_owners) {
  ViewPositions out = sized_view_positions(skeleton, clip.frame_count, tip_owners);
  std::vector<Transform> world(static_cast<std::size_t>(skeleton.joint_count()));
  const Transform to_world = space.to_world();
  for (int f = 0; f < clip.frame_count; ++f) {
    forward_kinematics(skeleton, clip.frame(f), to_world, world);
    put_view_row(skeleton, world, tip_owners, f, out);
  }
  return out;
}

namespace {

struct Rect {
  double min_x = std::numeric_limits<double>::infinity(), min_z = min_x;
  double max_x = -min_x, max_z = -min_x;
  void add(const Vec3& p) {
    min_x = std::min(min_x, p.x), max_x = std::max(max_x, p.x);
    min_z = std::min(min_z, p.z), max_z = std::max(max_z, p.z);
  }
};

// A regular grid of ground heights over `r`, two triangles per cell whose four corners all hit
// the ground (counter-clockwise seen from above).
TerrainMesh sampled_grid(const Terrain& terrain, const Rect& r, std::size_t max_triangles) {
  const int cells =
      std::max(1, static_cast<int>(std::sqrt(static_cast<double>(max_triangles) / 2)));
  const int n = cells + 1;
  std::vector<std::array<double, 2>> xz;
  xz.reserve(static_cast<std::size_t>(n) * n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k)
      xz.push_back(
          {r.min_x + (r.max_x - r.min_x) * i / cells, r.min_z + (r.max_z - r.min_z) * k / cells});
  std::vector<GroundHit> hits(xz.size());
  terrain.ground_at(xz, hits);  // one span query: the answers of one query per point
  TerrainMesh mesh;
  std::vector<int> index(xz.size(), -1);
  for (std::size_t v = 0; v < xz.size(); ++v) {
    if (!hits[v].hit) continue;
    index[v] = static_cast<int>(mesh.vertices.size());
    mesh.vertices.emplace_back(xz[v][0], hits[v].height, xz[v][1]);
  }
  auto at = [&](int i, int k) { return index[static_cast<std::size_t>(i) * n + k]; };
  for (int i = 0; i < cells; ++i)
    for (int k = 0; k < cells; ++k) {
      const int a = at(i, k), b = at(i + 1, k), c = at(i + 1, k + 1), d = at(i, k + 1);
      if (a < 0 || b < 0 || c < 0 || d < 0) continue;
      // x right, z towards the viewer: a -> d -> c is counter-clockwise seen from +Y.
      mesh.triangles.push_back({std::uint32_t(a), std::uint32_t(d), std::uint32_t(c)});
      mesh.triangles.push_back({std::uint32_t(a), std::uint32_t(c), std::uint32_t(b)});
    }
  return mesh;
}

}  // namespace

TerrainMesh view_terrain(const Terrain& terrain, const ViewPositions& a, const ViewPositions& b,
                         double margin_m, std::size_t max_triangles) {
  Rect r;
  for (const Vec3& p : a.positions) r.add(p);
  for (const Vec3& p : b.positions) r.add(p);
  if (!(r.min_x <= r.max_x) || !(r.min_z <= r.max_z)) return {};
  r.min_x -= margin_m, r.min_z -= margin_m, r.max_x += margin_m, r.max_z += margin_m;
  terrain.require_held(r.min_x, r.min_z, r.max_x, r.max_z, "the HTML view's terrain");
  TerrainMesh crop = crop_terrain_mesh(terrain.mesh(), r.min_x, r.min_z, r.max_x, r.max_z);
  crop.vertex_normals.clear();
  if (crop.triangles.size() <= max_triangles) return crop;
  return sampled_grid(terrain, r, max_triangles);
}

double knee_angle_deg(const Vec3& hip, const Vec3& knee, const Vec3& ankle) {
  const Vec3 up = safe_normalize(hip - knee, Vec3(0, 1, 0));
  const Vec3 down = safe_normalize(ankle - knee, Vec3(0, -1, 0));
  return std::acos(std::clamp(glm::dot(up, down), -1.0, 1.0)) * 180.0 / kPi;
}

namespace {

// Per frame, the lowest of the foot's points above the ground right below it (empty: no ground
// below any), from one span query for every frame (the same answers as one query per point).
std::vector<std::optional<double>> lowest_above_ground(const Terrain& terrain,
                                                       const ViewPositions& p,
                                                       const ViewFoot& foot) {
  std::vector<int> points;
  for (int point : {foot.ankle, foot.toe, foot.tip})
    if (point >= 0) points.push_back(point);
  const std::size_t per_frame = points.size();
  std::vector<std::array<double, 2>> xz;
  xz.reserve(per_frame * static_cast<std::size_t>(p.frame_count));
  for (int f = 0; f < p.frame_count; ++f)
    for (int point : points) xz.push_back({p.at(f, point).x, p.at(f, point).z});
  std::vector<GroundHit> hits(xz.size());
  terrain.ground_at(xz, hits);
  std::vector<std::optional<double>> out(static_cast<std::size_t>(p.frame_count));
  for (int f = 0; f < p.frame_count; ++f)
    for (std::size_t k = 0; k < per_frame; ++k) {
      const GroundHit& hit = hits[static_cast<std::size_t>(f) * per_frame + k];
      const double above = p.at(f, points[k]).y - hit.height;
      std::optional<double>& lowest = out[static_cast<std::size_t>(f)];
      if (hit.hit && (!lowest || above < *lowest)) lowest = above;
    }
  return out;
}

// Leg `leg`'s lowest foot point above the terrain per frame: the measures' (`measured`, every
// foot point) when given, else the view's ankle, ball and toe tip against the terrain.
std::vector<std::optional<double>> lowest_above(const ReportViewInput& in,
                                                const std::vector<double>* measured,
                                                const ViewPositions& p, const ViewFoot& foot,
                                                int leg) {
  const std::size_t frames = static_cast<std::size_t>(p.frame_count);
  if (!measured || measured->size() != 2 * frames) return lowest_above_ground(*in.terrain, p, foot);
  std::vector<std::optional<double>> out(frames);
  for (std::size_t f = 0; f < frames; ++f) {
    const double h = (*measured)[leg * frames + f];
    if (!std::isnan(h)) out[f] = h;
  }
  return out;
}

double horizontal_distance(const Vec3& a, const Vec3& b) {
  return std::hypot(a.x - b.x, a.z - b.z);
}

// Speed of the slower of ankle and toe on planted frame f, from its planted neighbours.
std::optional<double> pivot_slide(const ViewPositions& p, const std::vector<char>& planted, int f,
                                  const ViewFoot& foot, double fps) {
  if (!planted[f]) return std::nullopt;
  const int prev = f > 0 && planted[f - 1] ? f - 1 : f;
  const int next = f + 1 < p.frame_count && planted[f + 1] ? f + 1 : f;
  if (prev == next) return std::nullopt;
  double slowest = std::numeric_limits<double>::infinity();
  for (int point : {foot.ankle, foot.toe}) {
    if (point < 0) continue;
    const double d = horizontal_distance(p.at(next, point), p.at(prev, point));
    slowest = std::min(slowest, d * fps / (next - prev));
  }
  return slowest;
}

void foot_series(const ReportViewInput& in, const ReportView& view, int leg, FootSeries& out) {
  const Leg& bones = in.rig.legs[leg];
  const ViewFoot& foot = view.feet[leg];
  const int frames = view.after.frame_count;
  const std::vector<char> none(static_cast<std::size_t>(frames), 0);
  const std::vector<char>& planted =
      in.planted[leg] && !in.planted[leg]->empty() ? *in.planted[leg] : none;
  const bool has_targets = in.ankle_target_ws[leg] && !in.ankle_target_ws[leg]->empty();
  out.lowest_before_m = lowest_above(in, in.before_lowest_above_m, view.before, foot, leg);
  out.lowest_after_m = lowest_above(in, in.after_lowest_above_m, view.after, foot, leg);
  for (int f = 0; f < frames; ++f) {
    out.pivot_slide_before_mps.push_back(pivot_slide(view.before, planted, f, foot, view.fps));
    out.pivot_slide_after_mps.push_back(pivot_slide(view.after, planted, f, foot, view.fps));
    for (const ViewPositions* p : {&view.before, &view.after})
      (p == &view.before ? out.knee_before_deg : out.knee_after_deg)
          .push_back(
              knee_angle_deg(p->at(f, bones.hip), p->at(f, bones.knee), p->at(f, bones.ankle)));
    if (has_targets && planted[f])
      out.shortfall_m.push_back(
          glm::length(view.after.at(f, bones.ankle) - (*in.ankle_target_ws[leg])[f]));
    else
      out.shortfall_m.push_back(std::nullopt);
  }
}

// `given` when it holds the clip's frames and `point_count` points, else FK of `clip`.
ViewPositions positions_of(const ReportViewInput& in, const Clip& clip,
                           std::optional<ViewPositions>& given,
                           const std::vector<int>& tip_owners) {
  const int points = in.skeleton->joint_count() + static_cast<int>(tip_owners.size());
  if (given && given->point_count == points &&
      (clip.frame_count == 0 || given->frame_count == clip.frame_count))
    return std::move(*given);
  return view_positions(*in.skeleton, clip, in.space, tip_owners);
}

}  // namespace

std::vector<int> view_tip_owners(const Skeleton& skeleton, const LegRig& rig) {
  std::vector<int> owners;
  for (const Leg& bones : rig.legs)
    if (bones.toe >= 0 && skeleton.end_sites[bones.toe]) owners.push_back(bones.toe);
  return owners;
}

std::vector<int> view_parents(const Skeleton& skeleton, int pelvis) {
  std::vector<int> parents = skeleton.parents;
  for (int j = pelvis; j >= 0 && j < static_cast<int>(parents.size()); j = skeleton.parents[j])
    parents[j] = -1;
  return parents;
}

ReportView build_report_view(ReportViewInput in) {
  const Skeleton& skeleton = *in.skeleton;
  ReportView view;
  view.fps = in.after->fps;
  view.joint_names = skeleton.names;
  view.parents = view_parents(skeleton, in.rig.pelvis);
  view.pelvis = in.rig.pelvis;
  const std::vector<int> tip_owners = view_tip_owners(skeleton, in.rig);
  for (int leg = 0, tip = 0; leg < 2; ++leg) {
    const Leg& bones = in.rig.legs[leg];
    view.feet[leg].ankle = bones.ankle;
    view.feet[leg].toe = bones.toe;
    if (bones.toe >= 0 && skeleton.end_sites[bones.toe]) {
      view.feet[leg].tip = skeleton.joint_count() + tip++;
      view.parents.push_back(bones.toe);
    }
  }
  view.before = positions_of(in, *in.before, in.before_positions, tip_owners);
  view.after = positions_of(in, *in.after, in.after_positions, tip_owners);
  view.terrain = view_terrain(*in.terrain, view.before, view.after, in.terrain_margin_m,
                              in.max_terrain_triangles);
  for (int f = 0; f < view.after.frame_count; ++f)
    view.series.pelvis_change_m.push_back(view.after.at(f, view.pelvis).y -
                                          view.before.at(f, view.pelvis).y);
  for (int leg = 0; leg < 2; ++leg) foot_series(in, view, leg, view.series.feet[leg]);
  if (in.source_skeleton && in.source_clip)
    view.source =
        ViewFigure{in.source_skeleton->names, in.source_skeleton->parents,
                   view_positions(*in.source_skeleton, *in.source_clip, in.source_space, {})};
  return view;
}

}  // namespace ikfix::core
