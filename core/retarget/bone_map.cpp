#include "core/retarget/bone_map.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "core/fk.hpp"
#include "core/retarget/body_parts.hpp"
#include "core/retarget/chain_pairing.hpp"

namespace ikfix::core {
namespace {

constexpr const char* kSide[2] = {"left_", "right_"};

// Confidence by how a pair was found; structure-only pairs lose a little more when a side came
// from the rest pose rather than from names, or when the chains had different lengths.
constexpr double kExactConfidence = 1.0;
constexpr double kSynonymConfidence = 0.9;
constexpr double kTopologyConfidence = 0.75;
constexpr double kGeometricSidePenalty = 0.1;
constexpr double kUnequalChainPenalty = 0.1;

struct Mapper {
  const BodyParts& src;
  const BodyParts& tgt;
  BoneMap map;

  void add(int s, int t, const std::string& role, PartKind kind, double penalty,
           bool end_site = false) {
    if (s < 0 || t < 0) return;
    BonePair pair;
    pair.source = s;
    pair.target = t;
    pair.target_end_site = end_site;
    pair.role = role;
    const JointName& a = src.names[s];
    const JointName& b = tgt.names[t];
    if (end_site) {
      pair.provenance = MapProvenance::Topology;  // the target has no joint of that name
      pair.confidence = kTopologyConfidence - penalty;
    } else if (!a.key.empty() && a.key == b.key) {
      pair.provenance = MapProvenance::ExactName;
      pair.confidence = kExactConfidence;
    } else if (a.can_mean(kind) && b.can_mean(kind)) {
      pair.provenance = MapProvenance::RoleSynonym;
      pair.confidence = kSynonymConfidence;
    } else {
      pair.provenance = MapProvenance::Topology;
      pair.confidence = kTopologyConfidence - penalty;
    }
    map.pairs.push_back(pair);
  }

  // `role(j)`: the role of the pair whose target is the j-th joint of the target chain.
  void add_chain(const std::vector<int>& s, const std::vector<double>& s_pos,
                 const std::vector<int>& t, const std::vector<double>& t_pos, ChainAnchor anchor,
                 const std::function<std::string(int)>& role, PartKind kind, double penalty) {
    const double unequal = s.size() == t.size() ? 0.0 : kUnequalChainPenalty;
    for (const auto& [i, j] : pair_chain(s_pos, t_pos, anchor))
      add(s[i], t[j], role(j), kind, penalty + unequal);
  }

  void add_arm(int side) {
    const ArmParts& a = src.arms[side];
    const ArmParts& b = tgt.arms[side];
    const double penalty = a.side_from_names && b.side_from_names ? 0.0 : kGeometricSidePenalty;
    const std::string p = kSide[side];
    add(a.clavicle, b.clavicle, p + "clavicle", PartKind::Clavicle, penalty);
    add(a.upper, b.upper, p + "upper_arm", PartKind::UpperArm, penalty);
    add(a.lower, b.lower, p + "lower_arm", PartKind::LowerArm, penalty);
    add(a.hand, b.hand, p + "hand", PartKind::Hand, penalty);
    static const std::pair<PartKind, const char*> kFingers[] = {{PartKind::Thumb, "thumb"},
                                                                {PartKind::Index, "index"},
                                                                {PartKind::Middle, "middle"},
                                                                {PartKind::Ring, "ring"},
                                                                {PartKind::Pinky, "pinky"}};
    for (const auto& [kind, name] : kFingers) {
      const FingerChain* fa = nullptr;
      const FingerChain* fb = nullptr;
      for (const auto& f : a.fingers)
        if (f.kind == kind) fa = &f;
      for (const auto& f : b.fingers)
        if (f.kind == kind) fb = &f;
      const std::string finger = p + name;
      if (fa && fb)
        add_chain(
            fa->joints, fa->positions, fb->joints, fb->positions, ChainAnchor::None,
            [&](int j) { return finger + std::to_string(j + 1); }, kind, penalty);
    }
  }

