#pragma once
// Arm reach after the rotation transfer (the "IK goals" pass of the best retargeters): copying
// rotations keeps every bone's direction but, when the upper and lower arm lengths are in another
// proportion than the source's, the hand lands elsewhere relative to the shoulder. This pass
// bends the elbow (in its own bend plane) and swings the upper arm so the hand sits where the
// source's hand is, measured in arm lengths from the shoulder. The hand keeps its world rotation.
#include <span>
#include <vector>

#include "core/clip.hpp"
#include "core/retarget/bone_map.hpp"
#include "core/skeleton.hpp"

namespace ikfix::core {

struct ArmChain {
  int source_upper = -1, source_hand = -1;
  int target_upper = -1, target_lower = -1, target_hand = -1;  // parent-child chain on the target
  double source_length = 0, target_length = 0;                 // rest, metres (upper + lower arm)
};

// Arms whose upper_arm, lower_arm and hand roles are mapped and form a parent-child chain on the
// target. `*_rest` are rest world transforms (metres, Y up).
std::vector<ArmChain> arm_chains(const BoneMap& map, std::span<const Transform> source_rest,
                                 const Skeleton& target, std::span<const Transform> target_rest);

// One frame: `target_world` is the target's world pose (updated in place for the arm joints),
// `target_locals` its local pose (arm joints rewritten), `source_world` the source's world pose.
// `weight` 0 leaves the arms as transferred, 1 reaches fully.
void reach_arms(std::span<const ArmChain> arms, const Skeleton& target,
                std::span<const Transform> source_world, std::span<Transform> target_world,
                std::span<Transform> target_locals, const Transform& target_to_world,
                double weight);

}  // namespace ikfix::core
