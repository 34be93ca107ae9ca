#include "io/html/packed_data.hpp"

#include <zlib.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace ikfix::io {

std::string base64(std::string_view bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = std::uint32_t(std::uint8_t(bytes[i])) << 16 |
                            std::uint32_t(std::uint8_t(bytes[i + 1])) << 8 |
                            std::uint8_t(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out.push_back(kDigits[(v >> shift) & 63]);
  }
  const std::size_t rest = bytes.size() - i;
  if (rest == 0) return out;
  std::uint32_t v = std::uint32_t(std::uint8_t(bytes[i])) << 16;
  if (rest == 2) v |= std::uint32_t(std::uint8_t(bytes[i + 1])) << 8;
  out.push_back(kDigits[(v >> 18) & 63]);
  out.push_back(kDigits[(v >> 12) & 63]);
  out.push_back(rest == 2 ? kDigits[(v >> 6) & 63] : '=');
  out.push_back('=');
  return out;
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

void put_varint(std::string& out, std::int64_t value) { put_varint_unsigned(out, zigzag(value)); }

std::int64_t on_grid(double metres) { return std::llround(metres / kPositionStep_m); }

}  // namespace

std::string delta_varints(std::span<const core::Vec3> positions, int point_count) {
  std::string out;
  out.reserve(positions.size() * 3 * 2);
  const std::size_t coordinates = static_cast<std::size_t>(point_count) * 3;
  std::vector<std::int64_t> last(coordinates, 0), last_step(coordinates, 0);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const std::size_t k0 = (i % static_cast<std::size_t>(point_count)) * 3;
    for (int axis = 0; axis < 3; ++axis) {
      const std::size_t k = k0 + axis;
      const std::int64_t value = on_grid(positions[i][axis]);
      const std::int64_t step = value - last[k];
      put_varint(out, step - last_step[k]);
      last[k] = value;
      last_step[k] = step;
    }
  }
  return out;
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
    const std::int64_t value = std::llround(v / step);
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
