#include "core/retarget/rest_alignment.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "core/joint_tree.hpp"

namespace ikfix::core {
namespace {

bool is_thumb(const std::string& role) { return role.find("thumb") != std::string::npos; }

// The pairs by the depth of their source joint, each list sorted by the joint's pre-order
// index: the pairs at one depth below a joint are one contiguous run of its list.
struct PairsByDepth {
  PairsByDepth(const BoneMap& map, const JointTree& source) {
    for (int q = 0; q < static_cast<int>(map.pairs.size()); ++q) {
      const int d = source.depth(map.pairs[q].source);
      if (d >= static_cast<int>(at_depth.size())) at_depth.resize(d + 1);
      at_depth[d].push_back({source.order(map.pairs[q].source), q});
    }
    for (auto& list : at_depth) std::sort(list.begin(), list.end());
    for (int d = 0; d < static_cast<int>(at_depth.size()); ++d)
      if (!at_depth[d].empty()) depths.push_back(d);
  }
  std::vector<std::vector<std::pair<int, int>>> at_depth;  // (pre-order index, pair)
  std::vector<int> depths;                                 // the depths that hold pairs, rising
};

// The pair whose joints give pair p's bone direction on both sides: the nearest mapped joint
// below it (in the source hierarchy), preferring the spine over limbs at a branch (hips, chest)
// and fingers over the thumb at the hand. -1 when there is none or the choice is ambiguous.
// Looks through the depths below p's joint that hold pairs, nearest first, each in O(log n),
// and stops at the first that gives a candidate.
Vec3 child_position(const BonePair& q, const Skeleton& sk, std::span<const Transform> rest,
                    bool target_side);

struct AlignmentInput {
  const BoneMap& map;
  const Skeleton& source;
  std::span<const Transform> source_rest;
  const Skeleton& target;
  std::span<const Transform> target_rest;
  const JointTree& source_tree;
  const JointTree& target_tree;
  const PairsByDepth& by_depth;
};

// Whether pair q, below pair p on the source side, gives p a direction.
bool gives_direction(const AlignmentInput& in, const BonePair& bp, const BonePair& bq) {
  const bool below_on_target =
      bq.target_end_site
          ? in.target_tree.is_ancestor(bp.target, bq.target)
          : (bq.target != bp.target && in.target_tree.is_ancestor(bp.target, bq.target));
  if (!below_on_target) return false;
  if (bq.target_end_site && !in.target.end_sites[bq.target]) return false;
  // A child at the joint itself (CMU's thumb and finger base) gives no direction.
  const double ls = glm::length(child_position(bq, in.source, in.source_rest, false) -
                                in.source_rest[bp.source].translation);
  const double lt = glm::length(child_position(bq, in.target, in.target_rest, true) -
                                in.target_rest[bp.target].translation);
  return ls >= 1e-6 && lt >= 1e-6;
}

int direction_child(const AlignmentInput& in, int p) {
  const BonePair& bp = in.map.pairs[p];
  const auto [first, end] = in.source_tree.below(bp.source);
  std::vector<int> best;
  const auto& depths = in.by_depth.depths;
  auto d = std::upper_bound(depths.begin(), depths.end(), in.source_tree.depth(bp.source));
  for (; d != depths.end() && best.empty(); ++d) {
    const auto& list = in.by_depth.at_depth[*d];
    auto at = std::lower_bound(list.begin(), list.end(), std::pair<int, int>{first, -1});
    for (; at != list.end() && at->first < end; ++at)
      if (at->second != p && gives_direction(in, bp, in.map.pairs[at->second]))
        best.push_back(at->second);
  }
  auto keep = [&](auto pred) {
    std::vector<int> kept;
    for (int q : best)
      if (pred(in.map.pairs[q])) kept.push_back(q);
    if (!kept.empty()) best = kept;
  };
  if (best.size() > 1) keep([](const BonePair& q) { return !is_sided_role(q.role); });
  if (best.size() > 1) keep([](const BonePair& q) { return !is_thumb(q.role); });
  return best.size() == 1 ? best[0] : -1;
}

Vec3 child_position(const BonePair& q, const Skeleton& sk, std::span<const Transform> rest,
                    bool target_side) {
  const int j = target_side ? q.target : q.source;
  if (target_side && q.target_end_site) return transform_point(rest[j], *sk.end_sites[j]);
  return rest[j].translation;
}

// Right/up/forward frame of a rig in its rest pose.
Quat rig_frame(const BoneMap& map, const JointTree& tree, std::span<const Transform> rest,
               const LegRig& legs, bool target_side) {
  const Vec3 left_hip = rest[legs.legs[0].hip].translation;
  const Vec3 right_hip = rest[legs.legs[1].hip].translation;
  const Vec3 mid = 0.5 * (left_hip + right_hip);
  // Up: toward the centroid of the mapped upper body (the same pairs on both sides, so both
  // frames are measured on the same body parts).
  Vec3 sum{0.0};
  int count = 0;
  for (const BonePair& bp : map.pairs) {
    if (bp.target_end_site) continue;
    const int j = target_side ? bp.target : bp.source;
    bool in_leg = false;
    for (const Leg& leg : legs.legs) in_leg = in_leg || tree.is_ancestor(leg.hip, j);
    if (in_leg || j == legs.pelvis) continue;
    const Vec3 pos = rest[j].translation;
    if (pos.y <= mid.y) continue;  // arms hanging below the hips say nothing about "up"
    sum += pos;
    ++count;
  }
  const Vec3 up = safe_normalize(count ? sum / double(count) - mid : Vec3(0, 1, 0), Vec3(0, 1, 0));
  Vec3 right = right_hip - left_hip;
  right -= up * glm::dot(right, up);
  right = safe_normalize(right, any_perpendicular(up));
  const Vec3 forward = glm::cross(right, up);
  glm::dmat3 basis(right, up, forward);
  return glm::normalize(glm::quat_cast(basis));
}

}  // namespace

RestAlignment align_rest_poses(const BoneMap& map, const Skeleton& source,
                               std::span<const Transform> source_rest, const LegRig& source_legs,
                               const Skeleton& target, std::span<const Transform> target_rest,
                               const LegRig& target_legs, bool align_bones) {
  RestAlignment out;
  const JointTree source_tree(source), target_tree(target);
  const PairsByDepth by_depth(map, source_tree);
  const AlignmentInput in{map,         source,      source_rest, target,
                          target_rest, source_tree, target_tree, by_depth};
  const Quat source_frame = rig_frame(map, source_tree, source_rest, source_legs, false);
  const Quat target_frame = rig_frame(map, target_tree, target_rest, target_legs, true);
  out.facing = glm::normalize(source_frame * glm::inverse(target_frame));

  const int n = static_cast<int>(map.pairs.size());
  out.per_pair.assign(n, identity_quat());
  std::vector<char> has_direction(n, 0);
  for (int p = 0; p < n; ++p) {
    const BonePair& bp = map.pairs[p];
    if (bp.target_end_site) continue;
    Vec3 ds{0.0}, dt{0.0};
    const int q = direction_child(in, p);
    if (q >= 0) {
      ds = child_position(map.pairs[q], source, source_rest, false) -
           source_rest[bp.source].translation;
      dt = child_position(map.pairs[q], target, target_rest, true) -
           target_rest[bp.target].translation;
    } else if (source.end_sites[bp.source] && target.end_sites[bp.target] &&
               in.source_tree.children(bp.source).empty() &&
               in.target_tree.children(bp.target).empty()) {
      ds = transform_point(source_rest[bp.source], *source.end_sites[bp.source]) -
           source_rest[bp.source].translation;
      dt = transform_point(target_rest[bp.target], *target.end_sites[bp.target]) -
           target_rest[bp.target].translation;
    }
    const double ls = glm::length(ds), lt = glm::length(dt);
    if (ls > 1e-9 && lt > 1e-9) {
      const Vec3 from = out.facing * (dt / lt);
      const Vec3 to = ds / ls;
      has_direction[p] = 1;
      if (align_bones) out.per_pair[p] = rotation_between(from, to);
    }
  }
  // Bones with no direction of their own turn with the nearest mapped ancestor, so they keep
  // their rest relation to it (hands with their forearm, heads with their neck).
  std::vector<int> order;
  for (int p = 0; p < n; ++p)
    if (!map.pairs[p].target_end_site) order.push_back(p);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return map.pairs[a].target < map.pairs[b].target; });
  std::vector<int> pair_of_target(target.joint_count(), -1);
  for (int p : order) pair_of_target[map.pairs[p].target] = p;
  // Per target joint, the pair of its nearest mapped ancestor (-1: none); parents come first.
  std::vector<int> pair_above(target.joint_count(), -1);
  for (int j = 0; j < target.joint_count(); ++j) {
    const int parent = target.parents[j];
    if (parent >= 0)
      pair_above[j] = pair_of_target[parent] >= 0 ? pair_of_target[parent] : pair_above[parent];
  }
  for (int p : order)
    if (!has_direction[p] && pair_above[map.pairs[p].target] >= 0)
      out.per_pair[p] = out.per_pair[pair_above[map.pairs[p].target]];
  for (int p : order)
    out.bones.push_back({p, rotation_angle(out.per_pair[p]), has_direction[p] != 0});
  return out;
}

