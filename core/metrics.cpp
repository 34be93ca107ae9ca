#include "core/metrics.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

#include "core/fix/foot_contacts.hpp"
#include "core/fk.hpp"
#include "core/foot_depth_maxima.hpp"
#include "core/metrics_world.hpp"
#include "core/parallel.hpp"
#include "core/terrain_solid.hpp"

namespace ikfix::core {
namespace {

// Mean of jerk_per_frame over the frames that have one, units per second cubed.
double mean_jerk(const std::vector<double>& jerk) {
  const int n = static_cast<int>(jerk.size());
  if (n < 5) return 0;
  double sum = 0;
  for (int f = 2; f + 2 < n; ++f) sum += jerk[f];
  return sum / (n - 4);
}

// Worst::offer for a point named by a literal: the name becomes a string only when taken.
void offer(Worst& worst, double v, int f, int l, const char* point) {
  if (worst.frame < 0 || v > worst.value) worst = Worst{v, f, l, point};
}

// The largest of jerk_per_frame, offered to `worst` with its frame, leg and point.
void offer_max_jerk(const std::vector<double>& jerk, int leg, const char* point, Worst& worst) {
  for (int f = 2; f + 2 < static_cast<int>(jerk.size()); ++f) offer(worst, jerk[f], f, leg, point);
}

}  // namespace

std::vector<double> jerk_per_frame(const std::vector<Vec3>& p, double fps) {
  const int n = static_cast<int>(p.size());
  std::vector<double> jerk(n, 0.0);
  if (n < 5) return jerk;
  for (int f = 2; f + 2 < n; ++f)
    jerk[f] = glm::length((p[f + 2] - 2.0 * p[f + 1] + 2.0 * p[f - 1] - p[f - 2]) *
                          (0.5 * fps * fps * fps));
  return jerk;
}

namespace {

// The frames planted_point_speed differences at frame f of `plant` (a <= f <= b, a < b); false
// when the point has no speed of its own there.
bool planted_point_frames(const std::vector<char>& planted, const Interval& plant, int f, int& a,
                          int& b) {
  if (!planted[f]) return false;
  const bool before = f > plant.first && planted[f - 1];
  const bool after = f < plant.last && planted[f + 1];
  if (!before && !after) return false;
  a = before ? f - 1 : f;
  b = after ? f + 1 : f;
  return true;
}

// Squared horizontal steps (per frame difference of 1 and 2) below which a point's speed is
// certainly below `worst` (with a relative margin of 1e-8, far above the few ulps by which
// hypot and the sum of squares differ); -1 (nothing is below) for a worst near 0 or huge.
struct SlideBound {
  double sq_limit[3] = {-1, -1, -1};
  SlideBound(double worst, double fps) {
    if (!(worst > 1e-100 && worst < 1e100 && fps > 0 && fps < 1e100)) return;
    for (int n = 1; n <= 2; ++n) sq_limit[n] = worst * worst * (n * n) / (fps * fps) * (1 - 1e-8);
  }
};

// plant_slide, or -1 where it is certainly below the bound's worst: a point of the foot
// moving slower than that is found without hypot (a step too small to square without
// underflow is far below any worst the bound allows).
double plant_slide_unless_below(const std::vector<Vec3>& heel, const std::vector<Vec3>& toe,
                                const std::vector<char> (&point_planted)[2], const Interval& plant,
                                int f, double fps, const SlideBound& bound, int& pivot) {
  double slide = -1;
  int slide_pivot = -1;
  for (int p = 0; p < 2; ++p) {
    int a = 0, b = 0;
    if (!planted_point_frames(point_planted[p], plant, f, a, b)) continue;
    const std::vector<Vec3>& point = p == 0 ? heel : toe;
    const Vec3 d = point[b] - point[a];
    if (d.x * d.x + d.z * d.z < bound.sq_limit[b - a]) return -1;
    const double speed = std::hypot(d.x, d.z) * fps / (b - a);
    if (slide < 0 || speed < slide) {
      slide = speed;
      slide_pivot = p;
    }
  }
  if (slide_pivot >= 0) pivot = slide_pivot;
  return slide;
}

}  // namespace

double planted_point_speed(const std::vector<Vec3>& point, const std::vector<char>& planted,
                           const Interval& plant, int f, double fps) {
  // A point slides only while it is itself on the ground: differences are taken between frames
  // where this point is planted inside this plant (central inside, one-sided at the point's
  // first and last frame), so a heel lifting off or a toe touching down is not measured as
  // sliding. A point down for one frame alone has no speed of its own.
  int a = 0, b = 0;
  if (!planted_point_frames(planted, plant, f, a, b)) return -1;
  const Vec3 d = point[b] - point[a];
  return std::hypot(d.x, d.z) * fps / (b - a);
}

double plant_slide(const std::vector<Vec3>& heel, const std::vector<Vec3>& toe,
                   const std::vector<char> (&point_planted)[2], const Interval& plant, int f,
                   double fps, int& pivot) {
  double slide = -1;
  for (int p = 0; p < 2; ++p) {
    const double speed = planted_point_speed(p == 0 ? heel : toe, point_planted[p], plant, f, fps);
    if (speed < 0) continue;
    if (slide < 0 || speed < slide) {
      slide = speed;
      pivot = p;
    }
  }
  return slide;
}

// Both worst-slide searches measure only frames that may beat the worst so far.
double worst_plant_slide(const std::vector<Vec3>& heel, const std::vector<Vec3>& toe,
                         const std::vector<char>& planted,
                         const std::vector<char> (&point_planted)[2], double fps) {
  double worst = 0;
  SlideBound bound(worst, fps);
  int pivot = -1;
  for (const Interval& iv : contact_intervals(planted))
    for (int f = iv.first; f <= iv.last; ++f) {
      const double slide =
          plant_slide_unless_below(heel, toe, point_planted, iv, f, fps, bound, pivot);
      if (slide > worst) bound = SlideBound(worst = slide, fps);
    }
  return worst;
}

PlantSlideAt worst_plant_slide_at(const std::vector<Vec3>& heel, const std::vector<Vec3>& toe,
                                  const std::vector<char>& planted,
                                  const std::vector<char> (&point_planted)[2], double fps) {
  PlantSlideAt worst;
  SlideBound bound(worst.speed, fps);
  for (const Interval& iv : contact_intervals(planted))
    for (int f = iv.first; f <= iv.last; ++f) {
      int point = -1;
      const double slide =
          plant_slide_unless_below(heel, toe, point_planted, iv, f, fps, bound, point);
      if (slide > worst.speed) {
        worst = {slide, f, point};
        bound = SlideBound(slide, fps);
      }
    }
  return worst;
}

namespace {

// Bone lengths against the rest pose. The pelvis and its ancestors carry the root motion (an
// FBX or glTF pelvis hangs under an armature node and moves away from it), so the segments
// ending at them are not bones.
std::vector<MeasuredBone> measured_bones(const MetricsInput& in) {
  const Skeleton& sk = *in.skeleton;
  const int joints = sk.joint_count();
  std::vector<char> carries_root_motion(joints, 0);
  for (int j = in.rig.pelvis; j >= 0; j = sk.parents[j]) carries_root_motion[j] = 1;
  std::vector<Transform> rest_world(joints);
  forward_kinematics(sk, sk.rest, in.space.to_world(), rest_world);
  std::vector<MeasuredBone> bones;
  for (int j = 0; j < joints; ++j) {
    const int p = sk.parents[j];
    if (p < 0 || carries_root_motion[j]) continue;
    const double rest = glm::length(rest_world[j].translation - rest_world[p].translation);
    if (!std::isfinite(rest)) continue;
    bones.push_back({j, p, rest, bone_length_scale_m(rest)});
  }
  return bones;
}

// The joints whose world transforms the measures read (ascending): the pelvis, each leg's
// joints, the joints its foot's points hang from (rigid points and the skin's sole vertices).
std::vector<int> followed_joints(const MetricsInput& in, const FootModel (&feet)[2]) {
  std::vector<char> follow(in.skeleton->joint_count(), 0);
  follow[in.rig.pelvis] = 1;
  for (const Leg& leg : in.rig.legs)
    for (int j : {leg.hip, leg.knee, leg.ankle, leg.toe})
      if (j >= 0) follow[j] = 1;
  for (const FootModel& foot : feet) {
    for (const RigidFootPoint& p : foot.points) follow[p.joint] = 1;
    for (int v : foot.sole_vertices)
      for (int i = 0; i < 4; ++i)
        if (in.skin->vertices[v].joint[i] >= 0) follow[in.skin->vertices[v].joint[i]] = 1;
  }
  std::vector<int> joints;
  for (int j = 0; j < static_cast<int>(follow.size()); ++j)
    if (follow[j]) joints.push_back(j);
  return joints;
}

// Bone lengths against the rest pose (measured_bones): the worst change, bone by bone, frame by
// frame, as Worst::offer takes it (the first offer, then only a larger value), the joint's name
// made a string once.
void measure_bone_lengths(const MetricsInput& in, std::span<const MeasuredBone> bones,
                          const ClipWorld& w, ClipMetrics& m) {
  const std::size_t frames = static_cast<std::size_t>(in.clip->frame_count);
  double worst = 0;
  std::size_t worst_at = 0;  // bone * frames + frame
  bool offered = false;
  for (std::size_t k = 0; k < bones.size() * frames; ++k)
    if (!offered || w.bone_change[k] > worst) {
      worst = w.bone_change[k];
      worst_at = k;
      offered = true;
    }
  if (offered)
    m.bone_length_change.offer(worst, static_cast<int>(worst_at % frames), -1,
                               in.skeleton->names[bones[worst_at / frames].joint]);
}

// Contact thresholds scaled from the reference leg length to the clip's longest leg (at frame 0).
ContactSettings scaled_contact_settings(const MetricsInput& in, const ClipWorld& w) {
  double leg_length = 0;
  for (const Leg& leg : in.rig.legs)
    leg_length = std::max(leg_length, glm::length(w.at(0, leg.knee) - w.at(0, leg.hip)) +
                                          glm::length(w.at(0, leg.ankle) - w.at(0, leg.knee)));
  const double scale = leg_length / in.reference_leg_length;
  ContactSettings cs = in.contacts;
  cs.height_threshold *= scale;
  cs.speed_threshold *= scale;
  return cs;
}

// Running sums of the clip-wide means.
struct PlantSums {
  double slide = 0, float_m = 0, ground_gap_m = 0;
  int slide_count = 0, plant_count = 0;
};

// The mean over a plant's frames of the foot's lowest point above the terrain (`lowest_above`
// per frame, NaN without ground; a point inside the terrain counts as 0): how high a viewer sees
// the planted foot stand off the ground. 0 when no frame has ground.
double plant_ground_gap(std::span<const double> lowest_above, const Interval& iv) {
  double sum = 0;
  int count = 0;
  for (int f = iv.first; f <= iv.last; ++f) {
    if (std::isnan(lowest_above[f])) continue;
    sum += std::max(0.0, lowest_above[f]);
    ++count;
  }
  return count ? sum / count : 0.0;
}

// One plant `iv` of leg l: penetration, slide of the foot's pivot, mean float height.
PlantMetrics measure_plant(const std::vector<Vec3> (&pts)[2], const FootContacts& contacts,
                           const Interval& iv, int l, double fps, LegMetrics& lm, ClipMetrics& m,
                           PlantSums& sums) {
  const auto& above = contacts.above;
  PlantMetrics pm;
  pm.first = iv.first;
  pm.last = iv.last;
  int count = 0;
  double fl = 0;
  for (int f = iv.first; f <= iv.last; ++f) {
    ++lm.frames_in_contact;
    fl += std::min(contacts.height[0][f], contacts.height[1][f]);
    for (int p = 0; p < 2; ++p) {
      pm.max_penetration_m = std::max(pm.max_penetration_m, -above[p][f]);
      offer(m.planted_penetration, std::max(0.0, -above[p][f]), f, l, p == 0 ? "ankle" : "toe");
    }
    // Sliding is the speed of the foot's pivot: of the points on the ground, the one that
    // moves least (a foot rolling over its toe slides only if the toe moves).
    int pivot = -1;
    const double slide = plant_slide(pts[0], pts[1], contacts.point_planted, iv, f, fps, pivot);
    if (pivot >= 0) {
      pm.mean_slide_mps += slide;
      pm.max_slide_mps = std::max(pm.max_slide_mps, slide);
      offer(m.slide, slide, f, l, pivot == 0 ? "ankle" : "toe");
      sums.slide += slide;
      ++sums.slide_count;
      ++count;
    }
  }
  pm.max_penetration_m = std::max(0.0, pm.max_penetration_m);
  if (count) pm.mean_slide_mps /= count;
  pm.mean_float_m = fl / (iv.last - iv.first + 1);
  m.float_height.offer(pm.mean_float_m, (iv.first + iv.last) / 2, l, "foot");
  sums.float_m += pm.mean_float_m;
  ++sums.plant_count;
  return pm;
}

// Each DeepestPoint of leg l into the clip's worst, the point named.
void offer_deepest(const FootModel& foot, int l, const DeepestPoint& deepest, Worst& worst) {
  if (deepest.frame >= 0)
    worst.offer(deepest.depth_m, deepest.frame, l, foot_point_name(foot.kind(deepest.point)));
}

// World positions of every point of `foot` on every frame, point-major (point i of frame f at
// i * frames + f: a planted point's frames are consecutive, so the terrain queries see runs of
// equal points), in pose_foot_points' order and arithmetic: the rigid points posed straight
// from the ClipWorld's transforms, the sole vertices from a frame's copy of the joints they
// hang from.
std::vector<Vec3> posed_foot_points(const MetricsInput& in, const ClipWorld& w,
                                    const FootModel& foot) {
  const std::size_t frames = static_cast<std::size_t>(in.clip->frame_count);
  const std::size_t rigid = foot.points.size();
  std::vector<Vec3> out(static_cast<std::size_t>(foot.point_count()) * frames);
  for (std::size_t i = 0; i < rigid; ++i) {
    const RigidFootPoint& p = foot.points[i];
    for (std::size_t f = 0; f < frames; ++f)
      out[i * frames + f] = pose_rigid_point(p, w.transform(static_cast<int>(f), p.joint));
  }
  if (foot.sole_vertices.empty()) return out;
  // The joints the sole vertices hang from (kept by the ClipWorld): only theirs are read.
  std::vector<int> hung_from;
  for (int v : foot.sole_vertices)
    for (int i = 0; i < 4; ++i)
      if (in.skin->vertices[v].joint[i] >= 0) hung_from.push_back(in.skin->vertices[v].joint[i]);
  std::sort(hung_from.begin(), hung_from.end());
  hung_from.erase(std::unique(hung_from.begin(), hung_from.end()), hung_from.end());
  // A frame's world transforms, of those joints only.
  std::vector<Transform> frame_world(in.skeleton->joint_count());
  for (std::size_t f = 0; f < frames; ++f) {
    for (int j : hung_from) frame_world[j] = w.transform(static_cast<int>(f), j);
    std::size_t i = rigid;
    for (int v : foot.sole_vertices)
      out[i++ * frames + f] = skinned_position(in.skin->vertices[v], frame_world);
  }
  return out;
}

// Per frame, the height of the foot's lowest point (of `points`, point-major, with ground under
// it) above the terrain; NaN on a frame where no point has ground under it.
std::vector<double> lowest_above(std::span<const Vec3> points, std::span<const GroundHit> ground,
                                 int frames) {
  std::vector<double> out(frames, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t k = 0; k < points.size(); ++k) {
    if (!ground[k].hit) continue;
    const double above = points[k].y - ground[k].height;
    double& lowest = out[k % frames];
    if (std::isnan(lowest) || above < lowest) lowest = above;
  }
  return out;
}

// What measure_leg computes per leg before it offers anything to the clip's metrics: the parts
// that query the terrain, computed for both legs at once (each reads shared inputs only).
struct LegQueries {
  std::vector<Vec3> pts[2];  // ankle, toe joint: world positions per frame
  FootContacts contacts;
  FootModel foot;
  FootDepthMaxima deepest;           // every FootModel point against the terrain solid
  std::vector<double> lowest_above;  // per frame (see the function of that name)
};

// The ankle's and toe joint's world positions on every frame (the toe: the toe joint, else the
// ankle's end site, else the ankle).
void ankle_and_toe(const MetricsInput& in, const ClipWorld& w, int l, std::vector<Vec3> (&pts)[2]) {
  const Leg& leg = in.rig.legs[l];
  const auto& end_site = in.skeleton->end_sites[leg.ankle];
  for (int f = 0; f < in.clip->frame_count; ++f) {
    const Transform& a = w.transform(f, leg.ankle);
    pts[0].push_back(a.translation);
    pts[1].push_back(leg.toe >= 0 ? w.at(f, leg.toe)
                     : end_site   ? transform_point(a, *end_site)
                                  : a.translation);
  }
}

// The ground under `track` (a position per frame): that of the foot point whose every position
// has the same x and z (point-major `points` and their `ground`; the ankle and the ball are
// foot points), else queried.
std::vector<GroundHit> ground_of_track(const Terrain& terrain, const std::vector<Vec3>& track,
                                       std::span<const Vec3> points,
                                       std::span<const GroundHit> ground, int frames) {
  const auto same_xz = [&](std::size_t first) {
    for (int f = 0; f < frames; ++f)
      if (points[first + f].x != track[f].x || points[first + f].z != track[f].z) return false;
    return true;
  };
  for (std::size_t first = 0; first + frames <= points.size(); first += frames)
    if (same_xz(first)) return {ground.begin() + first, ground.begin() + first + frames};
  std::vector<std::array<double, 2>> xz(frames);
  for (int f = 0; f < frames; ++f) xz[f] = {track[f].x, track[f].z};
  std::vector<GroundHit> hits(frames);
  terrain.ground_at(xz, hits);
  return hits;
}

// Every point of leg l's foot (FootModel) against the terrain solid on every frame: the deepest
// by nearest-surface and by vertical depth, any frame and planted frames, and each plant's
// deepest. Writes leg l's part of MetricsInput::lowest_above_out.
LegQueries query_leg(const MetricsInput& in, const ClipWorld& w, const ContactSettings& cs,
                     const FootModel& foot, int l) {
  const int frames = in.clip->frame_count;
  LegQueries q;
  ankle_and_toe(in, w, l, q.pts);
  q.foot = foot;
  const std::vector<Vec3> points = posed_foot_points(in, w, q.foot);
  std::vector<std::array<double, 2>> xz(points.size());
  for (std::size_t k = 0; k < points.size(); ++k) xz[k] = {points[k].x, points[k].z};
  std::vector<GroundHit> ground(points.size());
  in.terrain->ground_at(xz, ground);
  const std::vector<GroundHit> track_ground[2] = {
      ground_of_track(*in.terrain, q.pts[0], points, ground, frames),
      ground_of_track(*in.terrain, q.pts[1], points, ground, frames)};
  q.contacts = foot_contacts_on_ground(q.pts[0], q.pts[1], track_ground[0], track_ground[1],
                                       in.clip->fps, cs);
  std::vector<SolidDepth> vertical(points.size());
  solid_depth_vertical(points, ground, vertical);
  q.lowest_above = lowest_above(points, ground, frames);
  if (in.lowest_above_out)
    std::copy(q.lowest_above.begin(), q.lowest_above.end(),
              in.lowest_above_out->begin() + static_cast<std::ptrdiff_t>(l) * frames);
  q.deepest = foot_depth_maxima(*in.terrain, points, vertical, frames, q.contacts.planted,
                                contact_intervals(q.contacts.planted));
  return q;
}

// Leg l's foot points inside the terrain solid (query_leg) into its plants (already measured,
// one per contact interval) and the clip's worst.
void offer_foot_penetration(const FootModel& foot, const FootDepthMaxima& deepest, int l,
                            LegMetrics& lm, ClipMetrics& m) {
  lm.toe_tip = foot.tip_source;
  lm.toe_length_m = foot.toe_length_m;
  lm.sole_vertices = static_cast<int>(foot.sole_vertices.size());
  offer_deepest(foot, l, deepest.nearest, m.foot_penetration.nearest);
  offer_deepest(foot, l, deepest.vertical, m.foot_penetration.vertical);
  offer_deepest(foot, l, deepest.planted_nearest, m.foot_penetration.planted_nearest);
  offer_deepest(foot, l, deepest.planted_vertical, m.foot_penetration.planted_vertical);
  for (std::size_t p = 0; p < lm.plants.size(); ++p)
    lm.plants[p].max_foot_penetration_m =
        std::max(lm.plants[p].max_foot_penetration_m, deepest.plant_nearest_m[p]);
}

// Knee angle (interior, pi = straight), its range and its violations of the minimum.
void measure_knee(const MetricsInput& in, const ClipWorld& w, int l, LegMetrics& lm,
                  ClipMetrics& m) {
  const Leg& leg = in.rig.legs[l];
  lm.knee_angle_min_rad = kPi;
  lm.knee_angle_max_rad = 0;
  for (int f = 0; f < in.clip->frame_count; ++f) {
    const Vec3 a = safe_normalize(w.at(f, leg.hip) - w.at(f, leg.knee), Vec3(0, 1, 0));
    const Vec3 b = safe_normalize(w.at(f, leg.ankle) - w.at(f, leg.knee), Vec3(0, -1, 0));
    const double angle = angle_between(a, b);
    lm.knee_angle_min_rad = std::min(lm.knee_angle_min_rad, angle);
    lm.knee_angle_max_rad = std::max(lm.knee_angle_max_rad, angle);
    offer(m.knee_limit_violation, std::max(0.0, in.min_knee_angle - angle), f, l, "knee");
  }
}

// Angular speed (rad/s) of the leg's local rotations. Only the worst is kept, so a frame whose
// speed cannot exceed it is not measured: rotation_angle is 2 atan2(v, |w|) <= 2 v / |w| (atan x
// <= x), and that bound, widened far beyond the last bits' rounding, at or below the worst
// means the offer would not take the frame.
void measure_rotation_speed(const MetricsInput& in, int l, ClipMetrics& m) {
  const Leg& leg = in.rig.legs[l];
  const Clip& clip = *in.clip;
  Worst& worst = m.rotation_speed;
  for (int j : {leg.hip, leg.knee, leg.ankle})
    for (int f = 1; f < clip.frame_count; ++f) {
      const Quat d = glm::inverse(clip.at(f - 1, j).rotation) * clip.at(f, j).rotation;
      const double bound =
          2.0 * std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z) / std::abs(d.w) * clip.fps * 1.000001;
      if (worst.frame >= 0 && bound <= worst.value) continue;
      worst.offer(rotation_angle(d) * clip.fps, f, l, in.skeleton->names[j]);
    }
}

// Every measure of leg l, from its queries, offered in a fixed order (leg 0 first) so that the
// clip's worst and sums do not depend on threads. Contacts as the fix also sees its own output:
// heights above the terrain, each point relative to its own planted level.
void measure_leg(const MetricsInput& in, const ClipWorld& w, const LegQueries& q, int l,
                 ClipMetrics& m, PlantSums& sums) {
  const int frames = in.clip->frame_count;
  const double fps = in.clip->fps;
  LegMetrics& lm = m.legs[l];
  lm.side = kLegSideNames[l];
  for (int p = 0; p < 2; ++p)
    for (int f = 0; f < frames; ++f)
      offer(m.penetration, std::max(0.0, -q.contacts.above[p][f]), f, l, p == 0 ? "ankle" : "toe");
  for (const Interval& iv : contact_intervals(q.contacts.planted)) {
    lm.plants.push_back(measure_plant(q.pts, q.contacts, iv, l, fps, lm, m, sums));
    PlantMetrics& pm = lm.plants.back();
    pm.ground_gap_m = plant_ground_gap(q.lowest_above, iv);
    m.ground_gap.offer(pm.ground_gap_m, (iv.first + iv.last) / 2, l, "foot");
    sums.ground_gap_m += pm.ground_gap_m;
  }
  offer_foot_penetration(q.foot, q.deepest, l, lm, m);
  measure_knee(in, w, l, lm, m);
  const std::vector<double> jerk = jerk_per_frame(q.pts[0], fps);
  lm.foot_jerk_mean = mean_jerk(jerk);
  m.foot_jerk_mean += 0.5 * lm.foot_jerk_mean;
  offer_max_jerk(jerk, l, "ankle", lm.foot_jerk_max);
  offer_max_jerk(jerk, l, "ankle", m.foot_jerk_max);
  measure_rotation_speed(in, l, m);
}

// std::logic_error unless every joint of MetricsInput::rotation_not_read is a leaf outside
// `kept` (the joints whose world transforms the measures read) and no visitor reads every
// joint's world rotation.
void check_rotations_not_read(const MetricsInput& in, std::span<const int> kept) {
  const std::span<const char> flags = in.rotation_not_read;
  if (flags.empty()) return;
  const Skeleton& sk = *in.skeleton;
  if (flags.size() != static_cast<std::size_t>(sk.joint_count()))
    throw std::logic_error("measure_clip: rotation_not_read has " + std::to_string(flags.size()) +
                           " flags for " + std::to_string(sk.joint_count()) + " joints");
  for (int j = 0; j < sk.joint_count(); ++j)
    if (sk.parents[j] >= 0 && flags[sk.parents[j]])
      throw std::logic_error("measure_clip: joint '" + sk.names[sk.parents[j]] +
                             "' has a child but its rotation was not read");
  for (int j : kept)
    if (flags[j])
      throw std::logic_error("measure_clip: joint '" + sk.names[j] +
                             "' is measured but its rotation was not read");
  if (in.with_world && std::any_of(flags.begin(), flags.end(), [](char f) { return f != 0; }))
    throw std::logic_error("measure_clip: with_world, but some rotations were not read");
}

}  // namespace

