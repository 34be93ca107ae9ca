#include "core/retarget/retarget.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/fix/fix_math.hpp"
#include "core/fix/input_contacts.hpp"
#include "core/fk.hpp"
#include "core/retarget/limb_reach.hpp"
#include "core/retarget/rest_alignment.hpp"
#include "core/retarget/toe_reach.hpp"

namespace ikfix::core {
namespace {

// A target rest pose whose lowest foot point is this many leg lengths above y = 0 or less stands
// on y = 0 (clip_floor's rule for a clip's own floor).
constexpr double kRestOnGroundLegs = 0.15;

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

namespace {

// The pair that carries the root motion: the "hips" role, else the pair of the source's pelvis.
int find_hips_pair(const BoneMap& map, const RetargetInput& in) {
  int hips_pair = map.pair_with_role("hips");
  if (hips_pair < 0)
    for (int p = 0; p < static_cast<int>(map.pairs.size()); ++p)
      if (map.pairs[p].source == in.source_legs.pelvis && !map.pairs[p].target_end_site)
        hips_pair = p;
  if (hips_pair < 0) throw std::invalid_argument("the bone map has no hips pair");
  return hips_pair;
}

// Rest leg lengths of both sides and the root scale (--scale, else their ratio).
void choose_scale(const RetargetInput& in, RetargetResult& result) {
  result.source_leg_length_m = rest_leg_length(*in.source, in.source_space, in.source_legs);
  result.target_leg_length_m = rest_leg_length(*in.target, in.target_space, in.target_legs);
  if (!(result.source_leg_length_m > 0) || !(result.target_leg_length_m > 0))
    throw std::invalid_argument("cannot measure the legs of both skeletons");
  if (in.settings.scale) {
    result.scale = *in.settings.scale;
    result.scale_method = "user";
  } else {
    result.scale = result.target_leg_length_m / result.source_leg_length_m;
    result.scale_method = "leg length";
  }
}

// Every joint but the excluded controls is written: an unmapped joint holds its rest pose in
// the new take, whatever pose the character file was saved in. Ancestors of written joints are
// written too (at rest), so a control above the hips stands where the transfer assumed it does.
std::vector<char> written_joints(const BoneMap& map, const Skeleton& tgt) {
  const int tn = tgt.joint_count();
  std::vector<char> animated(tn, 1);
  for (int t : map.excluded_target) animated[t] = 0;
  for (int t = tn - 1; t >= 0; --t)
    if (animated[t] && tgt.parents[t] >= 0) animated[tgt.parents[t]] = 1;
  return animated;
}

// What the transfer of every frame reads.
struct FrameTransfer {
  const Skeleton& src;
  const Skeleton& tgt;
  const std::vector<Transform>& src_rest;
  const TargetDrive& drive;
  const RestAlignment& align;
  const std::vector<ArmChain>& arms;
  Transform s_to_world, t_to_world;
  int s_hips = 0, t_hips = 0;
  double scale = 1.0;
  double arm_reach = 1.0;
};

// Hips path: the source's, scaled about where it starts (horizontally) and about the ground.
Vec3 scaled_hips(const Vec3& hips_start, const Vec3& sh, double scale) {
  Vec3 hips_pos;
  hips_pos.x = hips_start.x + scale * (sh.x - hips_start.x);
  hips_pos.z = hips_start.z + scale * (sh.z - hips_start.z);
  hips_pos.y = scale * sh.y;
  return hips_pos;
}

// The target's locals of one frame (world rotation recipe of each driven joint, the hips at
// `hips_pos`), then the arms' reach; `tworld` receives the target's world pose and
// `hips_parent_world` the hips' parent world transform.
void pose_target(const FrameTransfer& x, std::span<const Quat> delta, const Vec3& hips_pos,
                 std::span<const Transform> sworld, std::vector<Transform>& tworld,
                 std::span<Transform> out, Transform& hips_parent_world) {
  for (int t = 0; t < x.tgt.joint_count(); ++t) {
    const int parent = x.tgt.parents[t];
    const Transform& parent_world = parent < 0 ? x.t_to_world : tworld[parent];
    Transform local = x.tgt.rest[t];
    if (x.drive.kind[t] != TargetDrive::Rest) {
      const Quat world_rot = x.drive.world_rotation(t, delta, x.align);
      local.rotation = glm::normalize(glm::inverse(parent_world.rotation) * world_rot);
    }
    if (t == x.t_hips) {
      local.translation = transform_point(inverse(parent_world), hips_pos);
      hips_parent_world = parent_world;
    }
    out[t] = local;
    tworld[t] = compose(parent_world, local);
  }
  reach_arms(x.arms, x.tgt, sworld, tworld, out, x.t_to_world, x.arm_reach);
}

// Every frame of the source onto the target; returns the hips' parent world transform per frame.
std::vector<Transform> transfer_frames(const FrameTransfer& x, const Clip& sclip, Clip& clip) {
  const int frames = sclip.frame_count;
  std::vector<Transform> sworld(x.src.joint_count()), tworld(x.tgt.joint_count());
  std::vector<Quat> delta(x.src.joint_count());
  Vec3 hips_start{0.0};
  std::vector<Transform> hips_parent_world(frames);
  for (int f = 0; f < frames; ++f) {
    forward_kinematics(x.src, sclip.frame(f), x.s_to_world, sworld);
    for (int s = 0; s < x.src.joint_count(); ++s)
      delta[s] = glm::normalize(sworld[s].rotation * glm::inverse(x.src_rest[s].rotation));
    if (f == 0) hips_start = sworld[x.s_hips].translation;
    const Vec3 hips_pos = scaled_hips(hips_start, sworld[x.s_hips].translation, x.scale);
    pose_target(x, delta, hips_pos, sworld, tworld, clip.frame(f), hips_parent_world[f]);
  }
  return hips_parent_world;
}

// Whether the target's rest pose stands on y = 0: its lowest foot point (lowest_foot_point) at
// or above it by at most `kRestOnGroundLegs` leg lengths (a rest pose placed elsewhere, e.g. a
// BVH rest around its hips, tells nothing of the floor).
bool rest_stands_on_ground(const RetargetInput& in, std::span<const Transform> rest_ws,
                           double leg_length) {
  double lowest = 1e300;
  for (const Leg& leg : in.target_legs.legs)
    lowest = std::min(lowest, lowest_foot_point(*in.target, leg, rest_ws));
  return lowest >= 0.0 && lowest <= kRestOnGroundLegs * leg_length;
}

// The vertical shift that stands a rest-on-ground target on y = 0 as its rest pose does: at the
// level the foot stage plants them at (kPlantedLevelQuantile of their height over the clip),
// each leg's ankle and ball (toe joint) are no higher than at rest, the one with the least room
// exactly there. A lower shift (the lowest planted point at its rest height on the median
// planted frame) sank the CMU walk's first plant, on its ball, 3 cm into the floor on Kenney, and
// the foot stage's lifting it out nearly doubled the left ankle's jerk; a higher one (every
// point at or above its rest height) floated the feet 4 cm, since the legs of a transfer stand
// at different heights (Kenney's left ankle 3 cm below its right).
double rest_ground_offset(const RetargetInput& in, std::span<const Transform> rest_ws,
                          const Clip& clip) {
  std::vector<double> ys[2][2];
  std::vector<Transform> world(in.target->joint_count());
  for (int f = 0; f < clip.frame_count; ++f) {
    forward_kinematics(*in.target, clip.frame(f), in.target_space.to_world(), world);
    for (int l = 0; l < 2; ++l) {
      const Leg& leg = in.target_legs.legs[l];
      ys[l][0].push_back(world[leg.ankle].translation.y);
      if (leg.toe >= 0) ys[l][1].push_back(world[leg.toe].translation.y);
    }
  }
  double offset = 1e300;
  for (int l = 0; l < 2; ++l) {
    const Leg& leg = in.target_legs.legs[l];
    const int joints[2] = {leg.ankle, leg.toe};
    for (int p = 0; p < 2; ++p)
      if (!ys[l][p].empty())
        offset = std::min(offset, rest_ws[joints[p]].translation.y -
                                      percentile(std::move(ys[l][p]), kPlantedLevelQuantile));
  }
  return offset;
}

// Ground: shift the hips so the target's feet meet the ground: as at rest for a target whose
// rest stands on y = 0 (rest_ground_offset), else where the source's do, scaled. The world
// shift (0, offset, 0) is expressed in the hips' parent space, the same parent transform the
// transfer used (arm reach changes only the arms). Returns the source's level (world Y, metres).
double shift_to_ground(const RetargetInput& in, const std::vector<char> (&source_contacts)[2],
                       int t_hips, const std::vector<Transform>& hips_parent_world,
                       RetargetResult& result) {
  const double source_level =
      contact_level(*in.source, in.source_legs, in.source_space, *in.source_clip, source_contacts);
  const double target_level =
      contact_level(*in.target, in.target_legs, in.target_space, result.clip, source_contacts);
  const auto rest_ws = rest_world(*in.target, in.target_space);
  result.target_rest_on_ground = rest_stands_on_ground(in, rest_ws, result.target_leg_length_m);
  result.ground_offset_m = result.target_rest_on_ground
                               ? rest_ground_offset(in, rest_ws, result.clip)
                               : result.scale * source_level - target_level;
  result.ground_level_m = target_level + result.ground_offset_m;
  for (int f = 0; f < result.clip.frame_count; ++f) {
    const Transform& parent_world = hips_parent_world[f];
    const Vec3 world_pos = transform_point(parent_world, result.clip.at(f, t_hips).translation) +
                           Vec3(0.0, result.ground_offset_m, 0.0);
    result.clip.at(f, t_hips).translation = transform_point(inverse(parent_world), world_pos);
  }
  return source_level;
}

}  // namespace

RetargetResult retarget_clip(const RetargetInput& in,
                             const std::vector<char> (&source_contacts)[2]) {
  const Skeleton& src = *in.source;
  const Skeleton& tgt = *in.target;
  const Clip& sclip = *in.source_clip;
  const BoneMap& map = *in.map;
  RetargetResult result;
  const int hips_pair = find_hips_pair(map, in);
  choose_scale(in, result);

  const auto src_rest = rest_world(src, in.source_space);
  const auto tgt_rest = rest_world(tgt, in.target_space);
  const RestAlignment align = align_rest_poses(map, src, src_rest, in.source_legs, tgt, tgt_rest,
                                               in.target_legs, in.settings.align_rest);
  result.facing_angle_rad = rotation_angle(align.facing);
  result.alignment = align.bones;
  // Target joint -> the world rotation recipe: D(source joint) * A * G * rest, or an in-between
  // blend for target joints inside a chain whose neighbours are mapped, or the local rest pose.
  const TargetDrive drive = plan_target_drive(map, src, tgt, tgt_rest);

  result.clip.fps = sclip.fps;
  result.clip.frame_count = sclip.frame_count;
  result.clip.joint_count = tgt.joint_count();
  result.clip.locals.resize(static_cast<std::size_t>(sclip.frame_count) * tgt.joint_count());
  result.animated = written_joints(map, tgt);

  const std::vector<ArmChain> arms = arm_chains(map, src_rest, tgt, tgt_rest);
  const FrameTransfer x{src,
                        tgt,
                        src_rest,
                        drive,
                        align,
                        arms,
                        in.source_space.to_world(),
                        in.target_space.to_world(),
                        map.pairs[hips_pair].source,
                        map.pairs[hips_pair].target,
                        result.scale,
                        in.settings.arm_reach};
  const std::vector<Transform> hips_parent_world = transfer_frames(x, sclip, result.clip);
  const double source_level =
      shift_to_ground(in, source_contacts, x.t_hips, hips_parent_world, result);
  // Toe tips no lower than the source's, in target lengths above the target's ground level
  // (toe_reach.hpp).
  const std::vector<ToeChain> toes = toe_chains(map, src, in.source_legs, tgt, in.target_legs);
  const ToeReachJob toe_reach{
      &src,         &sclip, x.s_to_world, &tgt,
      x.t_to_world, toes,   result.scale, result.ground_level_m - result.scale * source_level};
  result.raised_toe_frames = toe_reach.run(result.clip);
  return result;
}

}  // namespace ikfix::core
