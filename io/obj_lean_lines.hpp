#pragma once
// Lean readers of the OBJ line forms large files are made of ("v X Y Z", "vn X Y Z", "f A B C"
// with corners "a", "a/t", "a//n", "a/t/n"), for the parallel reader (io/obj_parts). Each reads
// one exact form, gives what the general reader (parse_obj's grammar) gives for it, and returns
// null for anything else (another spacing, signs, long indices, comments, more numbers or
// corners, a malformed line): that line is then read by the general reader, which accepts it
// or names the problem. So these only decide how fast a line is read, never what it says.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <system_error>

#include "io/decimal.hpp"

namespace ikfix::io::obj_lean {

inline bool is_line_end(char c) { return c == '\n' || c == '\r'; }

// Past the line break at `p` (LF, CRLF or a lone CR); p < end and *p is '\n' or '\r'.
inline const char* past_line_end(const char* p, const char* end) {
  return p + (*p == '\r' && p + 1 < end && p[1] == '\n' ? 2 : 1);
}

// Bit 7 of each byte of `chunk` that is not a digit, exact up to and including the first such
// byte, and exact for every byte when all eight are ASCII (only a byte of 0x80 or more carries
// into the next one, and it is marked itself).
inline std::uint64_t non_digit_bytes(std::uint64_t chunk) {
  const std::uint64_t x = chunk ^ 0x3030303030303030ull;
  return ((x + 0x7676767676767676ull) | x) & 0x8080808080808080ull;
}

// The end of the number read_double reads at `p`, found without computing it, when it is an
// optional '-' and then what decimal_detail::plain_decimal reads, with 1-19 digits (always a
// finite value); null for any other text (read_double then decides). Needs 32 readable bytes.
inline const char* skip_plain_number(const char* p) {
  if (*p == '-') ++p;
  int digits = decimal_detail::leading_digits(decimal_detail::load8(p));
  if (digits == 8) return nullptr;
  p += digits;
  if (*p == '.') {
    ++p;
    int after = decimal_detail::leading_digits(decimal_detail::load8(p));
    if (after == 8) {
      p += 8;
      digits += 8;
      after = decimal_detail::leading_digits(decimal_detail::load8(p));
      if (after == 8) return nullptr;
    }
    p += after;
    digits += after;
  }
  return digits >= 1 && digits <= 19 ? p : nullptr;
}

// A number of the form an optional '-', 1-7 digits, '.', then digits up to 8-15 characters after
// the sign in all (the "-10.000000000" of generated files), read as two eight-byte groups of
// digits: its end, with its value bit for bit what read_double gives when the number is not
// followed by an exponent (the caller checks the character at the end). Null for any other
// text (shorter or longer numbers, no digit before the point), which read_double then reads.
// Needs 17 readable bytes from `p`.
inline const char* read_long_plain(const char* p, double& value) {
  using decimal_detail::digits_value;
  using decimal_detail::load8;
  const bool negative = *p == '-';
  p += negative;
  const std::uint64_t low = load8(p);
  const std::uint64_t low_flags = non_digit_bytes(low);
  if (low_flags == 0) return nullptr;
  const int point = __builtin_ctzll(low_flags) >> 3;
  // The point is the only non-digit of the first eight bytes (a second one: a short number).
  if (point == 0 || p[point] != '.' || (low_flags & (low_flags - 1)) != 0) return nullptr;
  const std::uint64_t high = load8(p + 8);
  const std::uint64_t high_flags = non_digit_bytes(high);
  if (high_flags == 0) return nullptr;
  const int tail = __builtin_ctzll(high_flags) >> 3;  // digits in the second eight bytes: 0-7
  // The seven digits of the first eight bytes without the point, then the first of the next.
  const std::uint64_t below_point = (std::uint64_t{1} << (8 * point)) - 1;
  const std::uint64_t first = (low & below_point) | ((low >> 8) & ~below_point) | (high << 56);
  std::uint64_t mantissa = 0;
  if (tail == 0) {
    mantissa = digits_value(first, 7);
  } else {
    mantissa = digits_value(first, 8);
    if (tail > 1)
      mantissa = mantissa * decimal_detail::kPow10Int[tail - 1] + digits_value(high >> 8, tail - 1);
  }
  // 8-14 digits: below 2^53, so Clinger's fast path as in read_double.
  const int decimals = 7 - point + tail;
  const double magnitude = static_cast<double>(mantissa) / decimal_detail::kPow10[decimals];
  value = negative ? -magnitude : magnitude;
  return p + 8 + tail;
}

// After a vector statement's keyword: " X Y Z" and the line's end, each number preceded by one
// space and read as read_double reads it (finite; no '+' sign), the third followed by the line
// break. Returns the next line's start with the numbers in `v`, or null. Reads nothing past
// `end`. Without `kValues` the numbers are only checked (`v` is not written where the check
// needs no value).
template <bool kValues = true>
inline const char* read_xyz(const char* p, const char* end, double v[3]) {
  for (int k = 0; k < 3; ++k) {
    if (p == end || *p != ' ') return nullptr;
    if (!kValues && end - (p + 1) >= 32) {
      if (const char* past = skip_plain_number(p + 1)) {
        p = past;
        continue;
      }
    }
    if (kValues && end - (p + 1) >= 32) {
      if (const char* past = read_long_plain(p + 1, v[k])) {
        p = past;
        continue;
      }
    }
    const auto r = read_double(p + 1, end, v[k]);
    if (r.ec != std::errc() || !std::isfinite(v[k])) return nullptr;
    p = r.ptr;
  }
  if (p == end || !is_line_end(*p)) return nullptr;
  return past_line_end(p, end);
}

// Bytes read_face may read from its `p`: three corners of at most 1 + 7 + 1 + 7 + 1 + 7 bytes,
// the line break after them, and an eight-byte load at the last index.
inline constexpr std::size_t kFaceRoom = 96;

// An index of 1-7 digits at `p` (8 readable bytes): its value, `p` moved past it; 0 when there
// is none or it has 8 digits or more (an index of 0 itself is refused by the callers too).
inline std::uint32_t read_index(const char*& p) {
  const std::uint64_t chunk = decimal_detail::load8(p);
  const int digits = decimal_detail::leading_digits(chunk);
  if (digits == 0 || digits == 8) return 0;
  p += digits;
  return static_cast<std::uint32_t>(decimal_detail::digits_value(chunk, digits));
}

// A face line's corners as read_face finds them: the positions' indices read, the normals'
// only located (most faces of a large file lie outside the part kept, and a normal index is
// then only checked: Face::normal_in_range), or found to be written as the position's.
struct Face {
  std::uint32_t position[3];     // 1-based
  std::uint64_t normal_text[3];  // eight bytes from the normal index's first digit
  int normal_digits[3];          // 1-7; 0: the corner has no normal
  // The normal index is the position's own digits ("a//a", "a/t/a": a terrain's vertices
  // usually have one normal each), so its value is position[k] (not 0) without reading it.
  bool normal_is_position[3];

