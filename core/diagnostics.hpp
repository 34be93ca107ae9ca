#pragma once
// Plain results of a fix, from which io builds the JSON report. Units: metres, frames (0-based).
#include <string>
#include <utility>
#include <vector>

namespace ikfix::core {

// Consecutive frames where a foot could not reach its target after the pelvis limit.
struct UnreachableRange {
  int first = 0;
  int last = 0;
  double max_shortfall_m = 0;  // largest |ankle - target| in the range
  int worst_frame = 0;
  // "too far" (leg too short), "too low" (too far, the target mostly lower than the animated
  // foot: the ground drops away), "too close" (knee bend limit), "too high" (too close, the
  // target mostly higher: a step too high), "hip limit" (the leg would swing outside the hip
  // cone), "too steep" (planted on ground steeper than max_foot_tilt; the shortfall is the
  // sole's gap to it), "blocked" (a plant whose foot would sink into a riser or a wall and that
  // no move along the foot fits: the shortfall is the foot's deepest excess, plant_placement.hpp).
  std::string reason;
};

// A plant moved where its footprint fits (core/fix/plant_placement.hpp): the same horizontal
// move on each of its frames, eased in during the swing before it.
struct PlantMove {
  int first = 0;
  int last = 0;
  double move_m = 0;       // horizontal distance, metres
  double direction_x = 0;  // unit horizontal direction of the move, world x and z
  double direction_z = 0;
  std::string along = "backward";  // "backward" or "forward": against or along the foot
  double excess_m = 0;             // the deepest a foot point would have sunk there, metres
};

// Consecutive frames where the legs needed the pelvis lower than its limit allows (what is
// left over shows up as unreachable frames).
struct PelvisLimitRange {
  int first = 0;
  int last = 0;
  double max_needed_drop_m = 0;  // largest drop the legs asked for in the range
  int worst_frame = 0;
};

struct LegDiagnostics {
  std::string side;  // "left" / "right"
  int frames_in_contact = 0;
  int contact_count = 0;                    // number of plants
  std::vector<std::pair<int, int>> plants;  // [first, last] frames of each plant
  double max_correction_m = 0;              // largest ankle displacement vs the input
  int max_correction_frame = 0;
  int unreachable_frames = 0;
  std::vector<UnreachableRange> unreachable;
  double max_shortfall_m = 0;
  int worst_frame = -1;        // frame of max shortfall (-1: none)
  double mean_iterations = 0;  // solver iterations per frame
  int max_iterations = 0;
  double max_residual_m = 0;     // solver residual on reachable frames (convergence)
  double max_penetration_m = 0;  // planted frames: ankle/toe below their ground level
  std::vector<PlantMove> plant_moves;
  // Step 5c (core/fix/foot_clearance.hpp): frames whose toes bent further so every foot point
  // stays out of the terrain, frames whose foot was raised for it, and the largest raise.
  int toe_clearance_frames = 0;
  int foot_raise_frames = 0;
  double max_foot_raise_m = 0;
  // Step 6b (core/fix/shin_sole_clearance.hpp), for a foot skinned to the shin: frames whose
  // ankle target was raised so the sole posed with the solved shin stays out, the largest
  // raise, and the passes run. -1 frames: the foot is not on the shin (not reported).
  int shin_sole_raise_frames = -1;
  double max_shin_sole_raise_m = 0;
  int shin_sole_passes = 0;
};

struct FixDiagnostics {
  int frames = 0;
  double fps = 0;
  std::string solver;
  double leg_length_m = 0;     // hip-to-ankle, longer leg
  double floor_height_m = 0;   // clip floor used, world Y before the fix
  std::string floor_method;    // "file origin" / "estimated" / "user"
  double max_body_rise_m = 0;  // root following the terrain, signed extremes
  double min_body_rise_m = 0;
  double max_pelvis_drop_m = 0;
  double mean_pelvis_drop_m = 0;  // over all frames
  int heel_lift_frames = 0;       // leg-frames where a foot went up on its ball instead
  double max_heel_lift_rad = 0;   // of a deeper pelvis drop (FixSettings::max_heel_lift)
  int pelvis_limit_frames = 0;    // frames where the pelvis drop limit was reached
  std::vector<PelvisLimitRange> pelvis_limit;  // those frames, as ranges
  int off_terrain_frames = 0;         // frames with a foot outside the terrain (no ground below)
  double max_bone_length_change = 0;  // relative, measured on the output (should be ~1e-15)
  LegDiagnostics legs[2];
  std::vector<std::string> warnings;
};

}  // namespace ikfix::core
