#pragma once
// Line shapes for the parallel OBJ reader (io/obj_parts): a large file's lines of one kind
// differ mostly in their digits ("vn -0.0049315 0.9999878 0.0000000", "f 12//12 13//13 14//14"),
// so a line whose bytes are those of the last line read, digits aside, is read as that one was
// without finding its separators again. A shape holds only lines the lean readers
// (io/obj_lean_lines) accepted, and a line matches it only when every byte that is not a digit
// is the same and every digit is a digit: then the lean reader would accept it too (their
// forms are decided by which bytes are digits and which separators sit where; the values the
// callers check, an index of 0 or out of range, are checked on the values read here too).
#include <cstdint>
#include <cstring>

#include "io/decimal.hpp"
#include "io/obj_lean_lines.hpp"

namespace ikfix::io::obj_lean {

// A line's bytes with the digits wildcarded; at most kMaxBytes long, its line break '\n' last.
class LineShape {
 public:
  static constexpr int kMaxBytes = 64;

  // Whether the line at `p` has this shape (false while none is learnt). Reads kMaxBytes from
  // `p`, which must be readable. Per byte, sixteen at a time: its distance above the lowest byte
  // allowed there (wrapping) is at most the span allowed there.
  bool matches(const char* p) {
    if (blocks_ == 0) return false;
    Bytes wrong{};  // per byte, how far past its span
    for (int b = 0; b < blocks_; ++b) {
      Bytes x;
      std::memcpy(&x, p + sizeof(Bytes) * b, sizeof x);
      const Bytes above = x - low_[b];
      wrong |= above - (above < span_[b] ? above : span_[b]);
    }
    std::uint64_t half[2];
    std::memcpy(half, &wrong, sizeof half);
    if ((half[0] | half[1]) != 0) return false;
    misses_ = 0;
    return true;
  }

  // Whether a line read without this shape is worth learning: after the k-th such line since
  // the last match, when k is a power of two (a file whose lines change shape every time pays
  // for learning only now and then).
  bool worth_learning() {
    ++misses_;
    return (misses_ & (misses_ - 1)) == 0;
  }

  void clear() { length_ = blocks_ = 0; }

  // Learns the line [p, p + length): its last byte must be '\n', and every other byte a digit
  // or one of " -./fnv" (no exponent, '+', tab, CR or comment, whose meaning depends on more
  // than where they sit). False, with no shape, for any other line.
  bool learn(const char* p, int length) {
    length_ = blocks_ = 0;
    if (length < 2 || length > kMaxBytes || p[length - 1] != '\n') return false;
    unsigned char low[kMaxBytes], span[kMaxBytes];
    for (int i = 0; i < kMaxBytes; ++i) {
      const auto c = static_cast<unsigned char>(i < length ? p[i] : 0);
      const bool digit = static_cast<unsigned>(c - '0') <= 9;
      if (i < length && !digit && !allowed(c) && !(c == '\n' && i == length - 1)) return false;
      // Past the line: any byte. A digit: '0' to '9'. Any other byte: itself.
      low[i] = i >= length ? 0 : digit ? '0' : c;
      span[i] = i >= length ? 0xff : digit ? 9 : 0;
    }
    std::memcpy(low_, low, sizeof low_);
    std::memcpy(span_, span, sizeof span_);
    length_ = length;
    blocks_ = (length + static_cast<int>(sizeof(Bytes)) - 1) / static_cast<int>(sizeof(Bytes));
    return true;
  }

  int length() const { return length_; }  // 0: none learnt

 private:
  static bool allowed(unsigned char c) {
    return c == ' ' || c == '-' || c == '.' || c == '/' || c == 'f' || c == 'n' || c == 'v';
  }

  // Sixteen bytes as one vector (GCC's vector extension: SSE2 on x86-64, NEON on ARM).
  using Bytes = unsigned char __attribute__((vector_size(16)));
  static constexpr int kBlocks = kMaxBytes / static_cast<int>(sizeof(Bytes));

