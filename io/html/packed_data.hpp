#pragma once
// Binary arrays packed as text for the HTML report's page (decoded by io/web/viewer.js):
// deflated (zlib format, what the browser's DecompressionStream("deflate") reads), then base64.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/math.hpp"

namespace ikfix::io {

// Standard base64 (RFC 4648, with padding).
std::string base64(std::string_view bytes);
// The same digits appended to `out` (no copy of the whole).
void append_base64(std::string& out, std::string_view bytes);

// zlib-format deflate of `bytes` (level 6). Throws std::runtime_error if zlib fails.
std::string deflate_zlib(std::string_view bytes);

// Grid the positions are stored on, metres: rounding costs at most half of it (5 micrometres).
inline constexpr double kPositionStep_m = 1e-5;

// Positions (point_count per frame, frame-major) as integers on the kPositionStep_m grid, each
// coordinate as its second difference over frames (its step from the frame before minus the
// step before that; before the first frame value and step are 0), zigzag-encoded as LEB128
// varints; a page sums them back exactly. Smooth motion makes most of them one byte, so they
// are stored without deflate (which gained ~25 % more for ~50 ms per 2,752 x 33 points).
// Values must be finite.
std::string delta_varints(std::span<const core::Vec3> positions, int point_count);
// base64(delta_varints(positions, point_count)) appended to `out`, made a few frames at a time
// (no buffer of the whole).
void append_delta_varints_base64(std::string& out, std::span<const core::Vec3> positions,
                                 int point_count);

// A series of values on a grid of `step`, as varints: 0 for an absent (non-finite) value, else
// 1 + the zigzag of the difference from the last present value (the first: from 0).
std::string series_varints(std::span<const double> values, double step);

// Little-endian float32 / uint32 bytes.
std::string float32_bytes(std::span<const core::Vec3> points);
std::string uint32_bytes(std::span<const std::uint32_t> values);

// deflate_zlib then base64.
std::string packed(std::string_view bytes);

}  // namespace ikfix::io
