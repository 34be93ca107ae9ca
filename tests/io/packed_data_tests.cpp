#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "io/html/packed_data.hpp"

namespace ikfix::io {
namespace {

TEST(PackedData, Base64MatchesRfc4648) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64(std::string("\xff\x00\x80", 3)), "/wCA");
}

// Six bytes at a time inside, three at the end: every length and byte value against the
// definition (each 6 bits of the bytes, first byte's highest bit first, as one digit).
TEST(PackedData, Base64MatchesTheBitByBitDefinition) {
  static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  auto by_bits = [](const std::string& bytes) {
    std::string out;
    const std::size_t bits = bytes.size() * 8;
    for (std::size_t at = 0; at < bits; at += 6) {
      int v = 0;
      for (std::size_t b = at; b < at + 6; ++b)
        v = v << 1 | (b < bits ? (static_cast<unsigned char>(bytes[b / 8]) >> (7 - b % 8)) & 1 : 0);
      out += digits[v];
    }
    while (out.size() % 4) out += '=';
    return out;
  };
  std::string bytes;
  unsigned state = 12345;
  for (int length = 0; length <= 64; ++length) {
    EXPECT_EQ(base64(bytes), by_bits(bytes)) << length << " bytes";
    state = state * 1103515245u + 12345u;
    bytes += static_cast<char>(state >> 16);
  }
  std::string all(256 * 3, '\0');
  for (int v = 0; v < 256 * 3; ++v) all[v] = static_cast<char>(v % 256);
  EXPECT_EQ(base64(all), by_bits(all));
}

TEST(PackedData, DeflateRoundTripsThroughZlib) {
  const std::string text(10000, 'a');
  const std::string packed_bytes = deflate_zlib(text);
  EXPECT_LT(packed_bytes.size(), 200u);
  std::string back(text.size(), '\0');
  uLongf size = back.size();
  ASSERT_EQ(uncompress(reinterpret_cast<Bytef*>(back.data()), &size,
                       reinterpret_cast<const Bytef*>(packed_bytes.data()), packed_bytes.size()),
            Z_OK);
  EXPECT_EQ(back, text);
}

