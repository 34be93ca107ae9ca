#pragma once
// Motion transfer from one skeleton to another (the FK part of retargeting): each mapped target
// bone copies its source bone's world-space rotation delta from the rest pose, after the target's
// rest pose has been turned to face like the source and each bone's rest direction aligned to
// its source bone's (so A-pose, T-pose and arms-down rigs drive each other with no user posing).
// The hips travel the source's path scaled by the leg-length ratio and stand on the ground.
// Feet are then fixed by the usual foot stage (core/fix), driven by the source's contacts.
//
// World space is ikfix's: metres, Y up; each side's ClipSpace maps its clip units and axes to it.
#include <optional>
#include <string>
#include <vector>

#include "core/clip.hpp"
#include "core/legs.hpp"
#include "core/retarget/bone_map.hpp"
#include "core/skeleton.hpp"

namespace ikfix::core {

struct RetargetSettings {
  bool align_rest = true;       // align target rest bone directions to the source's
  std::optional<double> scale;  // horizontal root scale; unset: target/source leg length
  // 0..1: how far the hands reach where the source's are (in arm lengths from the shoulder)
  // instead of only copying bone directions (see core/retarget/limb_reach.hpp).
  double arm_reach = 1.0;
};

struct RetargetInput {
  const Skeleton* source = nullptr;
  const Clip* source_clip = nullptr;
  ClipSpace source_space;
  LegRig source_legs;
  const Skeleton* target = nullptr;  // its rest pose is the reference; its motion is ignored
  ClipSpace target_space;
  LegRig target_legs;
  const BoneMap* map = nullptr;
  RetargetSettings settings;
};

// Rest alignment of one mapped bone.
struct BoneAlignment {
  int pair = -1;         // index into BoneMap::pairs
  double angle_rad = 0;  // rotation that took the target rest bone onto the source's direction
  bool has_direction = false;  // false: no mapped child on both sides; the parent's alignment used
};

struct RetargetResult {
  Clip clip;                       // target skeleton, source frame count and rate, target units
  std::vector<char> animated;      // per target joint: written (all but the excluded controls)
  double scale = 1;                // horizontal (and vertical motion) root scale used
  std::string scale_method;        // "leg length" or "user"
  double source_leg_length_m = 0;  // thigh + shin, rest, longer leg
  double target_leg_length_m = 0;
  double ground_offset_m = 0;  // vertical shift that put the target's feet on the ground
  // Where the target's lowest planted foot point stands after the ground shift (world Y,
  // metres; median over the source's contacts, before the foot stage). A target whose rest pose
  // stands on y = 0 (`target_rest_on_ground`) is shifted so its ankles and balls are planted
  // no higher than at rest, the nearest exactly there; any other stands where the source's
  // feet do, scaled (`scale` times the source's level).
  double ground_level_m = 0;
  bool target_rest_on_ground = false;
  int raised_toe_frames = 0;    // toe-frames turned up so the tip stands as high as the source's
  double facing_angle_rad = 0;  // rotation of the target's rest frame onto the source's
  std::vector<BoneAlignment> alignment;
  std::vector<std::string> warnings;
};

// Leg length (hip-to-knee + knee-to-ankle, longer leg) of a skeleton's rest pose, metres.
double rest_leg_length(const Skeleton& skeleton, const ClipSpace& space, const LegRig& legs);

// The transfer. `source_contacts[leg][frame]` (planted flags of the source, may be empty) decide
// where the target's feet meet the ground; without them the lowest foot frames are used.
// Throws std::invalid_argument when the map lacks hips or legs on either side.
RetargetResult retarget_clip(const RetargetInput& input,
                             const std::vector<char> (&source_contacts)[2]);

}  // namespace ikfix::core
