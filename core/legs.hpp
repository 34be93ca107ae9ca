#pragma once
// Finding the legs of a biped: LegRig detection from joint names (common conventions), then
// from topology, with a check that the character really stands on two legs.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/math.hpp"
#include "core/skeleton.hpp"

namespace ikfix::core {

// One leg's joints, as indices into the Skeleton. `hip` is the thigh joint (its bone runs to the
// knee), `knee` the shin joint, `ankle` the foot joint; `toe` is optional (-1).
struct Leg {
  int hip = -1;
  int knee = -1;
  int ankle = -1;
  int toe = -1;
};

struct LegRig {
  int pelvis = -1;          // joint whose translation moves the body (common ancestor of the hips)
  std::array<Leg, 2> legs;  // [0] left, [1] right
  std::string method;       // "names", "topology" or "user"
};

inline constexpr const char* kLegSideNames[2] = {"left", "right"};

// Rest-pose world positions (metres, Y up) of every joint, as FK of Skeleton::rest through the
// clip-to-world transform. Detection uses them for topology and for the biped check.
struct LegDetectionInput {
  const Skeleton* skeleton = nullptr;
  std::vector<Vec3> rest_world;  // joint_count entries
};

struct LegDetection {
  std::optional<LegRig> rig;
  std::string error;  // why no rig was found (empty when rig is set)
};

// Names first (CMU, 3ds Max, Second Life, Mixamo, Unreal, Unity, Blender rigify, ...), then
// topology (two mirror-symmetric chains hanging down from a common ancestor). Rejects
// skeletons that do not stand on two legs (e.g. quadrupeds whose joints are called "Leg").
LegDetection detect_legs(const LegDetectionInput& input);

// detect_legs on the skeleton's rest pose, placed in the world by `to_world` (the clip's
// ClipSpace::to_world(): clip units and axes -> metres, Y up).
LegDetection detect_legs_at_rest(const Skeleton& skeleton, const Transform& to_world);

// Legs named explicitly: {left hip, knee, ankle, toe-or-empty, right hip, knee, ankle,
// toe-or-empty}. Error text names the joint that does not exist or does not form a chain.
LegDetection legs_from_names(const Skeleton& skeleton, const std::array<std::string, 8>& names);

// Lower-cased name with common rig prefixes/namespaces stripped ("mixamorig:LeftLeg" -> "leftleg").
std::string normalized_joint_name(const std::string& name);

}  // namespace ikfix::core