// What io/web/viewer.js does: zigzag varints summed twice per coordinate, times the step.
std::vector<double> decode(const std::string& bytes, int point_count) {
  std::vector<double> out;
  std::vector<std::int64_t> last(static_cast<std::size_t>(point_count) * 3, 0);
  std::vector<std::int64_t> last_step(last.size(), 0);
  std::size_t at = 0;
  while (at < bytes.size()) {
    std::uint64_t zigzag = 0;
    int shift = 0;
    std::uint8_t b;
    do {
      b = static_cast<std::uint8_t>(bytes[at++]);
      zigzag |= std::uint64_t(b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    const std::int64_t delta = static_cast<std::int64_t>(zigzag >> 1) ^ -std::int64_t(zigzag & 1);
    const std::size_t k = out.size() % last.size();
    last_step[k] += delta;
    last[k] += last_step[k];
    out.push_back(last[k] * kPositionStep_m);
  }
  return out;
}

TEST(PackedData, DeltaVarintsKeepPositionsWithinHalfAStep) {
  std::vector<core::Vec3> positions;
  for (int f = 0; f < 50; ++f) {
    positions.emplace_back(0.01 * f, 1.0 + 0.3 * std::sin(f * 0.2), -123.456789);
    positions.emplace_back(-5.0 + 1e-6 * f, 0.0, 2000.0 - 0.05 * f);
  }
  const std::string bytes = delta_varints(positions, 2);
  const std::vector<double> back = decode(bytes, 2);
  ASSERT_EQ(back.size(), positions.size() * 3);
  for (std::size_t i = 0; i < positions.size(); ++i)
    for (int a = 0; a < 3; ++a)
      EXPECT_NEAR(back[i * 3 + a], positions[i][a], kPositionStep_m / 2 + 1e-12) << i << " " << a;
  // Small frame-to-frame moves take one or two bytes per coordinate.
  EXPECT_LT(bytes.size(), positions.size() * 3 * 2 + 20);
}

// The encoding as first written, with std::llround: the fast encoder must give its bytes.
std::string reference_delta_varints(const std::vector<core::Vec3>& positions, int point_count) {
  std::string out;
  std::vector<std::int64_t> last(static_cast<std::size_t>(point_count) * 3, 0);
  std::vector<std::int64_t> last_step(last.size(), 0);
  for (std::size_t i = 0; i < positions.size(); ++i)
    for (int axis = 0; axis < 3; ++axis) {
      const std::size_t k = (i % point_count) * 3 + axis;
      const std::int64_t value = std::llround(positions[i][axis] / kPositionStep_m);
      const std::int64_t step = value - last[k];
      const std::int64_t delta = step - last_step[k];
      std::uint64_t z =
          (static_cast<std::uint64_t>(delta) << 1) ^ static_cast<std::uint64_t>(delta >> 63);
      for (; z >= 0x80; z >>= 7) out.push_back(static_cast<char>((z & 0x7f) | 0x80));
      out.push_back(static_cast<char>(z));
      last[k] = value;
      last_step[k] = step;
    }
  return out;
}

TEST(PackedData, DeltaVarintsRoundHalvesAwayFromZeroLikeLlround) {
  std::vector<core::Vec3> positions;
  std::uint64_t seed = 12345;
  auto next = [&] {  // a fixed pseudo-random sequence in [-1, 1)
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(seed >> 11) / 0x1p52 - 1.0;
  };
  for (int f = 0; f < 200; ++f) {
    positions.emplace_back(3 * next(), 1e4 * next(), 1e-4 * next());
    // Exact halves of the grid on either side of zero, and far away (1e12 m: past 2^52 steps).
    const double half = (f % 7 - 3 + 0.5) * kPositionStep_m;
    positions.emplace_back(half, -half, 1e12 * next());
  }
  EXPECT_EQ(delta_varints(positions, 2), reference_delta_varints(positions, 2));
}

// Positions for the encoders' routes: `frames` frames of `point_count` points moving smoothly
// with noise of `noise_m` (varints of one, two and three bytes in random order), a jump on frame 3
// (codes of 2^14 and more), and from frame `far_from` on (if any) one coordinate more than
// 2^28 steps (2,684 m) from the origin.
std::vector<core::Vec3> test_positions(int frames, int point_count, double noise_m, int far_from) {
  std::vector<core::Vec3> positions;
  std::uint64_t seed = 99;
  auto next = [&] {  // a fixed pseudo-random sequence in [-1, 1)
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(seed >> 11) / 0x1p52 - 1.0;
  };
  for (int f = 0; f < frames; ++f)
    for (int p = 0; p < point_count; ++p) {
      core::Vec3 v(0.3 * p + 2.0 * std::sin(0.01 * f + p), 1.0 + 0.4 * std::sin(0.05 * f + p),
                   -0.004 * f + 0.1 * std::cos(0.07 * f));
      v += core::Vec3(next(), next(), next()) * noise_m;
      if (f == 3) v.y += 0.9;
      if (far_from >= 0 && f >= far_from && p == point_count - 1) v.x += 2684.4 + f;
      positions.push_back(v);
    }
  return positions;
}

// The encoders of a page (a block of frames at a time, 32-bit lanes while every value is under
// 2^28 steps) give the first definition's bytes: one and several blocks, an odd and an even
// number of coordinates a frame, a clip that leaves the narrow range part-way or from the start,
// exact half steps and values right at the narrow range's edge.
TEST(PackedData, DeltaVarintsMatchTheFirstDefinitionOnEveryRoute) {
  for (const int point_count : {1, 2, 33})
    for (const int far_from : {-1, 0, 40})
      for (const double noise_m : {0.0, 5e-4, 2e-2}) {
        const std::vector<core::Vec3> positions =
            test_positions(300, point_count, noise_m, far_from);
        const std::string reference = reference_delta_varints(positions, point_count);
        EXPECT_EQ(delta_varints(positions, point_count), reference)
            << point_count << " points, far from frame " << far_from << ", noise " << noise_m;
        std::string text = "prefix";
        append_delta_varints_base64(text, positions, point_count);
        EXPECT_EQ(text, "prefix" + base64(reference)) << point_count << " points";
      }
  std::vector<core::Vec3> edges;
  const double edge_m = 0x1p28 * kPositionStep_m;
  for (const double x : {edge_m - kPositionStep_m, -edge_m + kPositionStep_m, 0.5 * kPositionStep_m,
                         -0.5 * kPositionStep_m, 2.5 * kPositionStep_m, edge_m, -edge_m, 1.0})
    edges.emplace_back(x, -x, 0.0);
  EXPECT_EQ(delta_varints(edges, 1), reference_delta_varints(edges, 1));
  std::string text;
  append_delta_varints_base64(text, edges, 1);
  EXPECT_EQ(text, base64(reference_delta_varints(edges, 1)));
}

TEST(PackedData, AppendedBase64MatchesBase64) {
  std::string bytes;
  for (int i = 0; i < 10000; ++i) bytes += static_cast<char>(i * 7919 % 251);
  for (const std::size_t length :
       {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(3071), std::size_t(3072),
        std::size_t(3073), bytes.size()}) {
    std::string out = "x";
    append_base64(out, std::string_view(bytes).substr(0, length));
    EXPECT_EQ(out, "x" + base64(bytes.substr(0, length))) << length;
  }
}

TEST(PackedData, SeriesVarintsRoundHalfStepsAwayFromZero) {
  // 0.0625 is half a step: 1 step (1 + zigzag(1) = 3); -0.0625: -1 step, -2 from the last
  // (1 + zigzag(-2) = 4).
  EXPECT_EQ(series_varints(std::vector<double>{0.0625, -0.0625}, 0.125), std::string("\x03\x04"));
}

TEST(PackedData, SeriesVarintsMarkAbsentValuesAndKeepTheGrid) {
  const std::vector<double> values = {0.5, std::nan(""), 0.25, -0.125, INFINITY, 0.25};
  const std::string bytes = series_varints(values, 0.125);
  // 0.5 -> 4 steps: 1 + zigzag(4) = 9; absent: 0; 2 steps (-2): 1 + 3; -1 (-3): 1 + 5; absent;
  // 2 (+3): 1 + 6.
  EXPECT_EQ(bytes, std::string("\x09\x00\x04\x06\x00\x07", 6));
}

TEST(PackedData, Float32AndUint32AreLittleEndian) {
  const std::vector<core::Vec3> one = {{1.0, 0.0, -2.0}};
  EXPECT_EQ(float32_bytes(one),
            std::string("\x00\x00\x80\x3f\x00\x00\x00\x00\x00\x00\x00\xc0", 12));
  const std::vector<std::uint32_t> v = {0x01020304u};
  EXPECT_EQ(uint32_bytes(v), std::string("\x04\x03\x02\x01", 4));
}

}  // namespace
}  // namespace ikfix::io
