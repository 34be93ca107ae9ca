#pragma once
// A BVH file kept whole: the original text plus what was parsed out of it, so the writer can
// re-emit every untouched byte and replace only the values of edited joints.
//
// Ownership: a Document shares the ownership of its text (`text_owner`: a string, or the mapped
// file read_file parsed); every TextSpan and frame offset is an offset into `text`, so a
// Document can be copied or moved freely, copies sharing the one text. Files of 4 GiB or more
// are rejected by the reader.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/math.hpp"
#include "core/unwritten_resize.hpp"

namespace ikfix::io::bvh {

enum class ChannelKind : std::uint8_t {
  Xposition,
  Yposition,
  Zposition,
  Xrotation,
  Yrotation,
  Zrotation
};

inline bool is_rotation(ChannelKind k) { return k >= ChannelKind::Xrotation; }
inline bool is_position(ChannelKind k) { return k <= ChannelKind::Zposition; }
// 0 = X, 1 = Y, 2 = Z.
inline int axis_of(ChannelKind k) { return static_cast<int>(k) % 3; }
// "Xposition", ..., "Zrotation" (the spelling BVH files use).
std::string_view channel_name(ChannelKind k);

// Bytes [offset, offset + length) of Document::text.
struct TextSpan {
  std::uint32_t offset = 0;
  std::uint32_t length = 0;
};

// What a joint's position channels hold. Most writers (CMU, 3ds Max, MotionBuilder) and readers
// (three.js, Assimp) add them to the joint's OFFSET; Blender's exporter writes on every joint
// its whole local translation (the OFFSET itself at rest), and its importer reads them so.
enum class PositionConvention : std::uint8_t {
  offset_plus_channels,  // translation = OFFSET + channel values
  channels_only,         // translation = channel values (axes without a channel: the OFFSET)
};

// The number a value's text holds, bit for bit as the reader reads it (io/bvh/reader.cpp); the
// text is one the reader accepted.
double read_value_text(std::string_view text);

// Line-ending style of the header and frame lines (informational; the text keeps each line's own).
enum class LineEndings : std::uint8_t { none, lf, crlf, cr, mixed };

// One ROOT or JOINT. End Sites are not joints: they are the `end_site` of their parent.
struct Joint {
  std::string name;
  int parent = -1;                     // index into Document::joints, -1 for a ROOT
  int line = 0;                        // 1-based line of its ROOT/JOINT keyword
  core::Vec3 offset{0.0};              // OFFSET, in the parent's space and the file's units
  std::vector<ChannelKind> channels;   // CHANNELS, in file order (0..6, no duplicates)
  int first_value = 0;                 // index of channels[0] within a frame's values
  std::optional<core::Vec3> end_site;  // OFFSET of the first End Site directly below it
};

struct Document {
  std::string source_name;  // as given to parse(); used in error messages
  std::string_view text;    // the whole file, byte for byte: `text_owner`'s bytes
  // What holds `text`'s bytes (a std::string, or an io::MappedFile); never changed through.
  std::shared_ptr<const void> text_owner;

  std::vector<Joint> joints;  // file order: parents before children
  int channel_count = 0;      // values per frame (sum of all CHANNELS counts)

  int frame_count = 0;       // frames in the clip (the value of "Frames:")
  double frame_time = 0.0;   // seconds per frame (> 0, finite)
  TextSpan frame_time_text;  // the number exactly as written, e.g. ".0083333"
  int frames_line = 0;       // 1-based line of "Frames:"
  int frame_time_line = 0;   // 1-based line of "Frame Time:"
  int first_frame_line = 0;  // 1-based line of frame 0 (0 when there are no frames)

  // Per frame, per channel (frame-major: [frame * channel_count + channel]): the value. (The
  // reader sizes it unwritten and writes every entry as it parses the frame lines, on several
  // threads.) `values` may be released (emptied) once the clip is decoded (io::load_clip does, to
  // save 8 bytes per value): value() then reads the number again from its text, the same bits.
  core::UnwrittenResizeVector<double> values;
  // Per channel, whether `values` holds its numbers: empty when every channel's does (the
  // default). ParseOptions::channels_to_read leaves the others' numbers unmade (NaN in `values`;
  // their text is checked as strictly and their decimals counted); value() reads those from
  // their text.
  std::vector<char> channels_read;
  // Per frame: the offset in `text` of its first value. A frame's values are the first
  // channel_count runs of non-blank characters from there (the reader accepts no other), so
  // their spans are found again by re-scanning the line (frame_spans) instead of being kept:
  // 4 bytes per frame instead of 8 per value.
  core::UnwrittenResizeVector<std::uint32_t> frame_text;
  // Per channel: the most decimals any of its `frame_count` values shows (io::decimals_shown),
  // so the writer prints edited values as precisely as the file without re-scanning the text.
  // Filled by the reader; empty in a Document assembled by hand (the writer then scans).
  std::vector<int> channel_decimals;

  // Frame lines after the last of `frame_count` frames. Always 0 unless the file was parsed with
  // ParseOptions::allow_extra_frame_lines; such lines are kept verbatim and are not in the clip.
  int extra_frame_lines = 0;
  LineEndings line_endings = LineEndings::none;
  // Found from the values by the reader (detect_position_convention); the writer keeps it.
  PositionConvention positions = PositionConvention::offset_plus_channels;

  int joint_count() const { return static_cast<int>(joints.size()); }
  std::string_view view(TextSpan s) const { return text.substr(s.offset, s.length); }
  // Where frame `frame`'s values lie: out[c] is channel c's text (out.size() == channel_count).
  void frame_spans(int frame, std::span<TextSpan> out) const;
  // One value's text (a scan of its frame line up to it).
  TextSpan value_span(int frame, int channel) const;
  // Whether `values` holds channel `channel`'s numbers.
  bool holds_values(int channel) const {
    return !values.empty() &&
           (channels_read.empty() || channels_read[static_cast<std::size_t>(channel)] != 0);
  }
  double value(int frame, int channel) const {
    const std::size_t index = static_cast<std::size_t>(frame) * channel_count + channel;
    return holds_values(channel) ? values[index] : read_value_text(value_view(frame, channel));
  }
  std::string_view value_view(int frame, int channel) const {
    return view(value_span(frame, channel));
  }
};

}  // namespace ikfix::io::bvh
