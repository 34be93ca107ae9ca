#pragma once
// The humanoid structure of one skeleton, found from its rest pose: pelvis, spine chain, neck
// chain, head, two arms (clavicle, upper arm, forearm, hand, finger chains) and two legs (hip
// socket, thigh, shin, foot, toe), plus the joints that must never be mapped. Structure decides
// the roles; names only exclude helpers, tell sides and fingers apart and break ties — so a
// `Shoulder` whose child is an `Elbow` is the upper arm, and the barbarian's `pied` is the shin.
#include <array>
#include <vector>

#include "core/math.hpp"
#include "core/retarget/joint_names.hpp"

namespace ikfix::core {

struct RestPose;

struct FingerChain {
  PartKind kind = PartKind::Finger;  // Thumb, Index, Middle, Ring, Pinky
  std::vector<int> joints;           // from the hand outwards
  std::vector<double> positions;     // distance of each joint from the hand joint / forearm length
};

struct ArmParts {
  int clavicle = -1, upper = -1, lower = -1, hand = -1;  // -1 when the rig has none
  std::vector<FingerChain> fingers;
  bool side_from_names = false;  // else from the rest pose (left = up x forward)
};

struct LegParts {
  int hip_socket = -1;  // joint between pelvis and thigh (CMU LHipJoint, SL lButtock)
  int thigh = -1, shin = -1;
  int foot = -1;  // ankle joint; -1 when the ankle is only the shin's end point
  bool foot_is_shin_end = false;
  int toe = -1;
  bool side_from_names = false;
};

struct BodyParts {
  int hips = -1;
  std::vector<int> spine;  // hips (exclusive) up to the joint the arms hang from (inclusive)
  std::vector<double>
      spine_heights;      // per spine joint: height above the thigh joints / same for the top
  std::vector<int> neck;  // above the spine top, below the head
  std::vector<double> neck_heights;  // per neck joint: height above the spine top / head's
  int head = -1;
  std::array<ArmParts, 2> arms;  // [0] left, [1] right
  std::array<LegParts, 2> legs;
  Vec3 left_ws{1, 0, 0};         // the character's left in the rest pose (world, unit)
  std::vector<char> excluded;    // per joint: control/IK/helper/weapon or outside the body
  std::vector<JointName> names;  // per joint

  bool has_legs() const { return legs[0].thigh >= 0 && legs[1].thigh >= 0; }
};

// Never throws; parts not found stay -1 / empty.
BodyParts find_body_parts(const RestPose& rest);

}  // namespace ikfix::core