  int length_ = 0;
  int blocks_ = 0;            // sixteen-byte blocks the line spans (0: no shape learnt)
  std::uint64_t misses_ = 0;  // lines learnt or not since the last match
  Bytes low_[kBlocks];        // per byte, the lowest allowed (0 past the line)
  Bytes span_[kBlocks];       // and how far above it (0: itself; 9: a digit; 255: any)
};

// The shape of a face line "f A B C" whose corners are all "a" or all "a//a" (the normal index
// written as the position's), with where each corner's index sits.
class FaceShape {
 public:
  // The line at `p` (its "f"; kFaceRoom readable bytes) when it has this shape, no index is 0
  // and each normal repeats its position's digits: its next line, with the corners' 1-based
  // position indices (and so their normals' when normals()). Null for any other line.
  const char* read(const char* p, std::uint32_t position[3]) {
    if (!shape_.matches(p)) return nullptr;
    std::uint64_t text[3], value[3];
    for (int k = 0; k < 3; ++k) text[k] = decimal_detail::load8(p + offset_[k]);
    decimal_detail::three_digits_values(text, digits_, value);
    bool ok = true;
    for (int k = 0; k < 3; ++k) {
      position[k] = static_cast<std::uint32_t>(value[k]);
      ok = ok && position[k] != 0;
      if (normals_)
        ok = ok && ((decimal_detail::load8(p + offset_[k] + digits_[k] + 2) ^ text[k]) &
                    digit_bytes_[k]) == 0;
    }
    return ok ? p + shape_.length() : nullptr;
  }

  // Whether the corners have normals ("a//a") or not ("a").
  bool normals() const { return normals_; }

  // Learns the line [p, next) that read_face read as `face` (`p` at its "f"), when it ends in
  // '\n' and its corners are all "a" or all "a//a"; else keeps no shape.
  void learn(const char* p, const char* next, const Face& face) {
    if (!shape_.worth_learning()) return;
    auto length = static_cast<int>(next - p);
    normals_ = face.normal_digits[0] != 0;
    for (int k = 0; k < 3; ++k) {
      if ((face.normal_digits[k] != 0) != normals_ || (normals_ && !face.normal_is_position[k]))
        length = 0;
    }
    if (!shape_.learn(p, length)) return;
    int at = 2;  // past "f "
    for (int k = 0; k < 3; ++k) {
      offset_[k] = at;
      digits_[k] = 0;
      while (static_cast<unsigned char>(p[at + digits_[k]] - '0') <= 9) ++digits_[k];
      // Only "a" or "a//a" corners (1-7 digits) are this shape; "a/t/a", which read_face also
      // reads with the position's normal, is not.
      const char* after = p + at + digits_[k];
      const bool corner_form =
          normals_ ? after[0] == '/' && after[1] == '/' : after[0] == (k < 2 ? ' ' : '\n');
      if (digits_[k] < 1 || digits_[k] > 7 || !corner_form) return shape_.clear();
      digit_bytes_[k] = (std::uint64_t{1} << (8 * digits_[k])) - 1;
      at += digits_[k] + (normals_ ? 2 + digits_[k] : 0) + 1;
    }
  }

 private:
  LineShape shape_;
  bool normals_ = false;
  int offset_[3] = {};                 // bytes from the "f" to the position index
  int digits_[3] = {};                 // the position index's digits (1-7; and the normal's)
  std::uint64_t digit_bytes_[3] = {};  // 0xff per digit
};

// The shape of a vector line ("v X Y Z", "vn X Y Z") whose numbers are each an optional '-',
// 1-7 digits, '.', and digits, 2-15 digits in all (the generated "-10.000000000"), with where
// each number's digits sit: read as read_xyz reads them (the same mantissa and decimals, so the
// same division and bits: Clinger's fast path, the mantissa below 10^15).
class VectorShape {
 public:
  // Bytes the reads need from the line's start: the line and a load past its last number.
  static constexpr int kRoom = LineShape::kMaxBytes + 16;

