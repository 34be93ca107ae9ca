#pragma once
// The target's legs when they end in bone tails (2-bone legs: the map pairs the source's ankle
// with the end site of the target's shin, e.g. the barbarian's `pied gauche`): a virtual ankle
// joint at each of those end sites (core/end_site_joints.hpp) gives the foot stage its
// hip-knee-ankle chains. The map's pairs keep their indices (original joints keep theirs).
#include <optional>

#include "core/end_site_joints.hpp"
#include "core/legs.hpp"
#include "core/retarget/bone_map.hpp"

namespace ikfix::core {

struct TailLegs {
  EndSiteJoints joints;  // the target with a virtual joint at each foot pair's end site
  LegRig rig;            // indexes joints.skeleton; the ankles are virtual joints
};

// Empty when the map has no thigh, shin and end-site foot pair on both sides.
std::optional<TailLegs> target_tail_legs(const BoneMap& map, const Skeleton& target);

}  // namespace ikfix::core
