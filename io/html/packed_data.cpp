#include "io/html/packed_data.hpp"

#include <zlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace ikfix::io {

namespace {

constexpr char kBase64Digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The two digits of every 12-bit value, so that six bytes take four table reads, not eight.
constexpr std::array<std::array<char, 2>, 4096> base64_digit_pairs() {
  std::array<std::array<char, 2>, 4096> pairs{};
  for (int v = 0; v < 4096; ++v) pairs[v] = {kBase64Digits[v >> 6], kBase64Digits[v & 63]};
  return pairs;
}
constexpr auto kBase64Pairs = base64_digit_pairs();

// The 48 bits of in[0..6) in the low bits, first byte highest. `in` must have 8 readable bytes.
inline std::uint64_t six_bytes(const std::uint8_t* in) {
  std::uint64_t v;
  std::memcpy(&v, in, 8);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  return v >> 16;
}

// 48 bits as eight digits at `to`.
inline void put_six_bytes(std::uint64_t v, char* to) {
  for (int k = 0; k < 4; ++k)
    std::memcpy(to + 2 * k, kBase64Pairs[(v >> (36 - 12 * k)) & 4095].data(), 2);
}

// Base64 of `n` bytes (a multiple of 3) at `to` (n / 3 * 4 digits).
void put_base64_groups(const std::uint8_t* in, std::size_t n, char* to) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 6, to += 8) put_six_bytes(six_bytes(in + i), to);
  for (; i < n; i += 3, to += 4) {
    const std::uint32_t v = std::uint32_t(in[i]) << 16 | std::uint32_t(in[i + 1]) << 8 | in[i + 2];
    std::memcpy(to, kBase64Pairs[v >> 12].data(), 2);
    std::memcpy(to + 2, kBase64Pairs[v & 4095].data(), 2);
  }
}

// Base64 of a byte stream handed over in parts, appended to a string: the digits are made in a
// small buffer and appended (a string resized for them would be zero-filled first), the 0-2
// bytes of a part that do not fill a group kept for the next.
class Base64Appender {
 public:
  explicit Base64Appender(std::string& out) : out_(out) {}

  void add(const std::uint8_t* in, std::size_t n) {
    while (held_ > 0 && held_ < 3 && n > 0) held_bytes_[held_++] = *in++, --n;
    if (held_ == 3) {
      put_groups(held_bytes_, 3);
      held_ = 0;
    }
    const std::size_t whole = n / 3 * 3;
    for (std::size_t at = 0; at < whole; at += kPartBytes)
      put_groups(in + at, std::min(kPartBytes, whole - at));
    for (std::size_t i = whole; i < n; ++i) held_bytes_[held_++] = in[i];
  }

  // The last group, padded with '='.
  void finish() {
    if (held_ == 0) return;
    const std::uint32_t v =
        std::uint32_t(held_bytes_[0]) << 16 | (held_ == 2 ? std::uint32_t(held_bytes_[1]) << 8 : 0);
    const char last[4] = {kBase64Digits[(v >> 18) & 63], kBase64Digits[(v >> 12) & 63],
                          held_ == 2 ? kBase64Digits[(v >> 6) & 63] : '=', '='};
    out_.append(last, 4);
    held_ = 0;
  }

 private:
  static constexpr std::size_t kPartBytes = 3 * 1024;

  void put_groups(const std::uint8_t* in, std::size_t n) {
    char digits[kPartBytes / 3 * 4];
    put_base64_groups(in, n, digits);
    out_.append(digits, n / 3 * 4);
  }

  std::string& out_;
  std::uint8_t held_bytes_[3] = {};
  std::size_t held_ = 0;
};

}  // namespace

std::string base64(std::string_view bytes) {
  std::string out;
  append_base64(out, bytes);
  return out;
}

