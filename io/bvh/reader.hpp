#pragma once
// BVH reader: text -> Document, and Document -> core Skeleton + Clip.
//
// Accepted: any channel order per joint, 0..6 channels per joint (no duplicates), several ROOTs,
// End Sites, LF / CRLF / CR / mixed line endings, tabs and extra spaces anywhere on a line,
// blank lines, a UTF-8 byte order mark, keywords and channel names in any letter case, joint
// names with spaces, "{" on the keyword's line or the next one.
// Rejected with InputError(file, line, cause): everything else, including a frame line with the
// wrong number of values, non-finite or out-of-range values, fewer frame lines than "Frames:"
// says, more frame lines (unless ParseOptions::allow_extra_frame_lines), Frame Time <= 0.
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/clip.hpp"
#include "core/parallel.hpp"
#include "core/skeleton.hpp"
#include "io/bvh/document.hpp"
#include "io/joint_read.hpp"

namespace ikfix::io::bvh {

struct ParseOptions {
  // Some exporters write one frame line more than "Frames:" declares (e.g. boxing_toes.bvh:
  // "Frames: 3069" and 3070 lines). false: an InputError at the first surplus line.
  // true: the clip keeps the declared frame count; surplus lines must still be well-formed
  // frames, are counted in Document::extra_frame_lines and are written back verbatim.
  bool allow_extra_frame_lines = false;
  // Threads for the frame lines (null: this thread only). The MOTION section is cut into blocks
  // of whole lines parsed at once; the Document and any error (its text and line) are the same
  // as a serial parse's.
  const core::ParallelRunner* runner = nullptr;
  // More joints than this (ROOT and JOINT entries) is an InputError once the hierarchy is read,
  // before the motion is. 0: no limit.
  int max_joints = 0;
  // For a caller that uses only some channels' numbers: called once the hierarchy and the
  // MOTION header are read, before the frame lines, with the Document so far; returns per
  // channel (channel_count flags) whether to make its numbers. The others' values are read as
  // strictly (the same errors) and their decimals counted, but not converted: Document::values
  // holds NaN there and Document::channels_read records the flags. Position channels are always
  // made (detect_position_convention reads them). Unset, or an empty result: every channel.
  std::function<std::vector<char>(const Document&)> channels_to_read;
};

// Parses `text` (copied into the Document). `source_name` names the file in error messages.
Document parse(std::string_view text, const std::string& source_name,
               const ParseOptions& options = {});
// Same, taking ownership of `text` (no copy).
Document parse_owned(std::string text, const std::string& source_name,
                     const ParseOptions& options = {});
// Reads and parses a file, mapped into memory (io::MappedFile; the Document keeps the mapping);
// errors name `path`.
Document read_file(const std::filesystem::path& path, const ParseOptions& options = {});

// How `doc`'s position channels are meant (parse() sets Document::positions with it): channels
// only when at least one non-root joint has X, Y and Z position channels and a non-zero OFFSET,
// and on every such joint the values lie closer to the OFFSET than to zero (mean distance over
// the frames); else OFFSET plus channels, what the BVH format says. A root's OFFSET is 0 in
// most files, so roots tell nothing and follow the non-root joints.
PositionConvention detect_position_convention(const Document& doc);

// Joint names, parents, rest = (OFFSET, identity, unit scale), End Sites of each joint.
core::Skeleton skeleton(const Document& doc);

// fps = 1 / Frame Time. Per frame and joint: translation = OFFSET + position channel values
// (missing axes add 0; with PositionConvention::channels_only the values replace the OFFSET's
// axes), rotation = product of the rotation channels in the order listed
// (degrees; "Zrotation Yrotation Xrotation" gives Rz * Ry * Rx), scale 1.
// Frames are independent: with a `runner` they are converted on its threads, same bits.
core::Clip clip(const Document& doc, const core::ParallelRunner* runner = nullptr);

// As clip(), for a caller that reads only some joints' motion: converts the joints with
// read[j] == kJointRead (joint_count flags, io/joint_read.hpp; std::invalid_argument otherwise),
// bit for bit as clip() does, gives those with kJointTranslationOnly the same translation and
// scale with a NaN rotation, and every other joint unread_transform() in every frame, so that
// any use of what was not read shows (NaN through FK, a refusal from the writers) instead of
// passing for real motion. Saves the Euler -> quaternion conversion of joints nobody reads
// (`ikfix run` on a mocap skeleton reads 11 of 31: the legs and their ancestors; with a report,
// every joint but the leaves outside those, whose translation only the measures read).
core::Clip clip_of_joints(const Document& doc, std::span<const char> read,
                          const core::ParallelRunner* runner = nullptr);

// The transform of a joint clip_of_joints did not read: NaN translation, rotation and scale.
core::Transform unread_transform();

}  // namespace ikfix::io::bvh
