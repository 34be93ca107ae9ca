// The lean OBJ line readers (io/obj_lean_lines) against the general reader: every line form,
// common or not, well-formed or malformed, gives the same parts (or the same refusal) with the
// lean readers as without them, and the same geometry or error message as parse_obj.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "io/error.hpp"
#include "io/obj_lean_lines.hpp"
#include "io/obj_parts.hpp"
#include "io/obj_terrain.hpp"
#include "obj_test_support.hpp"

namespace ikfix::io {
namespace {

// `line` with room after it for the lean readers' loads.
std::string padded(const std::string& line) { return line + std::string(128, '\n'); }

TEST(ObjLeanLines, FaceFormsGiveTheirIndices) {
  std::uint32_t p[3], n[3];
  // read_face's corners as 1-based indices (normal 0: none), each normal checked in range.
  const auto read_face = [&](const char* q, const char* end, std::uint32_t* pos,
                             std::uint32_t* nrm) -> const char* {
    obj_lean::Face face;
    const char* next = obj_lean::read_face(q, end, face);
    if (!next) return nullptr;
    for (int k = 0; k < 3; ++k) {
      pos[k] = face.position[k];
      nrm[k] = face.normal_digits[k] == 0 ? 0 : face.normal(k);
      if (face.normal_digits[k] != 0 && !face.normal_in_range(k, 10000000, 8)) return nullptr;
    }
    return next;
  };
  const std::string plain = padded(" 1 22 333\nf");
  ASSERT_EQ(read_face(plain.data(), plain.data() + plain.size(), p, n), plain.data() + 10);
  EXPECT_EQ(p[0], 1u);
  EXPECT_EQ(p[1], 22u);
  EXPECT_EQ(p[2], 333u);
  EXPECT_EQ(n[0], 0u);
  EXPECT_EQ(n[1], 0u);
  EXPECT_EQ(n[2], 0u);
  const std::string mixed = padded(" 4//5 6/7/8 9999999/1\r\nf");
  ASSERT_EQ(read_face(mixed.data(), mixed.data() + mixed.size(), p, n), mixed.data() + 23);
  EXPECT_EQ(p[0], 4u);
  EXPECT_EQ(p[1], 6u);
  EXPECT_EQ(p[2], 9999999u);
  EXPECT_EQ(n[0], 5u);
  EXPECT_EQ(n[1], 8u);
  EXPECT_EQ(n[2], 0u);
  for (const char* other : {" 1 2 3 4\n", " -1 2 3\n", " 1  2 3\n", " 1 2 3 \n", " 1 2 3#\n",
                            " 0 1 2\n", " 1//0 2 3\n", " 12345678 1 2\n", " 1/ 2 3\n",
                            " 1/1/ 2 3\n", " 1 2\n", " 1 2 3x\n", " +1 2 3\n", "\t1 2 3\n"}) {
    const std::string text = padded(other);
    EXPECT_EQ(read_face(text.data(), text.data() + text.size(), p, n), nullptr) << other;
  }
}

TEST(ObjLeanLines, NormalIndicesAreCheckedAgainstTheCountWithoutReadingMost) {
  const auto in_range = [](const char* index, std::uint64_t count) {
    const std::string text = padded(std::string(" 1//") + index + " 2 3\n");
    obj_lean::Face face;
    EXPECT_NE(obj_lean::read_face(text.data(), text.data() + text.size(), face), nullptr);
    return face.normal_in_range(0, count, obj_lean::decimal_digits(count));
  };
  EXPECT_TRUE(in_range("1", 1));
  EXPECT_TRUE(in_range("99", 100));
  EXPECT_TRUE(in_range("100", 100));
  EXPECT_TRUE(in_range("007", 100));
  EXPECT_FALSE(in_range("101", 100));
  EXPECT_FALSE(in_range("0", 100));
  EXPECT_FALSE(in_range("000", 100));
  EXPECT_FALSE(in_range("0007", 100));  // more digits than the count: not read here
  EXPECT_FALSE(in_range("1", 0));
  EXPECT_TRUE(in_range("9999999", 10000000));
  EXPECT_EQ(obj_lean::decimal_digits(0), 1);
  EXPECT_EQ(obj_lean::decimal_digits(9), 1);
  EXPECT_EQ(obj_lean::decimal_digits(10), 2);
  EXPECT_EQ(obj_lean::decimal_digits(1002001), 7);
}

// A normal index written with its position's digits ("a//a") is found so and takes the
// position's value and range check; one written otherwise is read as before.
TEST(ObjLeanLines, NormalIndicesWrittenAsThePositionsAreThePositions) {
  const std::string text = padded(" 12//12 3//30 45//045\nf");
  obj_lean::Face face;
  ASSERT_EQ(obj_lean::read_face(text.data(), text.data() + text.size(), face), text.data() + 22);
  EXPECT_TRUE(face.normal_is_position[0]);
  EXPECT_FALSE(face.normal_is_position[1]);
  EXPECT_FALSE(face.normal_is_position[2]);
  EXPECT_EQ(face.normal(0), 12u);
  EXPECT_EQ(face.normal(1), 30u);
  EXPECT_EQ(face.normal(2), 45u);
  EXPECT_FALSE(face.normal_in_range(0, 11, 2));
  EXPECT_TRUE(face.normal_in_range(0, 12, 2));
  EXPECT_FALSE(face.normal_in_range(2, 45, 2));  // "045": more digits than the count
  EXPECT_TRUE(face.normal_in_range(2, 100, 3));
  const std::string longer = padded(" 12//123 3 4\n");
  ASSERT_NE(obj_lean::read_face(longer.data(), longer.data() + longer.size(), face), nullptr);
  EXPECT_FALSE(face.normal_is_position[0]);
  EXPECT_EQ(face.normal(0), 123u);
}

TEST(ObjLeanLines, VectorFormsGiveReadDoubleBits) {
  double v[3];
  const std::string text = " -10.000000000 0.125 3e2\nv";
  const char* end = text.data() + text.size();
  ASSERT_EQ(obj_lean::read_xyz(text.data(), end, v), end - 1);
  EXPECT_EQ(v[0], -10.0);
  EXPECT_EQ(v[1], 0.125);
  EXPECT_EQ(v[2], 300.0);
  for (const char* other :
       {" 1 2 3 4\n", " 1  2 3\n", " +1 2 3\n", " 1 2\n", " 1 2 x\n", " inf 0 0\n", " nan 0 0\n",
        " 1e999 0 0\n", " 1 2 3 # c\n", " 1 2 3", " 1 2 3\t\n"}) {
    const std::string line = other;
    EXPECT_EQ(obj_lean::read_xyz(line.data(), line.data() + line.size(), v), nullptr) << other;
  }
}

TEST(ObjLeanLines, CheckedNumbersEndWhereReadDoubleEnds) {
  for (const char* number :
       {"0", "-0.5", "1234567.123456789012", ".5", "5.", "-10.000000000", "0.0000001", "-0.0049315",
        "1234567.", "1234567.1234567", "1234567.12345678", "12.3456789012345"}) {
    const std::string text = padded(number);
    double value = 0;
    const auto r = read_double(text.data(), text.data() + text.size(), value);
    EXPECT_EQ(obj_lean::skip_plain_number(text.data()), r.ptr) << number;
  }
  for (const char* other :
       {"-", ".", "x", "12345678.5", "1.1234567890123456789", "1.123456789012345678", "+1", ""}) {
    const std::string text = padded(other);
    EXPECT_EQ(obj_lean::skip_plain_number(text.data()), nullptr) << other;
  }
}

TEST(ObjLeanLines, LongPlainNumbersGiveReadDoubleBits) {
  std::vector<std::string> numbers = {
      "-10.000000000", "0.000049332",     "12.34567",   "1234567.",         "1234567.1",
      "-0.000000000",  "1.1234567890123", "9.99999999", "-1234567.1234567", "0.1234567"};
  std::uint64_t state = 0x9e3779b97f4a7c15ull;  // a fixed sequence: the same test every run
  for (int k = 0; k < 20000; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const int whole = 1 + static_cast<int>((state >> 20) % 7);
    const int decimals = static_cast<int>((state >> 30) % 15);
    std::string number = (state >> 63) != 0 ? "-" : "";
    std::uint64_t digits = state;
    for (int d = 0; d < whole + decimals;
         ++d, digits = digits * 2862933555777941757ull + 3037000493ull) {
      if (d == whole) number += '.';
      number += static_cast<char>('0' + (digits >> 60) % 10);
    }
    numbers.push_back(number);
  }
  int read = 0;
  for (const std::string& number : numbers) {
    const std::string text = number + " 1" + std::string(32, ' ');
    double value = 0, expected = 0;
    const auto r = read_double(text.data(), text.data() + text.size(), expected);
    if (const char* end = obj_lean::read_long_plain(text.data(), value)) {
      ++read;
      EXPECT_EQ(end, r.ptr) << number;
      EXPECT_EQ(std::memcmp(&value, &expected, sizeof value), 0) << number;
    }
  }
  EXPECT_GT(read, 10000);
  for (const char* other : {"-", ".5", "1.5", "-1234.5", "12345678.5", "1.234567890123456",
                            "1.5e3 ", "12345678", "+1.23456789", "1..2345678"}) {
    const std::string text = std::string(other) + std::string(32, ' ');
    double value = 0;
    EXPECT_EQ(obj_lean::read_long_plain(text.data(), value), nullptr) << other;
  }
}

bool same(const ObjGeometry& a, const ObjGeometry& b) {
  const auto bytes_equal = [](const auto& x, const auto& y) {
    return x.size() == y.size() &&
           (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof x[0]) == 0);
  };
  return a.every_corner_has_normal == b.every_corner_has_normal &&
         bytes_equal(a.positions, b.positions) && bytes_equal(a.normals, b.normals) &&
         bytes_equal(a.triangles, b.triangles);
}

// Both passes with or without the lean readers (nothing when a pass refuses the text).
std::optional<ObjGeometry> read_parts(const std::string& text, bool lean,
                                      const core::ParallelRunner* runner, std::size_t chunk) {
  std::optional<ObjParts> parts = parse_obj_elements(text, runner, {}, chunk, true, lean);
  if (!parts || !parse_obj_faces(text, *parts, {}, runner, {}, lean)) return std::nullopt;
  return joined_parts(*parts);
}

// `line` among well-formed lines (so the lean readers have room around it), read with and
// without the lean readers on 1 and 3 threads: the same parts or refusal, and what parse_obj
// gives; a refused text gives the terrain reader parse_obj's error message.
void expect_lean_as_general(const std::string& line) {
  std::string text = "v 0 0 0\nv 1 0 0\nv 0 0 1\nv 1 0.5 1\nvn 0 1 0\nvn 0 0.6 0.8\n";
  for (int i = 0; i < 8; ++i) text += "v 1.5 -2.25 " + std::to_string(i) + "\nvn 0 1 0\n";
  text += line;
  for (int i = 0; i < 8; ++i) text += "f 1//1 2//2 3//1\nf 4 2 3\n";
  const std::string error = parse_obj_error(text);
  const core::ThreadPool pool(3);
  for (const core::ParallelRunner* runner : {static_cast<const core::ParallelRunner*>(nullptr),
                                             static_cast<const core::ParallelRunner*>(&pool)})
    for (const std::size_t chunk : {std::size_t{1} << 20, std::size_t{40}}) {
      const auto lean = read_parts(text, true, runner, chunk);
      const auto general = read_parts(text, false, runner, chunk);
      ASSERT_EQ(lean.has_value(), general.has_value()) << line;
      if (lean) {
        EXPECT_TRUE(same(*lean, *general)) << line;
      }
      if (lean && error.empty()) {
        EXPECT_TRUE(same(*lean, parse_obj(text, "t.obj"))) << line;
      }
      if (!error.empty()) {
        EXPECT_FALSE(lean.has_value()) << line;
      }
      // Normals checked, not stored: the same positions and normals' lines.
      const auto lean_unstored = parse_obj_elements(text, runner, {}, chunk, false, true);
      const auto general_unstored = parse_obj_elements(text, runner, {}, chunk, false, false);
      ASSERT_EQ(lean_unstored.has_value(), general_unstored.has_value()) << line;
      if (!lean_unstored) continue;
      ASSERT_EQ(lean_unstored->parts.size(), general_unstored->parts.size());
      for (std::size_t k = 0; k < lean_unstored->parts.size(); ++k) {
        EXPECT_EQ(lean_unstored->parts[k].normal_lines, general_unstored->parts[k].normal_lines);
        EXPECT_EQ(lean_unstored->parts[k].normals_read, general_unstored->parts[k].normals_read);
      }
      EXPECT_TRUE(same(joined_parts(*lean_unstored), joined_parts(*general_unstored))) << line;
    }
  expect_terrain_refuses_as_parse_obj(text, error, &pool, line);
}

// The footprint test by sides in the face pass (lean lines or not) keeps and marks what the
// same test as a filter function keeps and marks.
TEST(ObjLeanLines, SidesFilterKeepsWhatItsFunctionKeeps) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "v " + std::to_string(i) + " 0 0\nvn 0 1 0\n";
  for (int i = 1; i + 2 <= 40; ++i) {
    const std::string a = std::to_string(i), b = std::to_string(i + 1), c = std::to_string(i + 2);
    text += i % 4 == 0   ? "f " + a + "//" + a + " " + b + "//" + b + " " + c + "//" + c + "\n"
            : i % 4 == 1 ? "f " + a + " " + b + " " + c + "\n"
            : i % 4 == 2 ? "f -1 -2 " + a + " " + b + "\n"
                         : "f " + a + "/1/1 " + c + "/2/" + b + " " + b + "\n";
  }
  std::vector<std::uint8_t> beyond(40);
  for (std::size_t i = 0; i < beyond.size(); ++i)  // 0-14 left of the rectangle, 30-39 above
    beyond[i] = static_cast<std::uint8_t>(i < 15 ? 1 : i < 30 ? 0 : 4 | (i % 2 ? 2 : 0));
  const core::ThreadPool pool(3);
  for (const bool lean : {true, false}) {
    SCOPED_TRACE(lean);
    auto by_sides = parse_obj_elements(text, &pool, {}, 64);
    auto by_function = parse_obj_elements(text, &pool, {}, 64);
    ASSERT_TRUE(by_sides && by_function);
    std::vector<std::uint8_t> used_sides(40, 0), used_function(40, 0);
    const ObjSidesFilter sides{beyond.data(), used_sides.data()};
    ASSERT_TRUE(parse_obj_faces(text, *by_sides, {}, &pool, {}, lean, &sides));
    const ObjTriangleFilter keep = [&](std::size_t, std::uint32_t a, std::uint32_t b,
                                       std::uint32_t c) {
      used_function[a] = used_function[b] = used_function[c] = 1;
      return (beyond[a] & beyond[b] & beyond[c]) == 0;
    };
    ASSERT_TRUE(parse_obj_faces(text, *by_function, keep, nullptr, {}, lean));
    EXPECT_TRUE(same(joined_parts(*by_sides), joined_parts(*by_function)));
    EXPECT_EQ(used_sides, used_function);
    EXPECT_EQ(by_sides->triangle_count, by_function->triangle_count);
    EXPECT_LT(joined_parts(*by_sides).triangles.size(), by_sides->triangle_count);
  }
}

