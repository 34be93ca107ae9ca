#pragma once
// The patch writer's default self-check: the bytes about to be written are parsed again with our
// own FBX reader (every record checked; the scene - GlobalSettings, Definitions, Objects and
// Connections - built as a read builds it, the curves' contents only for the edited joints),
// and only the edited joints' curves are decoded and sampled at every frame of every patched
// take and compared with the pose the core asked for. It proves the file is well formed (every
// record's end offset), that the curves are connected to the right Models in the right take
// and layer, and that their keys give back the intended poses - at a fraction of a read's cost,
// where Assimp's re-read (verify.hpp) costs about 1.5 reads. The Assimp cross-check stays in the
// tests and behind fbx::set_assimp_check / `--verify-assimp`.
#include <string>
#include <vector>

#include "io/fbx/clip.hpp"
#include "io/fbx/patch.hpp"
#include "io/fbx/verify.hpp"

namespace ikfix::io::fbx {

// Parses `bytes` and compares, for every patched take and frame, each edited joint's local
// rotation and translation (the Model's static pivots, offsets and pre/post rotations applied
// to the curves' values, as the reader samples them) and its world position and rotation
// (forward kinematics with the read values for the edited joints, the intended elsewhere) with
// the intended clip, within kVerifyPositionTolerance / kVerifyRotationToleranceDeg. Each edited
// rotation curve (and translation curve, where one was written) must have a key at every frame.
// Throws InputError naming `file`, the take, the joint and the frame on any mismatch.
VerifyReport verify_readback(const std::string& bytes, const std::string& file,
                             const ClipDocument& cd, const std::vector<PatchedTake>& patched);
// Same, reading `bytes` in place instead of from a copy (a save's whole file: copying it cost a
// tenth of the check): they are moved into the document read back and moved back when the check
// passes or fails on a mismatch; when they do not even parse, nothing is to be written and
// `bytes` is left empty.
VerifyReport verify_readback_borrowing(std::string& bytes, const std::string& file,
                                       const ClipDocument& cd,
                                       const std::vector<PatchedTake>& patched);

}  // namespace ikfix::io::fbx
