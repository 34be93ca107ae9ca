#pragma once
// Which joint of a target skeleton plays the part of which joint of a source skeleton.
// Both skeletons are mapped onto one canonical set of humanoid roles (hips, spine chain, neck,
// head; per side clavicle, upper/lower arm, hand, thigh, shin, foot, toe; optional fingers);
// joints that share a role are paired. Control, IK, roll and helper bones are never mapped.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/legs.hpp"
#include "core/math.hpp"
#include "core/skeleton.hpp"

namespace ikfix::core {

// How a pair was found, best first.
enum class MapProvenance {
  ExactName,    // same normalised name on both sides (after prefix stripping)
  RoleSynonym,  // both names resolve to the same role through the synonym tables
  Topology,     // found by structure (mirror-symmetric branches, rest-pose sides)
  User,         // given by a --map file
};
const char* provenance_name(MapProvenance p);

// One mapped pair. `target_end_site` marks a source joint whose partner is not a target joint
// but the end point (End Site / bone tail) of `target` — the barbarian's ankle is the end of
// its shin bone `pied gauche`. Such a pair carries no rotation; it tells where the chain ends.
struct BonePair {
  int source = -1;  // joint index in the source skeleton
  int target = -1;  // joint index in the target skeleton
  bool target_end_site = false;
  // Canonical role: "hips", "spine", "chest", "neck", "head", "<side>_clavicle",
  // "<side>_upper_arm",
  // "<side>_lower_arm", "<side>_hand", "<side>_thigh", "<side>_shin", "<side>_foot", "<side>_toe",
  // "<side>_<finger><n>" (finger: thumb, index, middle, ring, pinky; n from 1 at the hand),
  // "hip_joint" sided for pelvis offsets like CMU's LHipJoint; side is "left" or "right". Spine
  // chains may repeat "spine"/"neck" for several pairs (listed from the hips up).
  std::string role;
  MapProvenance provenance = MapProvenance::ExactName;
  double confidence = 1.0;  // 0..1
};

struct BoneMap {
  std::vector<BonePair> pairs;             // at most one pair per source and per target joint
  std::vector<int> unmapped_source;        // source joints with no partner (ascending)
  std::vector<int> unmapped_target;        // target joints with no partner (ascending)
  std::vector<int> excluded_target;        // control/IK/helper/weapon target joints (never written)
  std::vector<std::string> missing_roles;  // required roles found on neither or only one side

  // Index into `pairs` of the pair for a joint, or -1.
  int pair_of_source(int joint) const;
  int pair_of_target(int joint) const;
  // Index of the first pair with `role` whose target is a joint (not an end site), or -1.
  int pair_with_role(const std::string& role) const;
};

// True for the roles of one side of the body ("left_...", "right_...").
bool is_sided_role(const std::string& role);

// A skeleton in its rest pose, with world positions (metres, Y up) of every joint and of every
// end site (nullopt where the joint has none), as given by FK through the clip space.
struct RestPose {
  const Skeleton* skeleton = nullptr;
  std::vector<Vec3> joint_world;               // joint_count entries
  std::vector<std::optional<Vec3>> end_world;  // joint_count entries
};

// FK of `skeleton.rest` through `clip_to_world` (ClipSpace::to_world()). Keeps a pointer to
// `skeleton`, which must outlive the result.
RestPose make_rest_pose(const Skeleton& skeleton, const Transform& clip_to_world);

// Automatic map. Roles come from structure (core/retarget/body_parts.hpp: legs, trunk, arms and
// fingers found in each rest pose), so the same word may mean different bones in different
// rigs; names (prefixes and namespaces stripped, synonyms, side tokens) exclude helpers, give
// sides, tell fingers apart and set each pair's provenance. Never throws; `missing_roles` says
// what could not be found (the caller decides whether that is an error).
//
// Roles as BonePair::role lists; numbers count along the TARGET's chain, and joints no role
// claims but named alike on both sides with partner parents (eyes, jaw) pair as
// "other_<normalised name>". Chains of different lengths pair as in
// ../shared/data/retarget/pairs.json: spine tops ("chest") together and the other spine joints
// by nearest height above the thigh joints; neck bases together; fingers by nearest distance
// from the wrist; joints left over stay unmapped.
// A foot pair may be a target_end_site pair (2-bone legs); pair_of_target ignores those.
// Required roles: hips and both thighs, shins and feet.
BoneMap auto_map(const RestPose& source, const RestPose& target);

// The role set auto_map requires (missing_roles lists those without a pair).
const std::vector<std::string>& required_roles();

// Recomputes unmapped_source/unmapped_target (ascending) and missing_roles from `pairs`
// (used after a map is read from a file or edited).
void refresh_unmapped(BoneMap& map, int source_joints, int target_joints);

// The target's legs as the map sees them (thigh, shin, foot, toe roles), for the foot stage.
// Empty when the target has no two mapped legs whose ankles are joints.
std::optional<LegRig> target_leg_rig(const BoneMap& map, const Skeleton& target);

}  // namespace ikfix::core
