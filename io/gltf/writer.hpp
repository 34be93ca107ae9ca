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

#include "core/clip.hpp"
#include "io/gltf/document.hpp"
#include "io/gltf/reader.hpp"

namespace ikfix::io::gltf {

struct TakeEdit {
  const TakeLayout* layout = nullptr;  // from extract_take; its document is the one written
  const core::Clip* original = nullptr;  // the clip as read (to find which components changed)
  const core::Clip* edited = nullptr;    // same joints and frames as `original`
  std::span<const char> changed;         // per joint: non-zero when the joint may have changed
};

// Returns the bytes of the patched file, to be written at `output_path` (used only to rewrite
// relative uris of a .gltf written to another folder). All edits must come from `doc` and name
// different animations. Throws InputError naming the file, the joint and the cause (e.g. a
// node with a `matrix`, which glTF cannot animate).
std::string write(const Document& doc, std::span<const TakeEdit> edits, const std::filesystem::path& output_path);

// write() then an atomic write to `path` (temp file + rename).
void save(const std::filesystem::path& path, const Document& doc, std::span<const TakeEdit> edits);

}  // namespace ikfix::io::gltf
