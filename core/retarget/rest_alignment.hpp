#pragma once
// Rest-pose handling for retargeting: how the target's rest pose is turned to face like the
// source's (one rotation for the whole rig), how each mapped bone's rest direction is aligned to
// its source bone's, and how every target joint gets its world rotation per frame.
#include <span>
#include <vector>

#include "core/legs.hpp"
#include "core/math.hpp"
#include "core/retarget/bone_map.hpp"
#include "core/retarget/retarget.hpp"
#include "core/skeleton.hpp"

namespace ikfix::core {

struct RestAlignment {
  // Target rig frame -> source rig frame (right = left hip to right hip, up = hips to the mapped
  // upper body), applied to the target's rest world rotations.
  Quat facing{1.0, 0.0, 0.0, 0.0};
  std::vector<Quat> per_pair;        // BoneMap::pairs order: direction alignment (identity if off)
  std::vector<BoneAlignment> bones;  // one per non-end-site pair, for the report
};

// `*_rest` are rest world transforms (metres, Y up) of every joint.
RestAlignment align_rest_poses(const BoneMap& map, const Skeleton& source,
                               std::span<const Transform> source_rest, const LegRig& source_legs,
                               const Skeleton& target, std::span<const Transform> target_rest,
                               const LegRig& target_legs, bool align_bones);

// Per target joint: how its world rotation is made each frame.
struct TargetDrive {
  enum Kind { Rest, Mapped, Blend };
  std::vector<Kind> kind;      // per target joint
  std::vector<int> pair_a;     // Mapped: its pair; Blend: the mapped pair above
  std::vector<int> pair_b;     // Blend: the mapped pair below
  std::vector<double> weight;  // Blend: 0 at pair_a's joint, 1 at pair_b's (rest chain length)
  std::vector<Quat> target_rest_rotation;  // world rest rotation of each target joint
  std::vector<int> source_of_pair;         // BoneMap::pairs[p].source

  // World rotation of mapped or blended target joint `t`, given each source joint's world delta
  // from its rest rotation (source_delta[s] = world(s) * rest_world(s)^-1).
  Quat world_rotation(int t, std::span<const Quat> source_delta, const RestAlignment& align) const;
};

// Rest joints: unmapped, excluded (control/helper bones) or unmapped with no mapped neighbours in
// a spine/neck chain. Blends: unmapped spine/neck joints between two mapped ones (a 3-bone spine
// driven by a 2-bone one bends along its length instead of at one joint).
TargetDrive plan_target_drive(const BoneMap& map, const Skeleton& source, const Skeleton& target,
                              std::span<const Transform> target_rest);

}  // namespace ikfix::core