  void add_leg(int side) {
    const LegParts& a = src.legs[side];
    const LegParts& b = tgt.legs[side];
    const double penalty = a.side_from_names && b.side_from_names ? 0.0 : kGeometricSidePenalty;
    const std::string p = kSide[side];
    add(a.hip_socket, b.hip_socket, p + "hip_joint", PartKind::HipSocket, penalty);
    add(a.thigh, b.thigh, p + "thigh", PartKind::Thigh, penalty);
    add(a.shin, b.shin, p + "shin", PartKind::Shin, penalty);
    if (b.foot_is_shin_end)
      add(a.foot, b.shin, p + "foot", PartKind::Foot, penalty, true);
    else
      add(a.foot, b.foot, p + "foot", PartKind::Foot, penalty);
    add(a.toe, b.toe, p + "toe", PartKind::Toe, penalty);
  }
};

// Joints no role claimed but named alike on both sides, whose parents are partners (eyes, a
// jaw, extra fingers): they pair by name, so a skeleton maps onto itself completely.
void add_same_name_leftovers(Mapper& m, const Skeleton& source, const Skeleton& target) {
  std::vector<int> partner_of_source(source.joint_count(), -1);
  std::vector<char> target_used(target.joint_count(), 0);
  for (const auto& p : m.map.pairs) {
    if (p.target_end_site) continue;
    partner_of_source[p.source] = p.target;
    target_used[p.target] = 1;
  }
  // The target joints still free, by name key (a sorted map: O(log n) per look-up).
  std::map<std::string, std::set<int>> free_by_key;
  for (int t = 0; t < target.joint_count(); ++t)
    if (!target_used[t] && !m.tgt.excluded[t]) free_by_key[m.tgt.names[t].key].insert(t);
  for (int s = 0; s < source.joint_count(); ++s) {
    const JointName& a = m.src.names[s];
    const int sp = source.parents[s];
    if (partner_of_source[s] >= 0 || a.helper || a.key.empty() || sp < 0 ||
        partner_of_source[sp] < 0)
      continue;
    const auto same_key = free_by_key.find(a.key);
    if (same_key == free_by_key.end() || same_key->second.size() != 1) continue;
    const int match = *same_key->second.begin();
    if (target.parents[match] != partner_of_source[sp]) continue;
    m.add(s, match, "other_" + a.key, PartKind::Count, 0.0);
    partner_of_source[s] = match;
    same_key->second.erase(match);
  }
}

}  // namespace

const char* provenance_name(MapProvenance p) {
  switch (p) {
    case MapProvenance::ExactName:
      return "exact_name";
    case MapProvenance::RoleSynonym:
      return "role_synonym";
    case MapProvenance::Topology:
      return "topology";
    case MapProvenance::User:
      return "user";
  }
  return "unknown";
}

int BoneMap::pair_of_source(int joint) const {
  for (std::size_t i = 0; i < pairs.size(); ++i)
    if (pairs[i].source == joint) return static_cast<int>(i);
  return -1;
}

int BoneMap::pair_of_target(int joint) const {
  for (std::size_t i = 0; i < pairs.size(); ++i)
    if (pairs[i].target == joint && !pairs[i].target_end_site) return static_cast<int>(i);
  return -1;
}

int BoneMap::pair_with_role(const std::string& role) const {
  for (std::size_t i = 0; i < pairs.size(); ++i)
    if (pairs[i].role == role && !pairs[i].target_end_site) return static_cast<int>(i);
  return -1;
}

bool is_sided_role(const std::string& role) {
  return role.rfind("left", 0) == 0 || role.rfind("right", 0) == 0;
}

RestPose make_rest_pose(const Skeleton& skeleton, const Transform& clip_to_world) {
  RestPose rest;
  rest.skeleton = &skeleton;
  const int n = skeleton.joint_count();
  std::vector<Transform> world(n);
  forward_kinematics(skeleton, skeleton.rest, clip_to_world, world);
  rest.joint_world.resize(n);
  rest.end_world.resize(n);
  for (int j = 0; j < n; ++j) {
    rest.joint_world[j] = world[j].translation;
    if (j < static_cast<int>(skeleton.end_sites.size()) && skeleton.end_sites[j])
      rest.end_world[j] = transform_point(world[j], *skeleton.end_sites[j]);
  }
  return rest;
}

const std::vector<std::string>& required_roles() {
  static const std::vector<std::string> kRoles = {
      "hips", "left_thigh", "left_shin", "left_foot", "right_thigh", "right_shin", "right_foot"};
  return kRoles;
}

void refresh_unmapped(BoneMap& map, int source_joints, int target_joints) {
  std::vector<char> used_s(source_joints, 0), used_t(target_joints, 0), excluded(target_joints, 0);
  for (const auto& p : map.pairs) {
    if (p.source >= 0 && p.source < source_joints) used_s[p.source] = 1;
    if (p.target >= 0 && p.target < target_joints) used_t[p.target] = 1;
  }
  for (int j : map.excluded_target)
    if (j >= 0 && j < target_joints) excluded[j] = 1;
  map.unmapped_source.clear();
  map.unmapped_target.clear();
  for (int j = 0; j < source_joints; ++j)
    if (!used_s[j]) map.unmapped_source.push_back(j);
  for (int j = 0; j < target_joints; ++j)
    if (!used_t[j] && !excluded[j]) map.unmapped_target.push_back(j);
  map.missing_roles.clear();
  for (const auto& role : required_roles())
    if (std::none_of(map.pairs.begin(), map.pairs.end(),
                     [&](const BonePair& p) { return p.role == role; }))
      map.missing_roles.push_back(role);
}

BoneMap auto_map(const RestPose& source, const RestPose& target) {
  const BodyParts src = find_body_parts(source);
  const BodyParts tgt = find_body_parts(target);
  Mapper m{src, tgt, {}};
  if (src.has_legs() && tgt.has_legs()) {
    const double trunk_penalty = 0.0;  // the trunk has no side to guess
    m.add(src.hips, tgt.hips, "hips", PartKind::Hips, trunk_penalty);
    const int spine_top = static_cast<int>(tgt.spine.size()) - 1;
    m.add_chain(
        src.spine, src.spine_heights, tgt.spine, tgt.spine_heights, ChainAnchor::Last,
        [&](int j) { return j == spine_top ? "chest" : "spine"; }, PartKind::Spine, trunk_penalty);
    m.add_chain(
        src.neck, src.neck_heights, tgt.neck, tgt.neck_heights, ChainAnchor::First,
        [](int) { return "neck"; }, PartKind::Neck, trunk_penalty);
    m.add(src.head, tgt.head, "head", PartKind::Head, trunk_penalty);
    for (int side = 0; side < 2; ++side) {
      m.add_arm(side);
      m.add_leg(side);
    }
    add_same_name_leftovers(m, *source.skeleton, *target.skeleton);
  }
  for (int j = 0; j < target.skeleton->joint_count(); ++j)
    if (tgt.excluded[j]) m.map.excluded_target.push_back(j);
  refresh_unmapped(m.map, source.skeleton->joint_count(), target.skeleton->joint_count());
  // Two 2-bone-leg rigs (ankle = shin end on both sides) have no foot joint to pair: the foot
  // is not missing, it is where both shins end.
  if (src.has_legs() && tgt.has_legs() && src.legs[0].foot_is_shin_end &&
      tgt.legs[0].foot_is_shin_end)
    std::erase_if(m.map.missing_roles,
                  [](const std::string& r) { return r == "left_foot" || r == "right_foot"; });
  return m.map;
}

std::optional<LegRig> target_leg_rig(const BoneMap& map, const Skeleton& target) {
  auto joint_of = [&](const std::string& role) {
    for (const auto& p : map.pairs)
      if (p.role == role && !p.target_end_site) return p.target;
    return -1;
  };
  LegRig rig;
  rig.method = "map";
  for (int side = 0; side < 2; ++side) {
    const std::string s = kSide[side];
    rig.legs[side] =
        Leg{joint_of(s + "thigh"), joint_of(s + "shin"), joint_of(s + "foot"), joint_of(s + "toe")};
    const Leg& leg = rig.legs[side];
    if (leg.hip < 0 || leg.knee < 0 || leg.ankle < 0) return std::nullopt;
  }
  rig.pelvis = joint_of("hips");
  if (rig.pelvis < 0 || !target.is_ancestor(rig.pelvis, rig.legs[0].hip) ||
      !target.is_ancestor(rig.pelvis, rig.legs[1].hip)) {
    rig.pelvis = -1;
    for (int a = rig.legs[0].hip; a >= 0 && rig.pelvis < 0; a = target.parents[a])
      if (target.is_ancestor(a, rig.legs[1].hip)) rig.pelvis = a;
    if (rig.pelvis < 0) return std::nullopt;
  }
  return rig;
}

}  // namespace ikfix::core