ClipMetrics measure_clip(const MetricsInput& in) {
  const Clip& clip = *in.clip;
  ClipMetrics m;
  m.frames = clip.frame_count;
  m.fps = clip.fps;
  if (clip.frame_count == 0) return m;
  m.non_finite = count_non_finite(clip, in.rotation_not_read);
  const FootModel feet[2] = {
      build_foot_model(*in.skeleton, in.rig.legs[0], in.space.to_world(), in.skin),
      build_foot_model(*in.skeleton, in.rig.legs[1], in.space.to_world(), in.skin)};
  const std::vector<MeasuredBone> bones = measured_bones(in);
  const std::vector<int> kept = followed_joints(in, feet);
  check_rotations_not_read(in, kept);
  ClipWorld w(*in.skeleton, clip, in.space.to_world(), kept, bones, in.with_world, in.runner);
  measure_bone_lengths(in, bones, w, m);
  const ContactSettings cs = scaled_contact_settings(in, w);
  std::vector<Vec3> pelvis(clip.frame_count);
  for (int f = 0; f < clip.frame_count; ++f) pelvis[f] = w.at(f, in.rig.pelvis);
  const std::vector<double> pelvis_jerk = jerk_per_frame(pelvis, clip.fps);
  m.pelvis_jerk_mean = mean_jerk(pelvis_jerk);
  offer_max_jerk(pelvis_jerk, -1, "pelvis", m.pelvis_jerk_max);
  PlantSums sums;
  if (in.lowest_above_out)
    in.lowest_above_out->assign(2 * static_cast<std::size_t>(in.clip->frame_count),
                                std::numeric_limits<double>::quiet_NaN());
  LegQueries queries[2];
  parallel_ranges(in.runner, 2, 1, [&](int begin, int end) {
    for (int l = begin; l < end; ++l) queries[l] = query_leg(in, w, cs, feet[l], l);
  });
  for (int l = 0; l < 2; ++l) measure_leg(in, w, queries[l], l, m, sums);
  m.mean_slide_mps = sums.slide_count ? sums.slide / sums.slide_count : 0.0;
  m.mean_float_m = sums.plant_count ? sums.float_m / sums.plant_count : 0.0;
  m.mean_ground_gap_m = sums.plant_count ? sums.ground_gap_m / sums.plant_count : 0.0;
  return m;
}

}  // namespace ikfix::core
