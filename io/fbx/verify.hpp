#pragma once
// The patch writer proves itself: the bytes it is about to write are read back through Assimp
// and every edited joint is compared with the pose the core asked for.
#include <string>
#include <vector>

#include "io/fbx/clip.hpp"
#include "io/fbx/patch.hpp"

namespace ikfix::io::fbx {

// Tolerances of the check, in world units (metres) and degrees.
inline constexpr double kVerifyPositionTolerance = 1e-4;
inline constexpr double kVerifyRotationToleranceDeg = 0.01;

// Largest differences found by verify_with_assimp.
struct VerifyReport {
  double max_position_error_m = 0.0;   // world position of an edited joint
  double max_rotation_error_deg = 0.0; // world rotation of an edited joint
  double max_local_rotation_error_deg = 0.0;
  int keys_checked = 0;
};

// Reads `bytes` with Assimp (aiProcess_ValidateDataStructure only, FBX pivots not preserved) and
// compares, for every patched take and frame, the local rotation and translation of each edited
// joint (Assimp's key at that frame) and its world position and rotation (forward kinematics
// with Assimp's values for the edited joints, the intended values elsewhere) with the intended
// clip. Throws InputError naming `file`, the take, the joint and the frame when Assimp cannot
// read the bytes or a difference exceeds the tolerances.
VerifyReport verify_with_assimp(const std::string& bytes, const std::string& file, const ClipDocument& cd,
                                const std::vector<PatchedTake>& patched);

}  // namespace ikfix::io::fbx
