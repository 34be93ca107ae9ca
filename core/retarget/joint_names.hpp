#pragma once
// What a joint's name says, for bone mapping: its word tokens after rig prefixes and
// namespaces are stripped, its side, whether it is a control/IK/helper bone, and which body
// parts its words can mean. Names only hint: the same word means different bones in different
// rigs (`LeftShoulder` is the clavicle in one, the upper arm in another; the barbarian's `pied`,
// "foot", is its shin), so roles are decided from structure (body_parts.hpp) and names confirm.
#include <string>
#include <string_view>
#include <vector>

namespace ikfix::core {

// Body-part kinds a name can mean, without side.
enum class PartKind {
  Hips,
  Spine,
  Neck,
  Head,
  Clavicle,
  UpperArm,
  LowerArm,
  Hand,
  HipSocket,
  Thigh,
  Shin,
  Foot,
  Toe,
  Thumb,
  Index,
  Middle,
  Ring,
  Pinky,
  Finger,  // Finger: a finger word without which one
  Count
};

struct JointName {
  std::vector<std::string> tokens;  // lower-case ASCII words, side and digits included
  std::string key;      // tokens joined: equal keys = same name ("mixamorig:LeftLeg" == "Left_Leg")
  int side = -1;        // 0 left, 1 right, -1 none
  bool helper = false;  // control, IK, roll, pole, twist, weapon, cloth, ...: never mapped
  bool end_marker = false;      // "*_end", "*Nub", "*_tip": a bone tail, not a joint to map
  std::vector<PartKind> kinds;  // body parts the words can mean (empty: no anatomy word)

  bool can_mean(PartKind k) const;
};

// Parses a joint name (UTF-8; Latin accents folded to ASCII, so "tête" reads "tete").
JointName parse_joint_name(std::string_view name);

}  // namespace ikfix::core
