#pragma once
// The Assimp cross-check of the patch writer: the bytes it is about to write are read back
// through Assimp and every edited joint is compared with the pose the core asked for. Every
// save is checked with our own reader (verify_readback.hpp); this independent second reader
// costs about 1.5 reads, so it runs in the tests and when asked (set_assimp_check,
// `ikfix run/batch --verify-assimp`).
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
  double max_position_error_m = 0.0;    // world position of an edited joint
  double max_rotation_error_deg = 0.0;  // world rotation of an edited joint
  double max_local_rotation_error_deg = 0.0;
  int keys_checked = 0;
};

// Reads `bytes` with Assimp (aiProcess_ValidateDataStructure only, FBX pivots not preserved) and
// compares, for every patched take and frame, the local rotation and translation of each edited
// joint (Assimp's key at that frame) and its world position and rotation (forward kinematics
// with Assimp's values for the edited joints, the intended values elsewhere) with the intended
// clip. Throws InputError naming `file`, the take, the joint and the frame when Assimp cannot
// read the bytes or a difference exceeds the tolerances.
VerifyReport verify_with_assimp(const std::string& bytes, const std::string& file,
                                const ClipDocument& cd, const std::vector<PatchedTake>& patched);

// Whether fbx::save and fbx::save_new_take also run verify_with_assimp (off by default). Set
// once, before saving (the flag is atomic, so threads saving meanwhile see one value or the
// other).
void set_assimp_check(bool on);
bool assimp_check();

}  // namespace ikfix::io::fbx
