#include "core/retarget/retarget_pipeline.hpp"

#include <algorithm>
#include <memory>

#include "core/fix/foot_contacts.hpp"
#include "core/fix/footfix.hpp"
#include "core/fk.hpp"
#include "core/metrics.hpp"
#include "core/terrain_gen.hpp"

namespace ikfix::core {
namespace {

// Flat ground at y = 0 (the contact detector and the foot stage need a surface to stand on).
std::unique_ptr<Terrain> flat_ground() {
  FlatParams params;
  params.size = 400.0;
  return std::make_unique<Terrain>(make_flat_terrain(params));
}

// Contacts as `check` sees them on a finished clip, as per-frame flags.
void detected_contacts(const Skeleton& sk, const Clip& clip, const ClipSpace& space,
                       const LegRig& legs, const Terrain& terrain, const FixSettings& fix,
                       std::vector<char> (&out)[2]) {
  MetricsInput mi;
  mi.skeleton = &sk;
  mi.clip = &clip;
  mi.space = space;
  mi.rig = legs;
  mi.terrain = &terrain;
  mi.contacts = fix.contacts;
  mi.reference_leg_length = fix.reference_leg_length;
  mi.min_knee_angle = fix.min_knee_angle;
  const ClipMetrics m = measure_clip(mi);
  for (int l = 0; l < 2; ++l) {
    out[l].assign(clip.frame_count, 0);
    for (const PlantMetrics& p : m.legs[l].plants)
      for (int f = p.first; f <= p.last && f < clip.frame_count; ++f) out[l][f] = 1;
  }
}

// Heel (ankle) and toe of each leg per frame, world metres, as the metrics take them.
void foot_points(const Skeleton& sk, const Clip& clip, const ClipSpace& space, const LegRig& legs,
                 std::vector<Vec3> (&out)[2][2], double& leg_length) {
  std::vector<Transform> world(sk.joint_count());
  leg_length = 0;
  for (int f = 0; f < clip.frame_count; ++f) {
    forward_kinematics(sk, clip.frame(f), space.to_world(), world);
    for (int l = 0; l < 2; ++l) {
      const Leg& leg = legs.legs[l];
      const Transform& a = world[leg.ankle];
      if (f == 0)
        leg_length = std::max(
            leg_length, glm::length(world[leg.knee].translation - world[leg.hip].translation) +
                            glm::length(a.translation - world[leg.knee].translation));
      const auto& end_site = sk.end_sites[leg.ankle];
      out[l][0].push_back(a.translation);
      out[l][1].push_back(leg.toe >= 0 ? world[leg.toe].translation
                          : end_site   ? transform_point(a, *end_site)
                                       : a.translation);
    }
  }
}

// The source's contacts, by the detector the foot fix uses (on the source, on flat ground: the
// source was recorded there).
void detect_source_contacts(const RetargetPipelineInput& in, const Terrain* ground,
                            std::vector<char> (&contacts)[2]) {
  const RetargetInput& t = in.transfer;
  const std::unique_ptr<Terrain> source_floor = in.terrain ? flat_ground() : nullptr;
  FixInput probe;
  probe.skeleton = t.source;
  probe.clip = t.source_clip;
  probe.space = t.source_space;
  probe.rig = t.source_legs;
  probe.terrain = source_floor ? source_floor.get() : ground;
  probe.settings = in.fix;
  probe.settings.contacts_override.reset();
  probe.settings.retime_to_touchdowns = false;
  const FixResult r = fix_clip(probe);
  for (int l = 0; l < 2; ++l) contacts[l] = r.planted[l];
}

// What measure_retarget compares, without the target clip and its contacts.
RetargetMeasureInput measure_input(const RetargetPipelineInput& in,
                                   const RetargetPipelineResult& out) {
  const RetargetInput& t = in.transfer;
  RetargetMeasureInput mi;
  mi.source = t.source;
  mi.source_clip = t.source_clip;
  mi.source_space = t.source_space;
  mi.target = t.target;
  mi.target_space = t.target_space;
  mi.map = t.map;
  mi.chains = limb_chains(*t.map, t.source_legs, t.target_legs);
  mi.target_legs = t.target_legs;
  mi.source_contacts = out.source_contacts;
  mi.terrain = in.terrain;
  return mi;
}

// The retarget quality of `target_clip`, with the contacts detected on it.
RetargetQuality quality_of(RetargetMeasureInput mi, const RetargetPipelineInput& in,
                           const Clip& target_clip, const Terrain& ground) {
  const RetargetInput& t = in.transfer;
  std::vector<char> target_contacts[2];
  detected_contacts(*t.target, target_clip, t.target_space, t.target_legs, ground, in.fix,
                    target_contacts);
  mi.target_clip = &target_clip;
  mi.target_contacts = target_contacts;
  return measure_retarget(mi);
}

// Clearance of one leg's swings: the source's lower foot point above the line joining its
// heights at the plant edges around each swing (the target's planted foot is held exactly on
// its level, the source's was only near it, so the clearance starts and ends at 0 and the swing
// joins its plants smoothly), times `ratio`.
std::vector<double> swing_clearance_of(const std::vector<double>& lower,
                                       const std::vector<char>& planted, double ratio) {
  const int n = static_cast<int>(lower.size());
  std::vector<double> clearance(n, 0.0);
  for (int f = 0; f < n && static_cast<int>(planted.size()) == n;) {
    if (planted[f]) {
      ++f;
      continue;
    }
    int g = f;
    while (g < n && !planted[g]) ++g;  // swing [f, g)
    const double from = f > 0 ? lower[f - 1] : (g < n ? lower[g] : 0.0);
    const double to = g < n ? lower[g] : from;
    for (int k = f; k < g; ++k) {
      const double u = static_cast<double>(k - f + 1) / (g - f + 1);
      clearance[k] = ratio * std::max(0.0, lower[k] - (from + (to - from) * u));
    }
    f = g;
  }
  return clearance;
}

// The source's swing heights (lower of heel and toe above its planted level), scaled by the
// leg-length ratio: a target whose toe would sink below the floor as the heel rises must still
// lift its foot when the source does, or check sees it planted after the source's lift-off (and
// before its touchdown).
std::array<std::vector<double>, 2> swing_clearance(const RetargetPipelineInput& in,
                                                   const RetargetPipelineResult& out) {
  const RetargetInput& t = in.transfer;
  std::vector<Vec3> source_points[2][2], target_points[2][2];
  double source_leg = 0, target_leg = 0;
  foot_points(*t.source, *t.source_clip, t.source_space, t.source_legs, source_points, source_leg);
  foot_points(*t.target, out.transfer.clip, t.target_space, t.target_legs, target_points,
              target_leg);
  const std::unique_ptr<Terrain> source_floor = flat_ground();
  ContactSettings cs = in.fix.contacts;
  const double source_scale = source_leg / in.fix.reference_leg_length;
  cs.height_threshold *= source_scale;
  cs.speed_threshold *= source_scale;
  const double ratio = source_leg > 0 ? target_leg / source_leg : 1.0;
  std::array<std::vector<double>, 2> clearance;
  for (int l = 0; l < 2; ++l) {
    const FootContacts c = detect_foot_contacts(*source_floor, source_points[l][0],
                                                source_points[l][1], t.source_clip->fps, cs);
    const int n = static_cast<int>(c.height[0].size());
    std::vector<double> lower(n);
    for (int f = 0; f < n; ++f) lower[f] = std::min(c.height[0][f], c.height[1][f]);
    clearance[l] = swing_clearance_of(lower, out.source_contacts[l], ratio);
  }
  return clearance;
}

// The foot stage on the target, driven by the source's contacts and swing heights.
void fix_target_feet(const RetargetPipelineInput& in, const Terrain* ground,
                     RetargetPipelineResult& out) {
  const RetargetInput& t = in.transfer;
  FixInput fi;
  fi.skeleton = t.target;
  fi.clip = &out.transfer.clip;
  fi.space = t.target_space;
  fi.rig = t.target_legs;
  fi.terrain = ground;
  fi.settings = in.fix;
  fi.settings.contacts_override =
      std::array<std::vector<char>, 2>{out.source_contacts[0], out.source_contacts[1]};
  fi.settings.given_plants_on_ground = true;
  // The ground shift stood a rest-on-ground target's feet on y = 0 (retarget.hpp): that is its
  // floor. Estimated from the motion instead, the floor would follow the feet's lowest frames
  // (a long toe dipping in a swing) and lift every plant off the terrain.
  const bool rest_floor = out.transfer.target_rest_on_ground && !fi.settings.floor_height;
  if (rest_floor) fi.settings.floor_height = 0.0;
  std::array<std::vector<double>, 2> clearance = swing_clearance(in, out);
  if (static_cast<int>(clearance[0].size()) == out.transfer.clip.frame_count)
    fi.settings.swing_clearance = clearance;
  FixResult fixed = fix_clip(fi);
  out.clip = std::move(fixed.clip);
  for (int j = 0; j < static_cast<int>(out.animated.size()); ++j)
    out.animated[j] = out.animated[j] || fixed.changed_joints[j];
  out.diagnostics = std::move(fixed.diagnostics);
  if (rest_floor) out.diagnostics.floor_method = "target rest";
  out.feet_fixed = true;
}

}  // namespace

RetargetPipelineResult retarget_and_fix(const RetargetPipelineInput& in) {
  RetargetPipelineResult out;
  std::unique_ptr<Terrain> flat;
  const Terrain* ground = in.terrain;
  if (!ground) ground = (flat = flat_ground()).get();
  detect_source_contacts(in, ground, out.source_contacts);
  out.transfer = retarget_clip(in.transfer, out.source_contacts);
  out.clip = out.transfer.clip;
  out.animated = out.transfer.animated;
  const RetargetMeasureInput mi = measure_input(in, out);
  out.transfer_quality = quality_of(mi, in, out.transfer.clip, *ground);
  if (in.fix_feet) fix_target_feet(in, ground, out);
  out.quality = quality_of(mi, in, out.clip, *ground);
  return out;
}

}  // namespace ikfix::core