  // Normal k's 1-based index (the corner has one).
  std::uint32_t normal(int k) const {
    if (normal_is_position[k]) return position[k];
    return static_cast<std::uint32_t>(
        decimal_detail::digits_value(normal_text[k], normal_digits[k]));
  }
  // Whether normal k (the corner has one) lies in [1, count], `count` having `count_digits`
  // decimal digits: read only when it has as many digits as `count`.
  bool normal_in_range(int k, std::uint64_t count, int count_digits) const {
    if (normal_is_position[k]) return position[k] <= count;
    const int digits = normal_digits[k];
    const std::uint64_t digit_bytes = (std::uint64_t{1} << (8 * digits)) - 1;
    if (((normal_text[k] ^ 0x3030303030303030ull) & digit_bytes) == 0) return false;  // 0
    return digits < count_digits || (digits == count_digits && normal(k) <= count);
  }
};

// Decimal digits of `value` (1 for 0).
inline int decimal_digits(std::uint64_t value) {
  int digits = 1;
  for (; value >= 10; value /= 10) ++digits;
  return digits;
}

// One face corner at `p` ("a", "a/t", "a//n", "a/t/n"; the texture index read, not kept):
// corner k of `face`; false when it is not one of these forms or its position index is 0.
inline bool read_corner(const char*& p, Face& face, int k) {
  const std::uint64_t position = decimal_detail::load8(p);
  const int position_digits = decimal_detail::leading_digits(position);
  if (position_digits == 0 || position_digits == 8) return false;
  face.position[k] =
      static_cast<std::uint32_t>(decimal_detail::digits_value(position, position_digits));
  face.normal_digits[k] = 0;
  face.normal_is_position[k] = false;
  if (face.position[k] == 0) return false;
  p += position_digits;
  if (*p != '/') return true;
  ++p;
  if (*p != '/') {  // a texture index, then maybe a normal
    const char* t = p;
    read_index(p);
    if (p == t) return false;
    if (*p != '/') return true;
  }
  ++p;
  const std::uint64_t chunk = decimal_detail::load8(p);
  // The position's digits again, then a non-digit: the same index, read already.
  const std::uint64_t digit_bytes = (std::uint64_t{1} << (8 * position_digits)) - 1;
  if (((chunk ^ position) & digit_bytes) == 0 &&
      static_cast<unsigned char>(p[position_digits] - '0') > 9) {
    face.normal_text[k] = chunk;
    face.normal_digits[k] = position_digits;
    face.normal_is_position[k] = true;
    p += position_digits;
    return true;
  }
  const int digits = decimal_detail::leading_digits(chunk);
  if (digits == 0 || digits == 8) return false;
  face.normal_text[k] = chunk;
  face.normal_digits[k] = digits;
  p += digits;
  return true;
}

// After an "f" keyword: " A B C" and the line's end, the corners separated by one space, the
// third followed by the line break. Returns the next line's start with the corners in `face`,
// or null. Needs kFaceRoom readable bytes from `p` (`end`: the text's end, for a CRLF at the
// edge).
inline const char* read_face(const char* p, const char* end, Face& face) {
  for (int k = 0; k < 3; ++k) {
    if (*p != ' ') return nullptr;
    ++p;
    if (!read_corner(p, face, k)) return nullptr;
  }
  if (!is_line_end(*p)) return nullptr;
  return past_line_end(p, end);
}

}  // namespace ikfix::io::obj_lean
