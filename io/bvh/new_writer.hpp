#pragma once
// A BVH written from scratch for any Skeleton + Clip (the patch writer in writer.hpp can only
// re-encode a BVH it read). Used to convert clips from other formats and to write a retargeted
// clip onto a BVH target.
//
// What the file holds (column vectors, the reader's conventions, see reader.hpp):
// - Units: the clip's own (no conversion); axes: Y up - NewFileOptions::up_rotation (the clip's
//   ClipSpace::to_world_rotation) is applied above the roots.
// - Rest rotations are baked. BVH has none: its zero pose has every joint frame aligned with the
//   world. So each joint's frame is re-oriented by its rest world rotation R_j (the product of
//   the rest rotations down to it, up_rotation included): OFFSET_j = R_p * S_p * rest.t_j and
//   the channels hold b_j = R_p * q_j * rest.q_j^-1 * R_p^-1 (p the parent, S_p its accumulated
//   scale). The written file's zero pose is the skeleton's rest pose, and at every frame every
//   joint and end site lands where forward kinematics of the input puts it; a joint's world
//   rotation is the input's times the constant R_j^-1.
// - Scale: a uniform, constant scale per joint (e.g. a x100 group node) is baked into the
//   translations below it (per frame and per axis, so the float noise of FBX scale curves keeps
//   positions exact, through position channels where it matters); a scale non-uniform or animated
//   by more than 1e-4 (relative) is refused: BVH stores none.
// - Channels: roots Xposition Yposition Zposition (the whole translation; a root's OFFSET is
//   zero) then the rotations; other joints rotations only, plus the three position channels
//   (translation - OFFSET, as ikfix's reader takes them; Blender and Assimp read non-root
//   position channels otherwise: see root_at_first_branch) when their translation animates. A
//   joint whose translation is constant over the clip but not its rest translation gets that
//   constant as OFFSET (its zero pose then differs from the rest pose by that much). Rotation order
//   ZXY by default (R = Rz * Rx * Ry), each frame's angles the equivalent nearest the previous
//   frame's (no +-360 jumps).
// - End Sites: a leaf joint's Skeleton::end_sites entry; when absent, a site a quarter of the
//   joint's own offset long along that offset (BVH readers expect one on every leaf).
// - Numbers: fixed notation; angles with 6 decimals, positions with enough decimals that one
//   step is at most 1e-9 of the skeleton's size; so forward kinematics of the file read back
//   matches the input to better than 1e-6 of the skeleton's size.
// - Names: bvh_safe_names.
// - Layout: one tab of indentation per hierarchy level, at most 64 (so the text grows linearly
//   with the joints of however deep a chain); written without recursion, at any depth.
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "core/clip.hpp"
#include "core/skeleton.hpp"

namespace ikfix::io::bvh {

struct NewFileOptions {
  std::string source_name;                     // names the clip in error messages
  core::Quat up_rotation{1.0, 0.0, 0.0, 0.0};  // clip axes -> Y up (ClipSpace::to_world_rotation)
  // Rotation channels in file order, as axes (0 = X, 1 = Y, 2 = Z): {2, 0, 1} writes
  // "Zrotation Xrotation Yrotation". Must be three distinct axes.
  std::array<int, 3> rotation_axes{2, 0, 1};
  // Fold the chain of one-child joints above the first joint that branches (group, armature and
  // control nodes above the pelvis: CesiumMan's Z_UP and Armature, Kenney's Root and HipsCtrl)
  // into that joint, which becomes the ROOT. Other tools (Blender, Assimp) read position channels
  // only on a ROOT as ikfix does, and a BVH's root is the pelvis; the folded joints are not
  // written (every written joint still lands exactly where it was).
  bool root_at_first_branch = false;
};

struct NewFile {
  std::string text;
  std::vector<int> joints;         // file joint k is skeleton joint joints[k] (depth-first order)
                                   // (folded joints of root_at_first_branch are not listed)
  std::vector<std::string> names;  // the name written for each skeleton joint
};

// Joint names BVH readers accept, deterministically: letters, digits and "_-.:" kept; spaces
// and other ASCII characters become '_'; accented Latin letters lose their accent ("tête" ->
// "tete"), other non-ASCII characters become '_'; an empty name becomes "joint_<index>"; a name
// taken by an earlier joint gets "_2", "_3", ... appended.
std::vector<std::string> bvh_safe_names(const std::vector<std::string>& names);

// The BVH text of `clip` (locals of `skeleton`'s joints, frame-major). Throws InputError naming
// options.source_name when the sizes do not match, a value is not finite or a scale cannot be
// stored.
NewFile write_new(const core::Skeleton& skeleton, const core::Clip& clip,
                  const NewFileOptions& options = {});

// write_new to `path` atomically (temp file + rename).
NewFile save_new(const std::filesystem::path& path, const core::Skeleton& skeleton,
                 const core::Clip& clip, const NewFileOptions& options = {});

}  // namespace ikfix::io::bvh