  // The line at `p` (kRoom readable bytes) when it has this shape: its next line, with the
  // numbers in `v`. Null for any other line.
  const char* read(const char* p, double v[3]) {
    if (!shape_.matches(p)) return nullptr;
    for (int k = 0; k < 3; ++k) {
      Number& n = number_[k];
      const std::uint64_t low = decimal_detail::load8(p + n.offset);
      const std::uint64_t high = decimal_detail::load8(p + n.offset + 8);
      // The same bytes as this number of the last line read (a grid's row repeats its z): the
      // same digits in the same places, so the same value.
      if ((low & n.low_bytes) == n.last_low && (high & n.high_bytes) == n.last_high) {
        v[k] = n.last_value;
        continue;
      }
      // The digits before the point, then those after it, then the next eight bytes' first.
      const std::uint64_t first =
          (low & n.below_point) | ((low >> 8) & ~n.below_point) | (high << 56);
      std::uint64_t mantissa = decimal_detail::digits_value(first, n.first_digits);
      if (n.more_digits > 0)
        mantissa = mantissa * decimal_detail::kPow10Int[n.more_digits] +
                   decimal_detail::digits_value(high >> 8, n.more_digits);
      const double magnitude = static_cast<double>(mantissa) / decimal_detail::kPow10[n.decimals];
      v[k] = n.negative ? -magnitude : magnitude;
      n.last_low = low & n.low_bytes, n.last_high = high & n.high_bytes, n.last_value = v[k];
    }
    return p + shape_.length();
  }

  // Learns the line [p, p + length) that read_xyz read, `keyword` bytes long before its first
  // space, when its numbers have the form above; else keeps no shape.
  void learn(const char* p, int length, int keyword) {
    if (!shape_.worth_learning() || !shape_.learn(p, length)) return;
    int at = keyword;
    for (int k = 0; k < 3; ++k) {
      Number& n = number_[k];
      if (p[at] != ' ') return shape_.clear();
      ++at;
      n.negative = p[at] == '-';
      at += n.negative;
      n.offset = at;
      const int whole = digits_at(p + at);
      if (whole < 1 || whole > 7 || p[at + whole] != '.') return shape_.clear();
      n.decimals = digits_at(p + at + whole + 1);
      const int digits = whole + n.decimals;
      if (n.decimals < 1 || digits > 15) return shape_.clear();
      n.below_point = (std::uint64_t{1} << (8 * whole)) - 1;
      n.first_digits = digits < 8 ? digits : 8;
      n.more_digits = digits - n.first_digits;
      const int bytes = digits + 1;  // with the point
      n.low_bytes = bytes >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * bytes)) - 1;
      n.high_bytes = bytes <= 8    ? 0
                     : bytes >= 16 ? ~std::uint64_t{0}
                                   : (std::uint64_t{1} << (8 * (bytes - 8))) - 1;
      n.last_low = ~std::uint64_t{0};  // no number read yet: matches no masked load
      n.last_high = ~std::uint64_t{0};
      at += whole + 1 + n.decimals;
    }
    if (at != length - 1) shape_.clear();  // more than three numbers
  }

 private:
  struct Number {
    int offset = 0;  // of its first digit, from the line's start
    bool negative = false;
    std::uint64_t below_point = 0;  // 0xff per digit before the point
    int first_digits = 0;           // digits in the first eight without the point (1-8)
    int more_digits = 0;            // the digits after those (0-7)
    int decimals = 0;               // digits after the point
    // 0xff per byte of the number (its digits and point) in the loads at offset and offset + 8,
    // and those bytes of the last number read through this shape, with its value.
    std::uint64_t low_bytes = 0, high_bytes = 0;
    std::uint64_t last_low = ~std::uint64_t{0}, last_high = ~std::uint64_t{0};
    double last_value = 0.0;
  };

  static int digits_at(const char* p) {
    int n = 0;
    while (static_cast<unsigned>(p[n] - '0') <= 9) ++n;
    return n;
  }

  LineShape shape_;
  Number number_[3];
};

}  // namespace ikfix::io::obj_lean