namespace {

// For each target joint: the pair of its nearest mapped ancestor and the rest length of the path
// up to it; the pair of the first mapped joint down its single-child path (children not
// excluded) and the length down to it; -1 where there is none. Two passes in index order
// (parents come first). The lengths add from the mapped end: a path of up to two bones gives
// the same bits as adding from the joint, since addition is commutative.
struct ChainNeighbours {
  std::vector<int> above, below;
  std::vector<double> up_length, down_length;
};

ChainNeighbours mapped_chain_neighbours(const Skeleton& target,
                                        std::span<const Transform> target_rest,
                                        const std::vector<char>& excluded,
                                        const std::vector<int>& pair_of_target) {
  const int tn = target.joint_count();
  ChainNeighbours out{std::vector<int>(tn, -1), std::vector<int>(tn, -1),
                      std::vector<double>(tn, 0.0), std::vector<double>(tn, 0.0)};
  const auto bone = [&](int child, int parent) {
    return glm::length(target_rest[child].translation - target_rest[parent].translation);
  };
  std::vector<int> only_child(tn, -1), kept_children(tn, 0);
  for (int t = 0; t < tn; ++t) {
    const int p = target.parents[t];
    if (p < 0) continue;
    if (!excluded[t]) only_child[p] = ++kept_children[p] == 1 ? t : -1;
    out.above[t] = pair_of_target[p] >= 0 ? pair_of_target[p] : out.above[p];
    out.up_length[t] = (pair_of_target[p] >= 0 ? 0.0 : out.up_length[p]) + bone(t, p);
  }
  for (int t = tn - 1; t >= 0; --t) {
    const int c = only_child[t];
    if (c < 0) continue;
    out.below[t] = pair_of_target[c] >= 0 ? pair_of_target[c] : out.below[c];
    out.down_length[t] = bone(c, t) + (pair_of_target[c] >= 0 ? 0.0 : out.down_length[c]);
  }
  return out;
}

}  // namespace

