#include "core/retarget/tail_legs.hpp"

namespace ikfix::core {

std::optional<TailLegs> target_tail_legs(const BoneMap& map, const Skeleton& target) {
  std::vector<int> owners;
  for (const BonePair& p : map.pairs)
    if (p.target_end_site && (p.role == "left_foot" || p.role == "right_foot"))
      owners.push_back(p.target);
  if (owners.size() != 2) return std::nullopt;
  TailLegs out;
  out.joints = add_end_site_joints(target, owners);
  if (out.joints.owners.size() != 2) return std::nullopt;  // a foot pair without an end site
  // The same map with the foot pairs on the virtual joints: target_leg_rig then finds the legs
  // (and the pelvis) as it does for any rig.
  BoneMap on_joints = map;
  for (BonePair& p : on_joints.pairs) {
    if (!p.target_end_site || (p.role != "left_foot" && p.role != "right_foot")) continue;
    for (std::size_t i = 0; i < out.joints.owners.size(); ++i)
      if (out.joints.owners[i] == p.target)
        p.target = out.joints.original_count + static_cast<int>(i);
    p.target_end_site = false;
  }
  const std::optional<LegRig> rig = target_leg_rig(on_joints, out.joints.skeleton);
  if (!rig) return std::nullopt;
  for (const Leg& leg : rig->legs)
    if (!out.joints.is_virtual(leg.ankle) ||
        out.joints.owners[leg.ankle - out.joints.original_count] != leg.knee)
      return std::nullopt;  // the tail must be the shin's: a 2-bone leg
  out.rig = *rig;
  return out;
}

}  // namespace ikfix::core
