#include "io/html/packed_data.hpp"

#include <zlib.h>

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

}  // namespace

std::string base64(std::string_view bytes) {
  std::string out;
  append_base64(out, bytes);
  return out;
}

void append_base64(std::string& out, std::string_view bytes) {
  const std::size_t start = out.size();
  out.resize(start + (bytes.size() + 2) / 3 * 4);
  const auto* in = reinterpret_cast<const std::uint8_t*>(bytes.data());
  char* to = out.data() + start;
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 6, to += 8) put_six_bytes(six_bytes(in + i), to);
  for (; i + 2 < bytes.size(); i += 3, to += 4) {
    const std::uint32_t v = std::uint32_t(in[i]) << 16 | std::uint32_t(in[i + 1]) << 8 | in[i + 2];
    std::memcpy(to, kBase64Pairs[v >> 12].data(), 2);
    std::memcpy(to + 2, kBase64Pairs[v & 4095].data(), 2);
  }
  const std::size_t rest = bytes.size() - i;
  if (rest == 0) return;
  std::uint32_t v = std::uint32_t(in[i]) << 16;
  if (rest == 2) v |= std::uint32_t(in[i + 1]) << 8;
  to[0] = kBase64Digits[(v >> 18) & 63];
  to[1] = kBase64Digits[(v >> 12) & 63];
  to[2] = rest == 2 ? kBase64Digits[(v >> 6) & 63] : '=';
  to[3] = '=';
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

// std::llround's answer (halves away from zero) without the library call: the truncated value
// and the exact remainder (x - trunc(x) is exact below 2^52, where x may have a fraction).
std::int64_t round_half_away(double x) {
  if (!(std::abs(x) < 0x1p52)) return std::llround(x);
  const auto t = static_cast<std::int64_t>(x);
  const double fraction = x - static_cast<double>(t);
  // Without branches: which way a coordinate rounds is random, a branch would mispredict.
  return t + static_cast<std::int64_t>(fraction >= 0.5) -
         static_cast<std::int64_t>(fraction <= -0.5);
}

std::int64_t on_grid(double metres) { return round_half_away(metres / kPositionStep_m); }

}  // namespace

std::string delta_varints(std::span<const core::Vec3> positions, int point_count) {
  const std::size_t coordinates = static_cast<std::size_t>(point_count) * 3;
  const std::size_t frames = positions.empty() ? 0 : positions.size() / point_count;
  // Room for the longest varints (10 bytes), left unwritten (a zeroed string would touch it all).
  const std::unique_ptr<char[]> buffer(new char[frames * coordinates * 10 + 1]);
  char* const begin = buffer.get();
  char* to = begin;
  std::vector<std::int64_t> last(coordinates, 0), last_step(coordinates, 0);
  // A Vec3 is three contiguous doubles: a frame's coordinates are one row of doubles.
  static_assert(sizeof(core::Vec3) == 3 * sizeof(double));
  const double* coordinate = &positions.data()->x;
  std::int64_t* const last_value = last.data();
  std::int64_t* const last_delta = last_step.data();
  for (std::size_t f = 0; f < frames; ++f)
    for (std::size_t c = 0; c < coordinates; ++c, ++coordinate) {
      const std::int64_t value = on_grid(*coordinate);
      const std::int64_t step = value - last_value[c];
      const std::uint64_t code = zigzag(step - last_delta[c]);
      last_value[c] = value;
      last_delta[c] = step;
      if (code < 0x80)
        *to++ = static_cast<char>(code);
      else
        to = put_varint_unsigned(to, code);
    }
  return std::string(begin, to);
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