TargetDrive plan_target_drive(const BoneMap& map, const Skeleton& source, const Skeleton& target,
                              std::span<const Transform> target_rest) {
  (void)source;
  const int tn = target.joint_count();
  TargetDrive drive;
  drive.kind.assign(tn, TargetDrive::Rest);
  drive.pair_a.assign(tn, -1);
  drive.pair_b.assign(tn, -1);
  drive.weight.assign(tn, 0.0);
  drive.target_rest_rotation.resize(tn);
  for (int t = 0; t < tn; ++t) drive.target_rest_rotation[t] = target_rest[t].rotation;
  for (const BonePair& bp : map.pairs) drive.source_of_pair.push_back(bp.source);

  std::vector<char> excluded(tn, 0);
  for (int t : map.excluded_target) excluded[t] = 1;
  std::vector<int> pair_of_target(tn, -1);
  for (int p = 0; p < static_cast<int>(map.pairs.size()); ++p)
    if (!map.pairs[p].target_end_site && !excluded[map.pairs[p].target])
      pair_of_target[map.pairs[p].target] = p;

  const ChainNeighbours near =
      mapped_chain_neighbours(target, target_rest, excluded, pair_of_target);
  for (int t = 0; t < tn; ++t) {
    if (excluded[t]) continue;
    if (pair_of_target[t] >= 0) {
      drive.kind[t] = TargetDrive::Mapped;
      drive.pair_a[t] = pair_of_target[t];
      continue;
    }
    // Unmapped: a blend only inside a spine/neck chain (mapped, side-less joints above and below
    // on a single-child path).
    const int above = near.above[t], below = near.below[t];
    if (above < 0 || is_sided_role(map.pairs[above].role)) continue;
    if (below < 0 || is_sided_role(map.pairs[below].role)) continue;
    const double up_length = near.up_length[t], down_length = near.down_length[t];
    drive.kind[t] = TargetDrive::Blend;
    drive.pair_a[t] = above;
    drive.pair_b[t] = below;
    drive.weight[t] = up_length + down_length > 1e-12 ? up_length / (up_length + down_length) : 0.5;
  }
  return drive;
}

Quat TargetDrive::world_rotation(int t, std::span<const Quat> source_delta,
                                 const RestAlignment& align) const {
  const Quat rest = align.facing * target_rest_rotation[t];
  if (kind[t] == Mapped) {
    const int p = pair_a[t];
    return glm::normalize(source_delta[source_of_pair[p]] * align.per_pair[p] * rest);
  }
  const int a = pair_a[t], b = pair_b[t];
  const Quat delta =
      glm::slerp(source_delta[source_of_pair[a]], source_delta[source_of_pair[b]], weight[t]);
  const Quat aligned = glm::slerp(align.per_pair[a], align.per_pair[b], weight[t]);
  return glm::normalize(delta * aligned * rest);
}

}  // namespace ikfix::core
