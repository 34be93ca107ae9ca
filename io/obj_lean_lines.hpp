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
// then only checked: Face::normal_in_range).
struct Face {
  std::uint32_t position[3];     // 1-based
  std::uint64_t normal_text[3];  // eight bytes from the normal index's first digit
  int normal_digits[3];          // 1-7; 0: the corner has no normal

  // Normal k's 1-based index (the corner has one).
  std::uint32_t normal(int k) const {
    return static_cast<std::uint32_t>(
        decimal_detail::digits_value(normal_text[k], normal_digits[k]));
  }
  // Whether normal k (the corner has one) lies in [1, count], `count` having `count_digits`
  // decimal digits: read only when it has as many digits as `count`.
  bool normal_in_range(int k, std::uint64_t count, int count_digits) const {
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
  face.position[k] = read_index(p);
  face.normal_digits[k] = 0;
  if (face.position[k] == 0) return false;
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
