#pragma once
// Clip files in and out, whatever the format. A LoadedClip keeps the format's own document so
// the writer can patch the original (untouched joints keep their bytes) instead of regenerating.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/clip.hpp"
#include "core/parallel.hpp"
#include "core/skeleton.hpp"
#include "core/skin.hpp"
#include "io/joint_read.hpp"

namespace ikfix::io {

struct LoadedClip;

// The joints whose motion a caller reads (ClipLoadOptions::joints_to_read).
struct JointsToRead {
  std::vector<int> whole;  // translation and rotation (kJointRead); empty: every joint's
  // Translation only (kJointTranslationOnly), unless also in `whole`: joints whose rotation the
  // caller never reads (leaves it measures the translation of). Ignored when `whole` is empty.
  std::vector<int> translation_only;
};

struct ClipLoadOptions {
  std::optional<double> metres_per_unit;  // overrides the file / the guess
  std::optional<char> up_axis;            // 'y' or 'z'; overrides the file
  // Which take (FBX AnimationStack, glTF animation) to load: its name, or its 0-based index as
  // text. Unset: the first take. Single-take formats (BVH) accept only "0" or their one name.
  std::optional<std::string> take;
  // Threads the reader may use for one file (null: this thread only). The result is the same
  // bit for bit. Used by the BVH reader (frame lines and Euler -> quaternion); others ignore it.
  const core::ParallelRunner* runner = nullptr;
  // For a caller that reads only some joints' motion (`ikfix run` writing the same format: the
  // legs and their ancestors; with a report, every joint, the leaves outside those by their
  // translation only). Called once the skeleton, units and axes are known, with the LoadedClip
  // as it will be returned but no motion yet (a BVH's: before its frame lines are read, so
  // without its document and warnings); returns the joints whose motion to read. Used by the BVH
  // reader (only the listed joints' channels' numbers are made from the text, the Euler ->
  // quaternion conversion of the other joints is skipped; they hold bvh::unread_transform(),
  // NaN, in every frame, or for `translation_only` a NaN rotation) and recorded in
  // LoadedClip::joints_read; other formats read every joint and ignore it. Unset, or an empty
  // `whole`: every joint. load_takes and load_character ignore it.
  std::function<JointsToRead(const LoadedClip&)> joints_to_read = nullptr;
};

struct LoadedClip {
  std::filesystem::path path;
  std::string format;     // "bvh", ...
  std::string take_name;  // name of the loaded take ("" when the format has none)
  int take_index = 0;     // 0-based; -1: no take, `clip` is one frame of the rest pose
  int take_count = 1;     // takes in the file
  core::Skeleton skeleton;
  core::Clip clip;
  core::ClipSpace space;  // clip units/axes -> world metres, Y up
  char up_axis = 'y';
  std::string unit_name;    // "cmu", "cm", ...
  std::string unit_source;  // "file", "user" or "guessed"
  std::string unit_reason;  // why, when guessed
  // Per joint, how much of its motion `clip` holds (io/joint_read.hpp): empty when every joint
  // was read (the default), else kJointRead or kJointTranslationOnly for the joints
  // ClipLoadOptions::joints_to_read asked for and kJointUnread (NaN) for the others. save_clip
  // refuses to write a joint not wholly read or to convert such a clip; measure callers check
  // that no joint is unread.
  std::vector<char> joints_read;
  bool all_joints_read() const { return joints_read.empty(); }
  std::vector<std::string> warnings;  // things the reader tolerated, for the report
  // The character's skinned meshes (every skinned vertex, posed by core::skinned_position with
  // FK of `skeleton`), for measuring the whole foot: null when the file has no skinned mesh or
  // its reader does not read skins (BVH has none).
  std::shared_ptr<const core::Skin> skin;
  std::shared_ptr<const void> document;  // format-specific, for writing back
};

// Reads any supported clip file. Throws InputError naming the file and the problem (and what
// ClipLoadOptions::joints_to_read throws).
LoadedClip load_clip(const std::filesystem::path& path, const ClipLoadOptions& options = {});

// Reads a target character: its skeleton with every joint of the armature (control and IK bones
// included: the caller decides what to drive), its rest pose (Skeleton::rest: FBX the skin's
// BindPose where it lists the joint, else the Model's own transform; glTF the nodes' TRS; BVH
// the OFFSETs), units and axes (`space`, resolved as load_clip does) and the format
// document, for files with or without animation.
// - FBX: every bone Model and every Model that deforms a skin, with their ancestors.
// - glTF/GLB: the joints of the skin with the most joints plus their ancestors; a file without
//   skins (skeleton-only asset): every node.
// - BVH (and other formats): as load_clip.
// FBX and glTF leaf joints named "*_end" become their parent's end site (io/end_leaves.hpp).
// `clip` is the take ClipLoadOptions::take names, else the first take that animates the
// skeleton, else one frame (at t = 0) of the rest pose with take_index = -1 (save_clip and
// save_takes refuse such a LoadedClip; use save_new_take). Throws InputError.
LoadedClip load_character(const std::filesystem::path& path, const ClipLoadOptions& options = {});

// Every take of the file that animates the skeleton, in file order, all sharing one document so
// they can be written together with save_takes (BVH and other single-take formats: the one
// take). ClipLoadOptions::take is ignored. Throws InputError as load_clip when no take is usable.
std::vector<LoadedClip> load_takes(const std::filesystem::path& path,
                                   const ClipLoadOptions& options = {});

// Writes `edited` (same skeleton and frame count as `loaded.clip`) in the input's format,
// replacing only the joints flagged in `changed`. Atomic. Throws InputError; std::logic_error
// when `loaded` was read for some joints only (joints_read) and a changed joint is not one of
// them, or the clip would be converted (which writes every joint).
// When `path`'s extension names another format (.bvh, .fbx, .gltf, .glb) than the input's, the
// clip is converted instead, where that loses nothing: to .bvh from any format
// (bvh::write_new: every joint where the edited clip puts it, the clip's units, Y up); other
// conversions (e.g. .bvh -> .fbx, .gltf <-> .glb) are an InputError saying so. Same for
// save_takes, where a BVH output takes one take only.
// `runner` (optional): threads the writer may use; the bytes are the same (used by the BVH
// patch writer; other writers ignore it).
// `changed_rotations` (optional, frame-major [frame * joint_count + joint], as
// core::FixResult::changed_rotations): 0 where the edited rotation is the loaded one bit for bit,
// so the BVH patch writer keeps that key's text instead of re-encoding it; other writers ignore it.
void save_clip(const std::filesystem::path& path, const LoadedClip& loaded,
               const core::Clip& edited, std::span<const char> changed,
               const core::ParallelRunner* runner = nullptr,
               std::span<const char> changed_rotations = {});

// True when save_clip writes `loaded` to `path` by converting it to another format (the
// extension names one): every joint is then written anew, so every joint's motion is needed.
bool save_converts(const std::filesystem::path& path, const LoadedClip& loaded);

// True when save_clip / save_takes read `loaded.clip` (the motion as loaded) as well as the
// edited one: the glTF writer compares them to find the samplers to replace. Otherwise a
// caller may edit the loaded motion itself (moved out of `loaded`) instead of a copy.
bool save_reads_loaded_motion(const LoadedClip& loaded);

// One fixed take for save_takes: the take as loaded, its edited clip and changed-joint flags.
struct TakeEdit {
  const LoadedClip* loaded = nullptr;
  const core::Clip* edited = nullptr;
  std::span<const char> changed;
};
// Writes several takes of the same file at once (all `loaded` must come from the same path and
// share its document); takes not listed keep their bytes. Atomic. Throws InputError.
void save_takes(const std::filesystem::path& path, std::span<const TakeEdit> edits,
                const core::ParallelRunner* runner = nullptr);

// Writes a copy of the character's file (loaded with load_character) with a new take `take_name`
// made of `clip` (local transforms of character.skeleton's joints, in the character's own units
// and axes, any frame count and rate), animating the joints with animated[j] != 0. The others
// keep the file's own static transform in the new take (FBX: the Model's Lcl properties, which
// may be a pose other than the bind-pose rest; glTF: the node's TRS): flag every joint whose
// pose matters. Everything else in the file stays as it was.
// With `replace_takes`, the file's other takes are dropped. Per format:
// - FBX: a new AnimationStack/AnimationLayer with rotation and translation curves (fbx::add_take),
//   read back through Assimp before it is written; binary and ASCII.
// - glTF/GLB: a new animation (gltf::save_new_animation): new samplers, accessors and
//   bufferViews appended, the original buffer bytes kept.
// - BVH: the character's hierarchy with the new motion (bvh::write_new; BVH holds one take, so
//   `take_name` and `replace_takes` do not apply).
// `path` must have the character's format (extension). Atomic. Throws InputError.
void save_new_take(const std::filesystem::path& path, const LoadedClip& character,
                   const core::Clip& clip, std::span<const char> animated,
                   const std::string& take_name, bool replace_takes);

// True when the file extension is one `load_clip` reads.
bool is_supported_clip(const std::filesystem::path& path);

// Rest-pose world points (joints and end sites) in the clip's units with Y up, for unit guessing.
std::vector<core::Vec3> rest_points_yup(const core::Skeleton& skeleton, char up_axis);

}  // namespace ikfix::io
