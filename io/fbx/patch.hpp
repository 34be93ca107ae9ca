#pragma once
// The FBX patch writer: replaces the animation curves of edited joints in one take with
// per-frame keys, leaving every other node as it was.
#include <span>
#include <vector>

#include "core/clip.hpp"
#include "io/fbx/clip.hpp"

namespace ikfix::io::fbx {

// What patch_take wrote, for the Assimp check.
struct PatchedTake {
  int take = 0;
  TakeTiming timing;
  std::vector<int> joints;            // core joints whose curves were written
  const core::Clip* edited = nullptr; // the intended local transforms (not owned)
  core::ClipSpace space;              // clip -> world metres, for the tolerances
};

// For every joint j of take `take` with changed[j] != 0:
// - Lcl Rotation: one key per frame (the take's frames, LocalStart..LocalStop) on d|X, d|Y and
//   d|Z, Euler degrees in the Model's own RotationOrder with its PreRotation and PostRotation
//   taken out (R = Pre^-1 * Q * Post, Q the core's local rotation), each angle the equivalent
//   nearest the previous frame's (frame 0: nearest the original curve value).
// - Lcl Translation: the same, when the core moved the joint (root / pelvis) or when the joint's
//   pivots and offsets make its translation depend on its rotation (T = t - Roff - Rp - Q (Soff +
//   Sp - S Sp - Rp)), so the written joint lands where the core put it.
// Existing curves are rewritten in place (KeyTime, KeyValueFloat, KeyAttrFlags,
// KeyAttrDataFloat, KeyAttrRefCount; linear keys); missing curves and curve nodes are created,
// connected to the Model and the take's layer, and counted in Definitions. Throws InputError
// for joints the file cannot express: changed scale, spherical rotation order, a shared curve
// node, or sizes that do not match the take.
PatchedTake patch_take(ClipDocument& cd, int take, const core::Clip& edited, std::span<const char> changed);

// Euler angles (degrees, x y z) in `order` for rotation `q`, the equivalent nearest `reference`.
core::Vec3 quat_to_euler(const core::Quat& q, RotationOrder order, const core::Vec3& reference);

}  // namespace ikfix::io::fbx
