#pragma once
// The FBX patch writer: replaces the animation curves of edited joints in one take with
// per-frame keys, leaving every other node as it was.
#include <span>
#include <string>
#include <vector>

#include "core/clip.hpp"
#include "io/fbx/clip.hpp"

namespace ikfix::io::fbx {

// What patch_take wrote, for the Assimp check.
struct PatchedTake {
  int take = 0;
  TakeTiming timing;
  std::vector<int> joints;             // core joints whose curves were written
  const core::Clip* edited = nullptr;  // the intended local transforms (not owned)
  core::ClipSpace space;               // clip -> world metres, for the tolerances
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
PatchedTake patch_take(ClipDocument& cd, int take, const core::Clip& edited,
                       std::span<const char> changed);

// The joints patch_take will be asked to write in one take.
struct TakeJoints {
  int take = 0;
  std::span<const char> changed;
};
// A copy of `cd` to patch_take `takes` into, leaving `cd` as read - cheaper than copying it
// whole: the nodes the patch neither reads nor changes (every Object but the curves of the
// edited joints' Models, the curves not decoded yet, and the curves a take without a stored
// time range is timed by; every Connection) are deferred nodes holding no properties or
// children, which the writers copy from the bytes. For patch_take and writing only; add_take
// needs a whole copy (it reads and removes any Object).
ClipDocument copy_for_patch(const ClipDocument& cd, std::span<const TakeJoints> takes);

// Adds a take called `name` to the document: a new AnimationStack (LocalStart 0, LocalStop the
// clip's last frame) with one AnimationLayer, and for every joint j with animated[j] != 0 new
// Lcl Rotation and Lcl Translation curve nodes and curves (one linear key per clip frame, at
// round(f * ticks per second / clip.fps); converted as patch_take converts: Euler degrees in the
// Model's RotationOrder, Pre/PostRotation and pivots taken out), plus Lcl Scaling curves for a
// joint whose scale in the clip differs from its Model's (InheritType Rrs: the parent's scale
// multiplied back in). `clip` is in the character's own local space (same joints as cd.skeleton).
// Definitions counts follow (ObjectTypes the file lacks are added); the top-level Takes list,
// when present, gets an entry. Nothing else changes: meshes, skins, materials, control nodes
// and other takes keep their nodes. With `replace_takes`, every other take goes with all its
// AnimationStack/Layer/CurveNode/Curve objects and their connections (Takes lists only the new
// one, which becomes Current). Throws InputError for a name already taken (without
// replace_takes), sizes that do not match, or joints the file cannot express (as patch_take).
PatchedTake add_take(ClipDocument& cd, const std::string& name, const core::Clip& clip,
                     std::span<const char> animated, bool replace_takes);

// Euler angles (degrees, x y z) in `order` for rotation `q`, the equivalent nearest `reference`.
core::Vec3 quat_to_euler(const core::Quat& q, RotationOrder order, const core::Vec3& reference);

}  // namespace ikfix::io::fbx
