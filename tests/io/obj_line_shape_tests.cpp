// Line shapes (io/obj_line_shape): a line matches the shape of a line read before only when its
// bytes are the same but for digits, and is then read as the lean readers read it; runs of
// lines of one shape, broken by lines that match it but hold other values (a 0 index, a normal
// index not the position's, an index out of range), read as the general reader reads them.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "io/decimal.hpp"
#include "io/error.hpp"
#include "io/obj_line_shape.hpp"
#include "io/obj_parts.hpp"
#include "io/obj_terrain.hpp"
#include "obj_test_support.hpp"

namespace ikfix::io {
namespace {

// `line` with room after it for the shapes' loads.
std::string padded(const std::string& line) { return line + std::string(128, '\n'); }

TEST(ObjLineShape, MatchesTheSameBytesButForDigits) {
  obj_lean::LineShape shape;
  EXPECT_FALSE(shape.matches(padded("vn 0.5 1.25 -0.0\n").data()));  // nothing learnt
  const std::string learnt = "vn -0.5 1.25 0.0\n";
  ASSERT_TRUE(shape.learn(learnt.data(), static_cast<int>(learnt.size())));
  EXPECT_EQ(shape.length(), static_cast<int>(learnt.size()));
  for (const char* same : {"vn -0.5 1.25 0.0\n", "vn -9.9 0.00 7.3\n", "vn -1.2 3.45 9.9\nf"})
    EXPECT_TRUE(shape.matches(padded(same).data())) << same;
  for (const char* other :
       {"vn 0.5 1.25 0.0\n", "vn -0.5 1.25 0.00\n", "vn -0.5 1.25 0.\n", "vn -0.5 1.25 0.0\r\n",
        "vn -0.5 1.25 0.0 \n", "vn -0.5 1.2x 0.0\n", "vn -0.5 1.25 0.0#\n", "v  -0.5 1.25 0.0\n",
        "vn -0.5 1\xb5"
        "5 0.0\n",
        "vn -0.5 1.25 0.0"}) {
    std::string text = other;
    text += std::string(128, ' ');  // the last one has no line break
    EXPECT_FALSE(shape.matches(text.data())) << other;
  }
}

TEST(ObjLineShape, LearnsOnlyLinesWhoseBytesSayAllByWhereTheySit) {
  obj_lean::LineShape shape;
  for (const char* line : {"v 1e5 0 0\n", "v +1 0 0\n", "v 1 0 0\r\n", "v\t1 0 0\n",
                           "v 1 0 0 # c\n", "v 1 0 0", "\n", "v 1 0 0\n\n"}) {
    const std::string text = padded(line);
    EXPECT_FALSE(shape.learn(text.data(), static_cast<int>(std::strlen(line)))) << line;
    EXPECT_FALSE(shape.matches(text.data())) << line;
  }
  const std::string longest = "v " + std::string(59, '1') + " 0\n";  // 64 bytes
  EXPECT_TRUE(shape.learn(longest.data(), static_cast<int>(longest.size())));
  const std::string longer = "v " + std::string(60, '1') + " 0\n";
  EXPECT_FALSE(shape.learn(longer.data(), static_cast<int>(longer.size())));
  EXPECT_EQ(shape.length(), 0);
}

// Every byte of a line is checked, whichever of the shape's blocks of bytes it falls in, and no
// byte after it: lines of every length learnt, each byte of them changed in turn.
TEST(ObjLineShape, ChecksEveryByteOfTheLineAndNoneAfterIt) {
  for (int length = 2; length <= obj_lean::LineShape::kMaxBytes; ++length) {
    // "f1/2 3-4.5nv6f1/...": digits and the separators a shape allows, '\n' last.
    std::string line;
    for (int i = 0; i + 1 < length; ++i) line += "f1/2 3-4.5nv6"[i % 13];
    line += '\n';
    obj_lean::LineShape shape;
    ASSERT_TRUE(shape.learn(line.data(), length)) << line;
    for (int i = 0; i < length; ++i) {
      const bool digit = line[i] >= '0' && line[i] <= '9';
      // A digit takes any digit but nothing else; any other byte only itself.
      for (const char other : {'0', '9', '/', ':', ' ', '\0', '\xff', '\r'}) {
        std::string changed = padded(line);
        changed[static_cast<std::size_t>(i)] = other;
        const bool same = digit ? other >= '0' && other <= '9' : other == line[i];
        EXPECT_EQ(shape.matches(changed.data()), same)
            << "length " << length << ", byte " << i << " made " << int(other);
      }
    }
    std::string after = padded(line);
    for (std::size_t i = line.size(); i < after.size(); ++i) after[i] = static_cast<char>(i);
    EXPECT_TRUE(shape.matches(after.data())) << "length " << length;
  }
}

// Learning after k lines read without a match since the last one, for k a power of two.
TEST(ObjLineShape, LearnsAgainLessOftenWhileNothingMatches) {
  obj_lean::LineShape shape;
  std::vector<int> learnt;
  for (int k = 1; k <= 20; ++k)
    if (shape.worth_learning()) learnt.push_back(k);
  EXPECT_EQ(learnt, (std::vector<int>{1, 2, 4, 8, 16}));
  const std::string line = padded("f 1 2 3\n");
  ASSERT_TRUE(shape.learn(line.data(), 8));
  ASSERT_TRUE(shape.matches(line.data()));
  EXPECT_TRUE(shape.worth_learning());  // a match starts the count again
  EXPECT_TRUE(shape.worth_learning());
  EXPECT_FALSE(shape.worth_learning());
}

TEST(ObjLineShape, VectorLinesGiveReadDoubleBits) {
  std::uint64_t state = 18;  // a fixed sequence: the same test every run
  const auto next_digit = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<char>('0' + (state >> 59) % 10);
  };
  // Shapes of 1-7 digits before the point and 2-15 digits in all, each learnt from one line and
  // then read on 50 lines of random digits in it.
  int read = 0;
  for (int whole = 1; whole <= 7; ++whole)
    for (int decimals = 1; whole + decimals <= 15; ++decimals) {
      const auto line_of = [&](bool negative) {
        std::string line = "v";
        for (int k = 0; k < 3; ++k) {
          line += negative && k != 1 ? " -" : " ";
          for (int d = 0; d < whole + decimals; ++d) {
            if (d == whole) line += '.';
            line += next_digit();
          }
        }
        return line + "\n";
      };
      const bool negative = (whole + decimals) % 2 == 0;
      obj_lean::VectorShape shape;
      const std::string first = padded(line_of(negative));
      shape.learn(first.data(), static_cast<int>(first.find('\n') + 1), 1);
      for (int trial = 0; trial < 50; ++trial) {
        const std::string text = padded(line_of(negative));
        double v[3], expected[3];
        const char* end = text.data() + text.size();
        const char* lean = obj_lean::read_xyz(text.data() + 1, end, expected);
        ASSERT_NE(lean, nullptr) << text;
        ASSERT_EQ(shape.read(text.data(), v), lean) << text;
        EXPECT_EQ(std::memcmp(v, expected, sizeof v), 0) << text;
        ++read;
      }
    }
  EXPECT_GT(read, 3000);
}

// A number whose bytes repeat those of the last line read through the shape takes that line's
// value; one that differs in any digit, the last of 15 included, is read again.
TEST(ObjLineShape, VectorShapesReadRepeatedNumbersAsTheLastLineGaveThem) {
  const std::vector<std::string> lines = {
      "v -9.990000000 0.001223587 -9.980000000\n", "v -9.980000000 0.000098664 -9.980000000\n",
      "v -9.960000000 0.000098664 -9.980000000\n", "v -9.960000000 0.000098664 -9.980000001\n",
      "v -9.960000000 0.000098664 -9.980000001\n", "v -1.000000000 0.000000000 -1.000000000\n"};
  const std::vector<std::string> long_lines = {
      "v 1.23456789012345 1234567.12345678 7.5\n", "v 1.23456789012345 1234567.12345678 7.5\n",
      "v 1.23456789012346 1234567.12345679 7.5\n", "v 2.23456789012346 1234568.12345679 7.4\n",
      "v 2.23456789012346 1234568.12345679 7.4\n"};
  for (const auto* run : {&lines, &long_lines}) {
    obj_lean::VectorShape shape;
    const std::string first = padded(run->front());
    shape.learn(first.data(), static_cast<int>(run->front().size()), 1);
    for (std::size_t i = 1; i < run->size(); ++i) {
      const std::string text = padded((*run)[i]);
      double v[3], expected[3];
      const char* lean = obj_lean::read_xyz(text.data() + 1, text.data() + text.size(), expected);
      ASSERT_NE(lean, nullptr) << text;
      ASSERT_EQ(shape.read(text.data(), v), lean) << text;
      EXPECT_EQ(std::memcmp(v, expected, sizeof v), 0) << (*run)[i];
    }
  }
}

TEST(ObjLineShape, VectorShapesTakeOnlyPlainNumbersWithAPoint) {
  for (const char* line :
       {"v 1 2.5 3.5\n", "v .5 2.5 3.5\n", "v 1. 2.5 3.5\n", "v 12345678.5 2.5 3.5\n",
        "v 1.234567890123456 2.5 3.5\n", "v 1.5 2.5 3.5 4.5\n", "v -1.5 -2.5\n"}) {
    const std::string text = padded(line);
    obj_lean::VectorShape shape;
    shape.learn(text.data(), static_cast<int>(std::strlen(line)), 1);
    double v[3];
    EXPECT_EQ(shape.read(text.data(), v), nullptr) << line;
  }
}

TEST(ObjLineShape, FaceShapesReadPositionsAndCheckTheNormalsRepeatThem) {
  const auto learnt = [](const std::string& line) {
    obj_lean::FaceShape shape;
    const std::string text = padded(line);
    obj_lean::Face face;
    const char* next = obj_lean::read_face(text.data() + 1, text.data() + text.size(), face);
    EXPECT_NE(next, nullptr) << line;
    if (next) shape.learn(text.data(), next, face);
    return shape;
  };
  std::uint32_t position[3];
  obj_lean::FaceShape with_normals = learnt("f 12//12 345//345 6//6\n");
  EXPECT_TRUE(with_normals.normals());
  std::string text = padded("f 98//98 765//765 4//4\n");
  ASSERT_EQ(with_normals.read(text.data(), position), text.data() + 23);
  EXPECT_EQ(position[0], 98u);
  EXPECT_EQ(position[1], 765u);
  EXPECT_EQ(position[2], 4u);
  for (const char* other :
       {"f 98//97 765//765 4//4\n", "f 98//98 765//765 0//0\n", "f 00//00 765//765 4//4\n",
        "f 98//98 765//765 4//4 \n", "f 98//98 765//765 41//41\n", "f 98/1/98 765//765 4//4\n"}) {
    text = padded(other);
    EXPECT_EQ(with_normals.read(text.data(), position), nullptr) << other;
  }
  obj_lean::FaceShape plain = learnt("f 1 22 333\n");
  EXPECT_FALSE(plain.normals());
  text = padded("f 7 89 100\n");
  ASSERT_NE(plain.read(text.data(), position), nullptr);
  EXPECT_EQ(position[2], 100u);
  // Corners of other forms, or mixed, give no shape.
  for (const char* line :
       {"f 1//2 2//2 3//3\n", "f 1/1/1 2/2/2 3/3/3\n", "f 1//1 2 3//3\n", "f 1//1 2//2 3//3\r\n"}) {
    obj_lean::FaceShape none = learnt(line);
    text = padded(line);
    EXPECT_EQ(none.read(text.data(), position), nullptr) << line;
  }
}

// Runs of lines of one shape with `line` among them, read by both passes on 1 and 3 threads,
// normals stored or only checked: what parse_obj gives, or its refusal.
void expect_runs_as_general(const std::string& line) {
  std::string text;
  for (int i = 1; i <= 40; ++i)
    text += "v " + std::to_string(i % 10) + ".25 -0.5" + std::to_string(i % 10) + " 1" +
            std::to_string(i % 10) + ".125\nvn -0.1" + std::to_string(i % 10) + " 0.99 0.00\n";
  text += line;
  for (int i = 1; i + 2 <= 40; ++i) {
    const std::string a = std::to_string(10 + i % 20), b = std::to_string(11 + i % 20),
                      c = std::to_string(12 + i % 20);
    text += "f " + a + "//" + a + " " + b + "//" + b + " " + c + "//" + c + "\n";
    if (i == 20) text += line;
  }
  const std::string error = parse_obj_error(text);
  const core::ThreadPool pool(3);
  for (const core::ParallelRunner* runner : {static_cast<const core::ParallelRunner*>(nullptr),
                                             static_cast<const core::ParallelRunner*>(&pool)}) {
    for (const bool store_normals : {true, false}) {
      std::optional<ObjParts> parts =
          parse_obj_elements(text, runner, {}, std::size_t{1} << 20, store_normals);
      const bool read = parts && parse_obj_faces(text, *parts, {}, runner);
      EXPECT_EQ(read, error.empty()) << line;
      if (!read || !error.empty()) continue;
      const ObjGeometry expected = parse_obj(text, "t.obj");
      const ObjGeometry got = joined_parts(*parts);
      ASSERT_EQ(got.positions.size(), expected.positions.size()) << line;
      EXPECT_EQ(std::memcmp(got.positions.data(), expected.positions.data(),
                            got.positions.size() * sizeof got.positions[0]),
                0)
          << line;
      if (store_normals) {
        ASSERT_EQ(got.normals.size(), expected.normals.size()) << line;
        EXPECT_EQ(std::memcmp(got.normals.data(), expected.normals.data(),
                              got.normals.size() * sizeof got.normals[0]),
                  0)
            << line;
      } else {
        for (std::size_t n = 0; n < expected.normals.size(); ++n) {
          const core::Vec3 normal = read_obj_normal(text, *parts, n);
          EXPECT_EQ(std::memcmp(&normal, &expected.normals[n], sizeof normal), 0) << line;
        }
      }
      ASSERT_EQ(got.triangles.size(), expected.triangles.size()) << line;
      EXPECT_EQ(std::memcmp(got.triangles.data(), expected.triangles.data(),
                            got.triangles.size() * sizeof got.triangles[0]),
                0)
          << line;
      EXPECT_EQ(got.every_corner_has_normal, expected.every_corner_has_normal) << line;
    }
  }
  expect_terrain_refuses_as_parse_obj(text, error, &pool, line);
}

TEST(ObjLineShape, RunsOfOneShapeReadAsTheGeneralReader) {
  const char* const lines[] = {"",
                               "f 11//11 12//12 13//13\n",
                               "f 11//12 12//12 13//13\n",
                               "f 00//00 12//12 13//13\n",
                               "f 11//11 12//12 41//41\n",
                               "f 11//11 12//12 99//99\n",
                               "f 11 12 13\n",
                               "v 5.25 -0.55 15.125\n",
                               "v 5.25 -0.55 15.125 1.0\n",
                               "v 5.25 0.55 15.125\n",
                               "v 5.25 -0.5x 15.125\n",
                               "v 5.25 -0.55 15e125\n",
                               "vn -0.15 0.99 0.00\n",
                               "vn -0.15 0.99 0.0x\n",
                               "vn -0.15 0.99 0.0.\n",
                               "vn -0.15 0.99 0.00 1\n",
                               "vn -0.15 0.99 0.00\r\n",
                               "vn -0.15 0.99 -0.00\n",
                               "v 5.25 -0.55 15.125\r\n",
                               "f 11/1/11 12/1/12 13/1/13\n"};
  for (const char* line : lines) {
    SCOPED_TRACE(line);
    expect_runs_as_general(line);
  }
}

}  // namespace
}  // namespace ikfix::io