TEST(ObjLeanLines, EveryFaceFormReadsAsTheGeneralReader) {
  for (const char* face : {"f 1 2 3\n",
                           "f 1//1 2//2 3//1\n",
                           "f 1/1/1 2/2/2 3/1/2\n",
                           "f 1/1 2/3 3/9\n",
                           "f 1 2//1 3/1/1\n",
                           "f 1 2 3 4\n",
                           "f -1 -2 -3\n",
                           "f 1 -2//-1 3\n",
                           "f 1  2 3\n",
                           "f\t1 2 3\n",
                           "f 1 2 3 \n",
                           "f 1 2 3# c\n",
                           "f 1 2 3\r\n",
                           "f 1 2 3\r",
                           "f +1 2 3\n",
                           "f 01 002 0000003\n",
                           "f 00000001 2 3\n",
                           "f 0 1 2\n",
                           "f 1 2 99\n",
                           "f 1 2 20\n",
                           "f 1//19 2//1 3//1\n",
                           "f 1//01 2//002 3//0000001\n",
                           "f 1//00 2 3\n",
                           "f 1//10 2//1 3//1\n",
                           "f 1//0 2//1 3//1\n",
                           "f 1/ 2 3\n",
                           "f 1/x/1 2 3\n",
                           "f 1//1x 2 3\n",
                           "f 1 2\n",
                           "f 1 2 3x\n",
                           "f 1 2 3/\n",
                           "f 1 2 3//\n",
                           "f 1/0/1 2 3\n",
                           "f 1/-1/1 2 3\n",
                           "f 1/12345678/1 2 3\n",
                           "f 1//12345678 2 3\n"}) {
    SCOPED_TRACE(face);
    expect_lean_as_general(face);
  }
}

