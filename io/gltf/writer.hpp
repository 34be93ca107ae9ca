#pragma once
// glTF patch writer: the original asset with only the edited joints' animation replaced.
//
// For every joint flagged in `changed` and every one of its translation / rotation / scale
// components whose values differ from the clip as read (so usually rotation, plus translation
// for the pelvis), the joint's channel for that component in the take's animation gets a new
// sampler: LINEAR interpolation at the take's frame times (one new time accessor per take, with
// min/max as the spec requires) and a new float output accessor (rotations as unit quaternions,
// sign-continuous from frame to frame). When the old sampler served only that channel it is
// replaced in place (same index; its other members such as extras are kept); when it is shared
// a new sampler is appended and the channel repointed; a joint without a channel gets a new
// channel. Each new accessor has its own new bufferView. Untouched samplers, accessors and
// buffer bytes are not rewritten; accessors the edit no longer uses stay in the file (the
// validator lists them as UNUSED_OBJECT infos).
//
// Where the new bytes go:
// - .glb: appended to the BIN chunk (after its original bytes, 4-byte aligned) and
//   buffers[0].byteLength updated. A .glb without BIN chunk and without buffers gets one.
// - .gltf (embedded or external buffers): one new buffer holding all new bytes, embedded as a
//   base64 data URI, so the output is a single file written atomically and never overwrites or
//   depends on a new side file.
// - .gltf written to another folder than the input's: relative uris of buffers and images are
//   rewritten to point back at the input's files (nothing is copied).
//
// The JSON is patched as text: every byte outside the replaced samplers/channels, the appended
// array elements and the changed byteLength / uris stays as it was. With no edit (nothing
// differs), the output is the input byte for byte.
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "core/clip.hpp"
#include "io/gltf/document.hpp"
#include "io/gltf/reader.hpp"

namespace ikfix::io::gltf {

struct TakeEdit {
  const TakeLayout* layout = nullptr;    // from extract_take; its document is the one written
  const core::Clip* original = nullptr;  // the clip as read (to find which components changed)
  const core::Clip* edited = nullptr;    // same joints and frames as `original`
  std::span<const char> changed;         // per joint: non-zero when the joint may have changed
};

// Returns the bytes of the patched file, to be written at `output_path` (used only to rewrite
// relative uris of a .gltf written to another folder). All edits must come from `doc` and name
// different animations. Throws InputError naming the file, the joint and the cause (e.g. a
// node with a `matrix`, which glTF cannot animate).
std::string write(const Document& doc, std::span<const TakeEdit> edits,
                  const std::filesystem::path& output_path);

// write() then an atomic write to `path` (temp file + rename).
void save(const std::filesystem::path& path, const Document& doc, std::span<const TakeEdit> edits);

// A new animation for a character: `clip` holds local TRS (metres) of the nodes `joint_nodes`
// (TakeLayout::joint_nodes of the character), frame f at f / clip.fps seconds.
struct NewAnimation {
  std::string name;
  const std::vector<int>* joint_nodes = nullptr;
  const core::Clip* clip = nullptr;
  std::span<const char> animated;  // per joint: non-zero to animate it
  bool replace_others = false;     // drop the file's other animations (their data stays, unused)
};

// The file with `animation` added: for every animated joint, a translation and a rotation
// channel (a scale channel too when the clip's scale leaves the node's), LINEAR samplers sharing
// one new time accessor, each output in a new accessor and bufferView; new bytes go where
// `write` puts them (GLB: appended to the BIN chunk; .gltf: a new embedded buffer). Every other
// byte of the JSON text and buffers stays. Throws InputError (name taken without
// replace_others, sizes, a node with a matrix, non-finite values).
std::string write_new_animation(const Document& doc, const NewAnimation& animation,
                                const std::filesystem::path& output_path);

// write_new_animation then an atomic write to `path`, which must name the same container
// (.glb / .gltf) as `doc`.
void save_new_animation(const std::filesystem::path& path, const Document& doc,
                        const std::vector<int>& joint_nodes, const core::Clip& clip,
                        std::span<const char> animated, const std::string& name,
                        bool replace_others);

}  // namespace ikfix::io::gltf
