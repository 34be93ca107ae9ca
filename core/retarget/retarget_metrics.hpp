#pragma once
// How good a retarget is, measured without a human (research/retargeting.md §3): the shape of the
// limbs against the source (end-effector error normalised by limb length, bone-direction error)
// and the feet during the source's contact frames (sliding, float, penetration, contact match).
// Lengths metres, speeds m/s, angles radians, frames 0-based.
#include <string>
#include <vector>

#include "core/clip.hpp"
#include "core/legs.hpp"
#include "core/retarget/bone_map.hpp"
#include "core/skeleton.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

// One limb on both sides: base joint (hip or shoulder) to end (ankle or wrist).
struct LimbChain {
  std::string name;  // "left leg", "right arm", ...
  int source_base = -1, source_end = -1;
  int target_base = -1, target_end = -1;
  bool target_end_site = false;  // the target's end is the end site of target_end (barbarian ankle)
  bool is_leg = false;
};

// Legs from the two leg rigs; arms from the map's upper_arm and hand roles (when both mapped).
std::vector<LimbChain> limb_chains(const BoneMap& map, const LegRig& source_legs,
                                   const LegRig& target_legs);

struct ChainError {
  std::string name;
  double mean = 0, max = 0;  // |(ee - base)/L| target - source, dimensionless
  int worst_frame = 0;
};

struct FeetAtContacts {
  double slide_mean_mps = 0,
         slide_max_mps = 0;  // slower of heel/toe, horizontal, source contact frames
  // Float as `ikfix check` measures it: the lowest foot point (ankle, toe joint) above the level
  // it has when planted (5th percentile over the contact frames, above the terrain); mean and max.
  double float_mean_m = 0, float_max_m = 0;
  // Median over contact frames of the lowest foot point above the terrain: where the feet meet
  // the ground (a skeleton has no sole; a mocap ankle and toe sit some centimetres up).
  double ground_gap_m = 0;
  double penetration_max_m = 0;  // deepest foot point below the terrain
  int worst_slide_frame = -1, worst_slide_leg = -1;
  double contact_precision = 1, contact_recall = 1;  // target contacts vs source contacts
  int source_contact_frames = 0, target_contact_frames = 0;
};

struct RetargetQuality {
  std::vector<ChainError> chains;
  double direction_error_mean_rad = 0, direction_error_max_rad = 0;  // limb bones (sided roles)
  std::string direction_worst_bone;
  int direction_worst_frame = 0;
  double max_bone_length_change = 0;  // relative, target output vs target rest
  FeetAtContacts feet;
};

struct RetargetMeasureInput {
  const Skeleton* source = nullptr;
  const Clip* source_clip = nullptr;
  ClipSpace source_space;
  const Skeleton* target = nullptr;
  const Clip* target_clip = nullptr;
  ClipSpace target_space;
  const BoneMap* map = nullptr;
  std::vector<LimbChain> chains;
  LegRig target_legs;
  const std::vector<char>* source_contacts = nullptr;  // [2], per frame; may be null
  const std::vector<char>* target_contacts =
      nullptr;                       // [2], detected on the target output; may be null
  const Terrain* terrain = nullptr;  // null: flat ground at y = 0
};

RetargetQuality measure_retarget(const RetargetMeasureInput& input);

}  // namespace ikfix::core