TEST(ObjLeanLines, EveryVectorFormReadsAsTheGeneralReader) {
  for (const char* vector : {"v 1 2 3\n",
                             "v -1.5 2.25 -3\n",
                             "v 1 2 3 1\n",
                             "v 1 2 3 0.5 0.5 0.5\n",
                             "v +1 2 3\n",
                             "v 1e3 2 3\n",
                             "v 1  2 3\n",
                             "v 1 2\n",
                             "v 1 2 x\n",
                             "v inf 0 0\n",
                             "v nan 0 0\n",
                             "v 1e999 0 0\n",
                             "v 1 2 3 # c\n",
                             "v 1 2 3\r\n",
                             "v 1 2 3\r",
                             "v .5 -.5 5.\n",
                             "v 1.23456789012345678901 0 -0\n",
                             "v 0x1p3 0 0\n",
                             "vn 0 1 0\n",
                             "vn 0 1 0 0\n",
                             "vn 0 1\n",
                             "vn -0 -1 0.000001\n",
                             "vn 0.1234567890123456789 1 0\n",
                             "vn 1e2 . 0\n",
                             "vn 12345678.5 1 0\n",
                             "vn - 1 0\n",
                             "vn 0 1 0x\n",
                             "vn 0 1 inf\n",
                             "v\t1 2 3\n",
                             "vn  0 1 0\n",
                             "vt 0.5 0.5\n"}) {
    SCOPED_TRACE(vector);
    expect_lean_as_general(vector);
  }
}

}  // namespace
}  // namespace ikfix::io