void append_base64(std::string& out, std::string_view bytes) {
  out.reserve(out.size() + (bytes.size() + 2) / 3 * 4);
  Base64Appender digits(out);
  digits.add(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  digits.finish();
}

std::string deflate_zlib(std::string_view bytes) {
  uLongf size = compressBound(static_cast<uLong>(bytes.size()));
  std::string out(size, '\0');
  const int status =
      compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uLong>(bytes.size()), 6);
  if (status != Z_OK) throw std::runtime_error("zlib compress2 failed");
  out.resize(size);
  return out;
}

namespace {

std::uint64_t zigzag(std::int64_t value) {
  return (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63);
}

void put_varint_unsigned(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// The varint at `to` (room for 10 bytes); returns the byte after it.
char* put_varint_unsigned(char* to, std::uint64_t value) {
  while (value >= 0x80) {
    *to++ = static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  *to++ = static_cast<char>(value);
  return to;
}

// The varint at `to`, without a branch on its length for values under 2^14 (one or two bytes:
// which of them a value takes is random, a branch on it would mispredict); `to` must have room
// for 10 bytes. Returns the byte after it.
inline char* put_varint_unsigned_fast(char* to, std::uint64_t value) {
  if (value >= (1u << 14)) [[unlikely]]
    return put_varint_unsigned(to, value);
  const auto v = static_cast<std::uint32_t>(value);
  const std::uint32_t two = (v >> 7) != 0;
  to[0] = static_cast<char>((v & 0x7f) | two << 7);
  to[1] = static_cast<char>(v >> 7);  // overwritten by the next value when it is one byte
  return to + 1 + two;
}

// std::llround's answer (halves away from zero) without the library call or a branch: the
// truncated value plus the truncation of twice the remainder (-1, 0 or 1; x - trunc(x) is exact
// below 2^52, where x may have a fraction, and doubling it is exact).
std::int64_t round_half_away(double x) {
  if (!(std::abs(x) < 0x1p52)) [[unlikely]]
    return std::llround(x);
  const auto t = static_cast<std::int64_t>(x);
  return t + static_cast<std::int64_t>(2 * (x - static_cast<double>(t)));
}

std::int64_t on_grid(double metres) { return round_half_away(metres / kPositionStep_m); }

// Grid values under this many steps (2,684 m) keep a coordinate's step and second difference
// within 32 bits: those frames take the narrow route, whose loops the compiler vectorises.
constexpr double kNarrowSteps = 0x1p28;

// DeltaCodes' narrow route, one frame: the codes of `n` grid values (under 2^28 each) from the
// last values and steps (updated), each code's varint when under 2^14 (one or two bytes) as a
// word (first byte low) and its length - 1. Returns whether every code is under 2^14. The
// arrays are distinct (__restrict: the loop is vectorised only then, too many to check).
bool narrow_codes(std::size_t n, const std::int32_t* __restrict values,
                  std::int32_t* __restrict last_value, std::int32_t* __restrict last_step,
                  std::uint32_t* __restrict codes, std::int32_t* __restrict words,
                  std::int32_t* __restrict more) {
  std::int32_t big = 0;
  for (std::size_t c = 0; c < n; ++c) {
    const std::int32_t step = values[c] - last_value[c];
    const std::int32_t delta = step - last_step[c];
    // Under 2^31: |delta| < 2^30 for narrow values.
    const std::int32_t code = static_cast<std::int32_t>(static_cast<std::uint32_t>(delta) << 1 ^
                                                        static_cast<std::uint32_t>(delta >> 31));
    const std::int32_t two = code > 0x7f;
    codes[c] = static_cast<std::uint32_t>(code);
    words[c] = (code & 0x7f) | two << 7 | (code << 1 & 0x7f00);
    more[c] = two;
    big |= code > 0x3fff;
    last_value[c] = values[c];
    last_step[c] = step;
  }
  return big == 0;
}

// The second differences of the coordinates, frame by frame, as zigzag codes: each frame's row
// in 32-bit lanes while every value so far was narrow, in 64 bits (for good) from the first
// frame with one that is not.
class DeltaCodes {
 public:
  explicit DeltaCodes(std::size_t coordinates)
      : values_(coordinates),
        value32_(coordinates, 0),
        step32_(coordinates, 0),
        codes32_(coordinates),
        words_(coordinates),
        more_(coordinates) {}

  // Writes the varints of row `x` (a frame's coordinates) at `to`; returns the end.
  char* put_frame(const double* x, char* to) {
    if (!wide_ && narrow_frame(x)) {
      if (!codes_of_narrow_frame()) {
        for (const std::uint32_t code : codes32_) to = put_varint_unsigned_fast(to, code);
        return to;
      }
      // Local pointers: the bytes written might alias the vectors' own, which would be read
      // again after every byte.
      const std::int32_t* words = words_.data();
      const std::int32_t* more = more_.data();
      const std::size_t n = words_.size();
      for (std::size_t c = 0; c < n; ++c) {  // the second byte may be overwritten
        const std::int32_t word = words[c];
        to[0] = static_cast<char>(word);
        to[1] = static_cast<char>(word >> 8);
        to += 1 + more[c];
      }
      return to;
    }
    if (!wide_) widen();
    std::int64_t* state = value64_.data();
    for (std::size_t c = 0; c < codes32_.size(); ++c, state += 2) {
      const std::int64_t value = on_grid(x[c]);
      const std::int64_t step = value - state[0];
      to = put_varint_unsigned_fast(to, zigzag(step - state[1]));
      state[0] = value;
      state[1] = step;
    }
    return to;
  }

 private:
  // Rounds the row onto the grid into values_ (round_half_away, exact there); false when a value
  // is not narrow (or not finite), values_ then meaningless.
  bool narrow_frame(const double* x) {
    const std::size_t n = values_.size();
    std::size_t c = 0;
    bool narrow = true;
#if defined(__SSE2__)
    // Two at a time: each quotient clamped to the narrow range (NaN to its low end: maxpd
    // answers its second operand then) so that the truncation is defined, and the range
    // checked on the truncated integers (+-2^28 only for a clamped value).
    const __m128d grid = _mm_set1_pd(kPositionStep_m);
    const __m128d low = _mm_set1_pd(-kNarrowSteps), high = _mm_set1_pd(kNarrowSteps);
    const __m128i edge = _mm_set1_epi32(static_cast<std::int32_t>(kNarrowSteps));
    __m128i far = _mm_setzero_si128();
    for (; c + 2 <= n; c += 2) {
      const __m128d q = _mm_min_pd(_mm_max_pd(_mm_div_pd(_mm_loadu_pd(x + c), grid), low), high);
      const __m128i t = _mm_cvttpd_epi32(q);
      const __m128d fraction = _mm_sub_pd(q, _mm_cvtepi32_pd(t));
      const __m128i value = _mm_add_epi32(t, _mm_cvttpd_epi32(_mm_add_pd(fraction, fraction)));
      far = _mm_or_si128(
          far, _mm_or_si128(_mm_cmpeq_epi32(t, edge),
                            _mm_cmpeq_epi32(t, _mm_sub_epi32(_mm_setzero_si128(), edge))));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(values_.data() + c), value);
    }
    narrow = (_mm_movemask_epi8(far) & 0xff) == 0;  // the low two lanes hold the values
#endif
    for (; c < n; ++c) {
      const double q = x[c] / kPositionStep_m;
      narrow &= std::abs(q) < kNarrowSteps;
      values_[c] = narrow ? static_cast<std::int32_t>(round_half_away(q)) : 0;
    }
    return narrow;
  }

  // codes32_ from values_ and the last two frames' state (value32_, step32_); with each code's
  // varint when under 2^14 (one or two bytes) in words_ (first byte low) and its length - 1 in
  // more_. Returns whether every code is under 2^14.
  bool codes_of_narrow_frame() {
    return narrow_codes(values_.size(), values_.data(), value32_.data(), step32_.data(),
                        codes32_.data(), words_.data(), more_.data());
  }

  void widen() {
    const std::size_t n = values_.size();
    value64_.resize(n * 2);
    for (std::size_t c = 0; c < n; ++c) {
      value64_[2 * c] = value32_[c];
      value64_[2 * c + 1] = step32_[c];
    }
    wide_ = true;
  }

  std::vector<std::int32_t> values_;
  std::vector<std::int32_t> value32_, step32_;  // per coordinate: the last value, the last step
  std::vector<std::uint32_t> codes32_;
  std::vector<std::int32_t> words_, more_;
  std::vector<std::int64_t> value64_;  // per coordinate: the last value, then the last step
  bool wide_ = false;
};

// delta_varints made a block of frames at a time into a buffer of its own; `emit(bytes, n)`
// takes each block's varints.
template <class Emit>
void each_delta_varints_block(std::span<const core::Vec3> positions, int point_count, Emit emit) {
  const std::size_t coordinates = static_cast<std::size_t>(point_count) * 3;
  const std::size_t frames = positions.empty() ? 0 : positions.size() / point_count;
  if (frames == 0) return;
  // At most 10 bytes a coordinate; a block holds at least one frame.
  const std::size_t frames_per_block = std::max<std::size_t>(1, 1600 / coordinates);
  const std::unique_ptr<char[]> block(new char[frames_per_block * coordinates * 10]);
  DeltaCodes codes(coordinates);
  // A Vec3 is three contiguous doubles: a frame's coordinates are one row of doubles.
  static_assert(sizeof(core::Vec3) == 3 * sizeof(double));
  const double* row = &positions.data()->x;
  for (std::size_t f = 0; f < frames; f += frames_per_block) {
    char* to = block.get();
    const std::size_t end = std::min(frames, f + frames_per_block);
    for (std::size_t frame = f; frame < end; ++frame, row += coordinates)
      to = codes.put_frame(row, to);
    emit(block.get(), static_cast<std::size_t>(to - block.get()));
  }
}

}  // namespace

std::string delta_varints(std::span<const core::Vec3> positions, int point_count) {
  std::string out;
  each_delta_varints_block(positions, point_count,
                           [&](const char* bytes, std::size_t n) { out.append(bytes, n); });
  return out;
}

void append_delta_varints_base64(std::string& out, std::span<const core::Vec3> positions,
                                 int point_count) {
  Base64Appender digits(out);
  each_delta_varints_block(positions, point_count, [&](const char* bytes, std::size_t n) {
    digits.add(reinterpret_cast<const std::uint8_t*>(bytes), n);
  });
  digits.finish();
}

std::string series_varints(std::span<const double> values, double step) {
  std::string out;
  out.reserve(values.size() * 2);
  std::int64_t last = 0;
  for (double v : values) {
    if (!std::isfinite(v)) {
      out.push_back(0);
      continue;
    }
    const std::int64_t value = round_half_away(v / step);
    put_varint_unsigned(out, zigzag(value - last) + 1);
    last = value;
  }
  return out;
}

namespace {

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}

}  // namespace

std::string float32_bytes(std::span<const core::Vec3> points) {
  std::string out;
  out.reserve(points.size() * 12);
  for (const core::Vec3& p : points)
    for (int axis = 0; axis < 3; ++axis)
      put_u32(out, std::bit_cast<std::uint32_t>(static_cast<float>(p[axis])));
  return out;
}

std::string uint32_bytes(std::span<const std::uint32_t> values) {
  std::string out;
  out.reserve(values.size() * 4);
  for (std::uint32_t v : values) put_u32(out, v);
  return out;
}

std::string packed(std::string_view bytes) { return base64(deflate_zlib(bytes)); }

}  // namespace ikfix::io
