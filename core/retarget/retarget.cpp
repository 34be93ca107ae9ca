#include "core/retarget/retarget.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/fk.hpp"
#include "core/retarget/limb_reach.hpp"
#include "core/retarget/rest_alignment.hpp"

namespace ikfix::core {
namespace {

std::vector<Transform> rest_world(const Skeleton& sk, const ClipSpace& space) {
  std::vector<Transform> world(sk.joint_count());
  forward_kinematics(sk, sk.rest, space.to_world(), world);
  return world;
}

Transform inverse(const Transform& t) {
  Transform inv;
  inv.rotation = glm::inverse(t.rotation);
  inv.scale = 1.0 / t.scale;
  inv.translation = -(inv.scale * (inv.rotation * t.translation));
  return inv;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

// Lowest foot point (ankle, toe joint, toe or ankle end site) of one leg, world Y.
double lowest_foot_point(const Skeleton& sk, const Leg& leg, std::span<const Transform> world) {
  double y = world[leg.ankle].translation.y;
  const int tip = leg.toe >= 0 ? leg.toe : leg.ankle;
  y = std::min(y, world[tip].translation.y);
  if (sk.end_sites[tip]) y = std::min(y, transform_point(world[tip], *sk.end_sites[tip]).y);
  return y;
}

// Median over contact frames (any frame when there are no contacts) of the lowest planted foot
// point: the level the character's feet meet the ground at.
double contact_level(const Skeleton& sk, const LegRig& legs, const ClipSpace& space,
                     const Clip& clip, const std::vector<char> (&contacts)[2]) {
  std::vector<int> wanted;
  for (const Leg& leg : legs.legs) {
    wanted.push_back(leg.ankle);
    if (leg.toe >= 0) wanted.push_back(leg.toe);
  }
  std::vector<Transform> world(sk.joint_count());
  std::vector<double> levels, any;
  const Transform to_world = space.to_world();
  for (int f = 0; f < clip.frame_count; ++f) {
    forward_kinematics(sk, clip.frame(f), to_world, world);
    double lowest_any = 1e300;
    for (int l = 0; l < 2; ++l) {
      const double y = lowest_foot_point(sk, legs.legs[l], world);
      lowest_any = std::min(lowest_any, y);
      if (static_cast<int>(contacts[l].size()) == clip.frame_count && contacts[l][f])
        levels.push_back(y);
    }
    any.push_back(lowest_any);
  }
  if (!levels.empty()) return median(std::move(levels));
  // No contacts: the feet touch the ground on the lowest tenth of frames.
  std::sort(any.begin(), any.end());
  return any[any.size() / 20];
}

}  // namespace

double rest_leg_length(const Skeleton& skeleton, const ClipSpace& space, const LegRig& legs) {
  const auto world = rest_world(skeleton, space);
  double longest = 0;
  for (const Leg& leg : legs.legs) {
    if (leg.hip < 0 || leg.knee < 0 || leg.ankle < 0) continue;
    longest = std::max(longest,
                       glm::length(world[leg.knee].translation - world[leg.hip].translation) +
                           glm::length(world[leg.ankle].translation - world[leg.knee].translation));
  }
  return longest;
}

RetargetResult retarget_clip(const RetargetInput& in,
                             const std::vector<char> (&source_contacts)[2]) {
  const Skeleton& src = *in.source;
  const Skeleton& tgt = *in.target;
  const Clip& sclip = *in.source_clip;
  const BoneMap& map = *in.map;
  RetargetResult result;

  // The hips pair carries the root motion.
  int hips_pair = map.pair_with_role("hips");
  if (hips_pair < 0)
    for (int p = 0; p < static_cast<int>(map.pairs.size()); ++p)
      if (map.pairs[p].source == in.source_legs.pelvis && !map.pairs[p].target_end_site)
        hips_pair = p;
  if (hips_pair < 0) throw std::invalid_argument("the bone map has no hips pair");

  result.source_leg_length_m = rest_leg_length(src, in.source_space, in.source_legs);
  result.target_leg_length_m = rest_leg_length(tgt, in.target_space, in.target_legs);
  if (!(result.source_leg_length_m > 0) || !(result.target_leg_length_m > 0))
    throw std::invalid_argument("cannot measure the legs of both skeletons");
  if (in.settings.scale) {
    result.scale = *in.settings.scale;
    result.scale_method = "user";
  } else {
    result.scale = result.target_leg_length_m / result.source_leg_length_m;
    result.scale_method = "leg length";
  }

  const auto src_rest = rest_world(src, in.source_space);
  const auto tgt_rest = rest_world(tgt, in.target_space);
  const RestAlignment align = align_rest_poses(map, src, src_rest, in.source_legs, tgt, tgt_rest,
                                               in.target_legs, in.settings.align_rest);
  result.facing_angle_rad = rotation_angle(align.facing);
  result.alignment = align.bones;

  // Target joint -> the world rotation recipe: D(source joint) * A * G * rest, or an in-between
  // blend for target joints inside a chain whose neighbours are mapped, or the local rest pose.
  const int tn = tgt.joint_count();
  const int frames = sclip.frame_count;
  const TargetDrive drive = plan_target_drive(map, src, tgt, tgt_rest);

  const Transform s_to_world = in.source_space.to_world();
  const Transform t_to_world = in.target_space.to_world();
  const int s_hips = map.pairs[hips_pair].source;
  const int t_hips = map.pairs[hips_pair].target;

  result.clip.fps = sclip.fps;
  result.clip.frame_count = frames;
  result.clip.joint_count = tn;
  result.clip.locals.resize(static_cast<std::size_t>(frames) * tn);
  // Every joint but the excluded controls is written: an unmapped joint holds its rest pose in
  // the new take, whatever pose the character file was saved in (a Maya file saved mid-stride
  // would otherwise show that pose on the fingers).
  result.animated.assign(tn, 1);
  for (int t : map.excluded_target) result.animated[t] = 0;
  // Ancestors of written joints are written too (at rest), so a control above the hips
  // (Kenney's HipsCtrl) stands where the transfer assumed it does.
  for (int t = tn - 1; t >= 0; --t)
    if (result.animated[t] && tgt.parents[t] >= 0) result.animated[tgt.parents[t]] = 1;

  const std::vector<ArmChain> arms = arm_chains(map, src_rest, tgt, tgt_rest);
  std::vector<Transform> sworld(src.joint_count()), tworld(tn);
  std::vector<Quat> delta(src.joint_count());
  Vec3 hips_start{0.0};
  std::vector<Transform> hips_parent_world(frames);  // for the ground shift below
  for (int f = 0; f < frames; ++f) {
    forward_kinematics(src, sclip.frame(f), s_to_world, sworld);
    for (int s = 0; s < src.joint_count(); ++s)
      delta[s] = glm::normalize(sworld[s].rotation * glm::inverse(src_rest[s].rotation));
    if (f == 0) hips_start = sworld[s_hips].translation;
    // Hips path: the source's, scaled about where it starts (horizontally) and about the ground.
    const Vec3 sh = sworld[s_hips].translation;
    Vec3 hips_pos;
    hips_pos.x = hips_start.x + result.scale * (sh.x - hips_start.x);
    hips_pos.z = hips_start.z + result.scale * (sh.z - hips_start.z);
    hips_pos.y = result.scale * sh.y;

    auto out = result.clip.frame(f);
    for (int t = 0; t < tn; ++t) {
      const int parent = tgt.parents[t];
      const Transform& parent_world = parent < 0 ? t_to_world : tworld[parent];
      Transform local = tgt.rest[t];
      if (drive.kind[t] != TargetDrive::Rest) {
        const Quat world_rot = drive.world_rotation(t, delta, align);
        local.rotation = glm::normalize(glm::inverse(parent_world.rotation) * world_rot);
      }
      if (t == t_hips) {
        local.translation = transform_point(inverse(parent_world), hips_pos);
        hips_parent_world[f] = parent_world;
      }
      out[t] = local;
      tworld[t] = compose(parent_world, local);
    }
    reach_arms(arms, tgt, sworld, tworld, out, t_to_world, in.settings.arm_reach);
  }

  // Ground: shift the hips so the target's feet meet the ground where the source's do (scaled).
  const double source_level =
      contact_level(src, in.source_legs, in.source_space, sclip, source_contacts);
  const double target_level =
      contact_level(tgt, in.target_legs, in.target_space, result.clip, source_contacts);
  result.ground_offset_m = result.scale * source_level - target_level;
  for (int f = 0; f < frames; ++f) {
    // World shift (0, offset, 0) expressed in the hips' parent space, the same parent transform
    // the loop above used (arm reach changes only the arms).
    const Transform& parent_world = hips_parent_world[f];
    const Vec3 world_pos = transform_point(parent_world, result.clip.at(f, t_hips).translation) +
                           Vec3(0.0, result.ground_offset_m, 0.0);
    result.clip.at(f, t_hips).translation = transform_point(inverse(parent_world), world_pos);
  }
  return result;
}

}  // namespace ikfix::core
