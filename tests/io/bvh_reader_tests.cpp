// BVH reader: real clips, clip() semantics on hand-written files, tolerated formatting, and one
// test per kind of malformed input (each must name the right line).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "counting_runner.hpp"
#include "io/bvh/bvh.hpp"
#include "io/decimal.hpp"
#include "io/error.hpp"
#include "test_data.hpp"
#include "test_scratch.hpp"

namespace {

namespace bvh = ikfix::io::bvh;
using ikfix::core::Quat;
using ikfix::core::Transform;
using ikfix::core::Vec3;
using ikfix::io::InputError;

std::vector<std::filesystem::path> real_bvh_files() {
  std::vector<std::filesystem::path> files;
  const auto dir = ikfix::test::shared_data_dir() / "anim" / "bvh";
  if (!std::filesystem::is_directory(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".bvh") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Reads "Frames: N" with a naive scan, independent of the reader.
int header_frames(std::string_view text) {
  const auto at = text.find("Frames:");
  return std::stoi(std::string(text.substr(at + 7, 32)));
}

// World transforms by a plain forward pass (parents come first).
std::vector<Transform> world_pose(const ikfix::core::Skeleton& s, const ikfix::core::Clip& c,
                                  int frame) {
  std::vector<Transform> world(s.joint_count());
  for (int j = 0; j < s.joint_count(); ++j)
    world[j] = s.parents[j] < 0 ? c.at(frame, j)
                                : ikfix::core::compose(world[s.parents[j]], c.at(frame, j));
  return world;
}

void expect_vec_near(const Vec3& a, const Vec3& b, double tol) {
  EXPECT_NEAR(a.x, b.x, tol);
  EXPECT_NEAR(a.y, b.y, tol);
  EXPECT_NEAR(a.z, b.z, tol);
}

// A two-joint arm: root with 6 channels, child rotating its End Site.
const char* kArm =
    "HIERARCHY\n"
    "ROOT Hips\n"
    "{\n"
    "  OFFSET 0 0 0\n"
    "  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n"
    "  JOINT Arm\n"
    "  {\n"
    "    OFFSET 1 0 0\n"
    "    CHANNELS 3 Zrotation Xrotation Yrotation\n"
    "    End Site\n"
    "    {\n"
    "      OFFSET 0 2 0\n"
    "    }\n"
    "  }\n"
    "}\n"
    "MOTION\n"
    "Frames: 3\n"
    "Frame Time: 0.04\n"
    "1 2 3 0 0 0 90 0 0\n"
    "0 0 0 0 0 90 0 0 0\n"
    "0 0 0 0 0 0 10 20 30\n";

// ---------------------------------------------------------------------------------------------
// Real files.

TEST(BvhReader, EveryRealFileParses) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto files = real_bvh_files();
  ASSERT_FALSE(files.empty());
  bvh::ParseOptions tolerant;
  tolerant.allow_extra_frame_lines = true;
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    const std::string name = path.filename().string();
    // Strict parsing accepts every file except the one with a surplus frame line.
    bvh::Document doc;
    try {
      doc = bvh::read_file(path);
    } catch (const InputError& e) {
      EXPECT_EQ(name, "boxing_toes.bvh") << e.what();
      doc = bvh::read_file(path, tolerant);
    }
    const int expected_joints =
        name.rfind("boxing_toes", 0) == 0 ? 21 : (name.find("salsa_sl") != name.npos ? 43 : 31);
    EXPECT_EQ(doc.joint_count(), expected_joints);
    EXPECT_EQ(doc.frame_count, header_frames(doc.text));
    EXPECT_EQ(doc.channel_count, 6 + 3 * (expected_joints - 1));
    EXPECT_EQ(doc.values.size(), static_cast<std::size_t>(doc.frame_count) * doc.channel_count);
    EXPECT_GT(doc.frame_time, 0.0);

    const auto skel = bvh::skeleton(doc);
    EXPECT_EQ(skel.validate(), "");
    EXPECT_EQ(skel.parents[0], -1);
    const auto c = bvh::clip(doc);
    EXPECT_EQ(c.frame_count, doc.frame_count);
    EXPECT_EQ(c.joint_count, doc.joint_count());
    EXPECT_NEAR(c.fps, 1.0 / doc.frame_time, 1e-9);
    for (const Transform& t : c.locals) {
      ASSERT_TRUE(ikfix::core::is_finite(t.translation));
      ASSERT_NEAR(glm::length(t.rotation), 1.0, 1e-12);
    }
    EXPECT_GT(std::count_if(skel.end_sites.begin(), skel.end_sites.end(),
                            [](const auto& e) { return e.has_value(); }),
              4);
    // Surplus frame lines only where the file really has them (see next test).
    EXPECT_EQ(doc.extra_frame_lines, name == "boxing_toes.bvh" ? 1 : 0);
  }
}

TEST(BvhReader, RealFileDetails) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = ikfix::test::shared_data_dir() / "anim" / "bvh";

  const auto jumps = bvh::read_file(dir / "cmu_01_01_forward_jumps.bvh");
  EXPECT_EQ(jumps.frame_count, 2752);
  EXPECT_EQ(jumps.view(jumps.frame_time_text), ".0083333");
  EXPECT_EQ(jumps.joints[0].name, "Hips");
  EXPECT_EQ(jumps.joints[0].channels.size(), 6u);
  EXPECT_EQ(jumps.joints[1].name, "LHipJoint");
  EXPECT_EQ(jumps.line_endings, bvh::LineEndings::lf);
  EXPECT_EQ(jumps.first_frame_line, 188);
  EXPECT_EQ(jumps.value_view(0, 0), "9.3722");
  ASSERT_TRUE(jumps.joints[5].end_site.has_value());  // LeftToeBase
  EXPECT_NEAR(jumps.joints[5].end_site->z, 1.18966, 1e-12);

  // Mixed orders in one file: ZXY and ZYX joints.
  const auto mixed = bvh::read_file(dir / "cmu_131_01_start_walk_stop_max.bvh");
  EXPECT_EQ(mixed.line_endings, bvh::LineEndings::mixed);
  int zxy = 0, zyx = 0;
  for (const auto& j : mixed.joints) {
    if (j.channels.size() != 3) continue;
    if (j.channels[1] == bvh::ChannelKind::Xrotation) ++zxy;
    if (j.channels[1] == bvh::ChannelKind::Yrotation) ++zyx;
  }
  EXPECT_EQ(zxy, 12);
  EXPECT_EQ(zyx, 18);

  EXPECT_EQ(bvh::read_file(dir / "cmu_02_01_walk.bvh").line_endings, bvh::LineEndings::crlf);

  // boxing_toes.bvh declares "Frames:    3069" but has 3070 frame lines: strict parsing points
  // at the surplus line; tolerant parsing keeps the declared count.
  const auto boxing = dir / "boxing_toes.bvh";
  try {
    bvh::read_file(boxing);
    ADD_FAILURE() << "expected an error for the surplus frame line";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3199);
    EXPECT_NE(std::string(e.what()).find("more frame lines"), std::string::npos) << e.what();
  }
  bvh::ParseOptions tolerant;
  tolerant.allow_extra_frame_lines = true;
  const auto doc = bvh::read_file(boxing, tolerant);
  EXPECT_EQ(doc.frame_count, 3069);
  EXPECT_EQ(doc.extra_frame_lines, 1);
  EXPECT_EQ(doc.view(doc.frame_time_text), "0.010000");
}

// ---------------------------------------------------------------------------------------------
// clip() and skeleton() semantics.

TEST(BvhReader, SkeletonFromHierarchy) {
  const auto doc = bvh::parse(kArm, "arm.bvh");
  const auto s = bvh::skeleton(doc);
  ASSERT_EQ(s.joint_count(), 2);  // the End Site is not a joint
  EXPECT_EQ(s.names[0], "Hips");
  EXPECT_EQ(s.names[1], "Arm");
  EXPECT_EQ(s.parents[0], -1);
  EXPECT_EQ(s.parents[1], 0);
  expect_vec_near(s.rest[1].translation, Vec3(1, 0, 0), 0.0);
  EXPECT_EQ(s.rest[1].rotation, Quat(1, 0, 0, 0));
  EXPECT_EQ(s.rest[1].scale, Vec3(1.0));
  EXPECT_FALSE(s.end_sites[0].has_value());
  ASSERT_TRUE(s.end_sites[1].has_value());
  expect_vec_near(*s.end_sites[1], Vec3(0, 2, 0), 0.0);
  EXPECT_EQ(doc.joints[1].first_value, 6);
  EXPECT_EQ(doc.channel_count, 9);
}

TEST(BvhReader, ClipForwardKinematics) {
  const auto doc = bvh::parse(kArm, "arm.bvh");
  const auto s = bvh::skeleton(doc);
  const auto c = bvh::clip(doc);
  EXPECT_DOUBLE_EQ(c.fps, 25.0);
  ASSERT_EQ(c.frame_count, 3);

  // Frame 0: root at (1,2,3); Arm Zrotation 90 turns its End Site (0,2,0) to (-2,0,0).
  auto world = world_pose(s, c, 0);
  expect_vec_near(world[0].translation, Vec3(1, 2, 3), 1e-15);
  expect_vec_near(world[1].translation, Vec3(2, 2, 3), 1e-15);
  expect_vec_near(ikfix::core::transform_point(world[1], *s.end_sites[1]), Vec3(0, 2, 3), 1e-14);

  // Frame 1: root Xrotation 90 (last root channel): takes the Arm's Y-pointing tip to +Z.
  world = world_pose(s, c, 1);
  expect_vec_near(world[1].translation, Vec3(1, 0, 0), 1e-15);
  expect_vec_near(ikfix::core::transform_point(world[1], *s.end_sites[1]), Vec3(1, 0, 2), 1e-14);

  // Frame 2: Arm "Zrotation Xrotation Yrotation" = 10 20 30 -> Rz(10) * Rx(20) * Ry(30).
  const Quat expected = glm::angleAxis(glm::radians(10.0), Vec3(0, 0, 1)) *
                        glm::angleAxis(glm::radians(20.0), Vec3(1, 0, 0)) *
                        glm::angleAxis(glm::radians(30.0), Vec3(0, 1, 0));
  const Quat got = c.at(2, 1).rotation;
  EXPECT_NEAR(std::abs(glm::dot(got, expected)), 1.0, 1e-15);
  expect_vec_near(c.at(2, 1).translation, Vec3(1, 0, 0), 0.0);
  EXPECT_EQ(c.at(2, 1).scale, Vec3(1.0));
}

TEST(BvhReader, PositionChannelsOnAnyJointAndSubsets) {
  const char* text =
      "HIERARCHY\n"
      "ROOT R\n{\n OFFSET 5 6 7\n CHANNELS 1 Yposition\n"
      " JOINT A\n {\n  OFFSET 1 1 1\n  CHANNELS 4 Xrotation Zposition Xposition Yrotation\n"
      "  JOINT Fixed\n  {\n   OFFSET 0 3 0\n   CHANNELS 0\n  }\n }\n}\n"
      "MOTION\nFrames: 1\nFrame Time: 1\n"
      "2 90 0.5 0.25 0\n";
  const auto doc = bvh::parse(text, "subset.bvh");
  const auto c = bvh::clip(doc);
  expect_vec_near(c.at(0, 0).translation, Vec3(5, 8, 7), 0.0);  // OFFSET + Yposition
  expect_vec_near(c.at(0, 1).translation, Vec3(1.25, 1, 1.5), 0.0);
  const Quat x90 = glm::angleAxis(glm::radians(90.0), Vec3(1, 0, 0));
  EXPECT_NEAR(std::abs(glm::dot(c.at(0, 1).rotation, x90)), 1.0, 1e-15);
  expect_vec_near(c.at(0, 2).translation, Vec3(0, 3, 0), 0.0);
  EXPECT_EQ(c.at(0, 2).rotation, Quat(1, 0, 0, 0));
  EXPECT_EQ(c.fps, 1.0);
}

// ---------------------------------------------------------------------------------------------
// Formatting the reader tolerates (and keeps byte for byte).

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

void expect_parses_like_arm(const std::string& text, const std::string& what) {
  SCOPED_TRACE(what);
  bvh::Document doc;
  try {
    doc = bvh::parse(text, "variant.bvh");
  } catch (const InputError& e) {
    FAIL() << e.what();
  }
  EXPECT_EQ(doc.joint_count(), 2);
  EXPECT_EQ(doc.frame_count, 3);
  EXPECT_EQ(doc.value(2, 8), 30.0);
  EXPECT_EQ(doc.value(0, 0), 1.0);
  // Byte-exact when nothing changed; numerically identical when everything is rewritten.
  const auto c = bvh::clip(doc);
  const bool none[2] = {false, false};
  const bool all[2] = {true, true};
  EXPECT_EQ(bvh::write(doc, c, none), text);
  const auto again = bvh::parse(bvh::write(doc, c, all), "again.bvh");
  for (std::size_t n = 0; n < doc.values.size(); ++n)
    EXPECT_NEAR(again.values[n], doc.values[n], 1e-12) << n;
}

TEST(BvhReader, ToleratesLineEndingsWhitespaceAndCase) {
  const std::string arm = kArm;
  expect_parses_like_arm(arm, "plain");
  expect_parses_like_arm(replace_all(arm, "\n", "\r\n"), "CRLF");
  expect_parses_like_arm(replace_all(arm, "\n", "\r"), "CR only");
  {
    // Mixed: CRLF in the hierarchy, LF in the frames.
    std::string mixed = arm;
    const auto motion = mixed.find("MOTION");
    mixed = replace_all(mixed.substr(0, motion), "\n", "\r\n") + mixed.substr(motion);
    expect_parses_like_arm(mixed, "mixed");
  }
  expect_parses_like_arm(replace_all(arm, " ", " \t  "), "tabs and spaces");
  expect_parses_like_arm(replace_all(arm, "\n", "  \t\n"), "trailing blanks");
  expect_parses_like_arm(replace_all(arm, "Frames: 3", "Frames:    3"), "Frames with spaces");
  expect_parses_like_arm(replace_all(arm, "Frames: 3", "Frames :3"), "Frames tight");
  expect_parses_like_arm(replace_all(replace_all(arm, "Hips\n{", "Hips {"), "Site\n    {", "Site{"),
                         "brace on the keyword line");
  expect_parses_like_arm(replace_all(replace_all(arm, "OFFSET", "offset"), "CHANNELS", "Channels"),
                         "keyword case");
  expect_parses_like_arm("\xEF\xBB\xBF" + arm, "byte order mark");
  expect_parses_like_arm(arm.substr(0, arm.size() - 1), "no final newline");
  expect_parses_like_arm(arm + "\n\n  \n", "trailing blank lines");
  expect_parses_like_arm(replace_all(arm, "0 0 0 0 0 90 0 0 0\n", "\n0 0 0 0 0 90 0 0 0\n\n"),
                         "blank lines between frames");
  expect_parses_like_arm(replace_all(arm, "1 2 3 0 0 0 90 0 0", "+1 2.0e0 3.000 -0 .0 0. 9e1 0 0"),
                         "number spellings");
  expect_parses_like_arm(replace_all(arm, "Frame Time: 0.04", "Frame Time:\t.04"), "frame time");
}

// Document::frame_spans (eight bytes at a time) finds every value where value_span's
// one-by-one scan does: long and short values, blanks of every kind, line endings, the last
// value at the very end of the text, on the hand-written arm and on every real file.
TEST(BvhReader, FrameSpansEqualOneByOneScan) {
  auto expect_same_spans = [](const bvh::Document& doc, const std::string& what) {
    SCOPED_TRACE(what);
    std::vector<bvh::TextSpan> spans(static_cast<std::size_t>(doc.channel_count));
    for (int f = 0; f < doc.frame_count; ++f) {
      doc.frame_spans(f, spans);
      for (int c = 0; c < doc.channel_count; ++c) {
        const bvh::TextSpan one = doc.value_span(f, c);
        ASSERT_EQ(spans[c].offset, one.offset) << "frame " << f << " channel " << c;
        ASSERT_EQ(spans[c].length, one.length) << "frame " << f << " channel " << c;
      }
      // A prefix of the channels (the writer asks up to its last edited one).
      std::vector<bvh::TextSpan> some(2);
      doc.frame_spans(f, some);
      EXPECT_EQ(some[1].offset, spans[1].offset);
    }
  };
  const std::string arm = kArm;
  const std::string long_values = replace_all(
      arm, "1 2 3 0 0 0 90 0 0", "1.25000000000000000001 -2.5e-7 3 0 0 0 -90.123456789 0 0");
  for (const auto& [text, what] : std::vector<std::pair<std::string, std::string>>{
           {arm, "plain"},
           {long_values, "long values"},
           {replace_all(long_values, "\n", "\r\n"), "CRLF"},
           {replace_all(long_values, " ", " \t\v\f  "), "every blank"},
           {replace_all(long_values, "\n", "  \t\n"), "trailing blanks"},
           {long_values.substr(0, long_values.size() - 1), "no final newline"},
           {arm.substr(0, arm.size() - 1), "short last value at the end"}})
    expect_same_spans(bvh::parse(text, what), what);
  for (const auto& path : real_bvh_files()) {
    bvh::ParseOptions tolerant;
    tolerant.allow_extra_frame_lines = true;
    expect_same_spans(bvh::read_file(path, tolerant), path.filename().string());
  }
}

TEST(BvhReader, JointNamesWithSpacesAndSeveralRoots) {
  const char* text =
      "HIERARCHY\nROOT Left Hip Root\n{\n OFFSET 0 0 0\n CHANNELS 1 Zrotation\n}\n"
      "ROOT Second\n{\n OFFSET 1 0 0\n CHANNELS 1 Xrotation\n}\n"
      "MOTION\nFrames: 1\nFrame Time: 0.1\n1 2\n";
  const auto doc = bvh::parse(text, "roots.bvh");
  ASSERT_EQ(doc.joint_count(), 2);
  EXPECT_EQ(doc.joints[0].name, "Left Hip Root");
  EXPECT_EQ(doc.joints[1].parent, -1);
  EXPECT_EQ(doc.joints[1].first_value, 1);
}

TEST(BvhReader, ZeroFramesIsAValidFile) {
  const auto doc = bvh::parse(
      "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n}\n"
      "MOTION\nFrames: 0\nFrame Time: 0.1\n",
      "empty_motion.bvh");
  EXPECT_EQ(doc.frame_count, 0);
  EXPECT_EQ(bvh::clip(doc).locals.size(), 0u);
}

// ---------------------------------------------------------------------------------------------
// Malformed input: each throws InputError naming the file and the offending line.

struct Bad {
  const char* what;
  std::string text;
  int line;
  const char* cause;  // a fragment of the message
};

std::string arm_with(const std::string& from, const std::string& to) {
  const std::string arm = kArm;
  const auto at = arm.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return arm.substr(0, at) + to + arm.substr(at + from.size());
}

TEST(BvhReader, MalformedInputsNameTheLine) {
  const std::string arm = kArm;
  const std::vector<Bad> cases = {
      {"empty file", "", 1, "empty"},
      {"only whitespace", " \n\t\n", 1, "only whitespace"},
      {"no HIERARCHY", "ROOT Hips\n{\n}\n", 1, "HIERARCHY"},
      {"truncated in hierarchy", arm.substr(0, arm.find("    End Site")), 10,
       "end of file inside joint 'Arm'"},
      {"truncated in a frame line", arm.substr(0, arm.size() - 6), 21, "has 7 values; expected 9"},
      {"truncated after MOTION", arm.substr(0, arm.find("Frames")), 17, "Frames"},
      {"truncated after Frames", arm.substr(0, arm.find("Frame Time")), 18, "Frame Time"},
      {"too few values", arm_with("0 0 0 0 0 90 0 0 0", "0 0 0 0 0 90 0 0"), 20,
       "has 8 values; expected 9"},
      {"too many values", arm_with("0 0 0 0 0 90 0 0 0", "0 0 0 0 0 90 0 0 0 4 5"), 20,
       "has 11 values; expected 9"},
      {"fewer frame lines", arm_with("Frames: 3", "Frames: 5"), 22,
       "file ends after 3 frame lines"},
      {"more frame lines", arm_with("Frames: 3", "Frames: 2"), 21, "more frame lines"},
      {"NaN value", arm_with("0 0 0 0 0 90 0 0 0", "0 0 0 nan 0 90 0 0 0"), 20,
       "'nan' is not a finite"},
      {"inf value", arm_with("0 0 0 0 0 90 0 0 0", "0 0 0 0 -inf 90 0 0 0"), 20,
       "'-inf' is not a finite"},
      {"out of range value", arm_with("0 0 0 0 0 90 0 0 0", "0 0 0 0 1e999 90 0 0 0"), 20,
       "out of range"},
      {"garbage value", arm_with("0 0 0 0 0 90 0 0 0", "0 0 0 0 1.5x 90 0 0 0"), 20,
       "'1.5x' is not a number"},
      {"plus minus", arm_with("0 0 0 0 0 90 0 0 0", "0 0 0 0 +-1 90 0 0 0"), 20, "not a number"},
      {"unknown keyword", arm_with("    CHANNELS 3", "    CHANELS 3"), 9,
       "unknown keyword 'CHANELS'"},
      {"unknown keyword at top", arm_with("MOTION", "MOTON"), 16, "unknown keyword 'MOTON'"},
      {"missing MOTION", arm.substr(0, arm.find("MOTION")), 16, "no MOTION"},
      {"zero frame time", arm_with("Frame Time: 0.04", "Frame Time: 0"), 18, "must be positive"},
      {"negative frame time", arm_with("Frame Time: 0.04", "Frame Time: -0.04"), 18,
       "must be positive"},
      {"NaN frame time", arm_with("Frame Time: 0.04", "Frame Time: nan"), 18, "not a finite"},
      {"missing brace", arm_with("  JOINT Arm\n  {\n", "  JOINT Arm\n"), 7,
       "expected '{' after JOINT"},
      {"extra closing brace", arm_with("}\nMOTION", "}\n}\nMOTION"), 16, "unmatched '}'"},
      {"missing closing brace", arm_with("  }\n}\nMOTION", "  }\nMOTION"), 15,
       "'MOTION' inside joint 'Hips' (missing '}')"},
      {"stray open brace", arm_with("    OFFSET 1 0 0", "    {"), 8, "unexpected '{'"},
      {"CHANNELS count mismatch",
       arm_with("CHANNELS 3 Zrotation Xrotation Yrotation", "CHANNELS 3 Zrotation Xrotation"), 9,
       "says 3 but lists 2"},
      {"CHANNELS too many names",
       arm_with("CHANNELS 3 Zrotation Xrotation Yrotation",
                "CHANNELS 2 Zrotation Xrotation Yrotation"),
       9, "says 2 but lists 3"},
      {"CHANNELS bad count", arm_with("CHANNELS 3 Z", "CHANNELS three Z"), 9,
       "expected a channel count"},
      {"CHANNELS count > 6", arm_with("CHANNELS 3 Z", "CHANNELS 7 Z"), 9, "outside 0..6"},
      {"unknown channel",
       arm_with("Zrotation Xrotation Yrotation", "Zrotation Wrotation Yrotation"), 9,
       "unknown channel 'Wrotation'"},
      {"duplicate channel",
       arm_with("Zrotation Xrotation Yrotation", "Zrotation Xrotation Zrotation"), 9,
       "listed twice"},
      {"missing CHANNELS", arm_with("    CHANNELS 3 Zrotation Xrotation Yrotation\n", ""), 13,
       "no CHANNELS"},
      {"short OFFSET", arm_with("OFFSET 1 0 0", "OFFSET 1 0"), 8, "has 2 numbers; expected 3"},
      {"long OFFSET", arm_with("OFFSET 1 0 0", "OFFSET 1 0 0 4"), 8, "more than 3 numbers"},
      {"bad OFFSET number", arm_with("OFFSET 1 0 0", "OFFSET 1 zero 0"), 8,
       "'zero' is not a number"},
      {"End without Site", arm_with("End Site", "End Point"), 10, "expected 'End Site'"},
      {"End Site with channels", arm_with("      OFFSET 0 2 0", "      CHANNELS 1 Xrotation"), 12,
       "in End Site of joint 'Arm'"},
      {"End Site without offset", arm_with("      OFFSET 0 2 0\n", ""), 12,
       "End Site of joint 'Arm' has no OFFSET"},
      {"negative Frames", arm_with("Frames: 3", "Frames: -3"), 17, "out of range"},
      {"Frames not a number", arm_with("Frames: 3", "Frames: three"), 17,
       "expected a whole number"},
      {"Frames fraction", arm_with("Frames: 3", "Frames: 3.5"), 17, "expected a whole number"},
      {"no hierarchy joints", "HIERARCHY\nMOTION\nFrames: 0\nFrame Time: 1\n", 2, "no joints"},
      {"JOINT without a name", arm_with("JOINT Arm", "JOINT"), 6, "JOINT without a name"},
      {"huge Frames", arm_with("Frames: 3", "Frames: 2000000000"), 22,
       "file ends after 3 frame lines"},
  };
  for (const Bad& bad : cases) {
    SCOPED_TRACE(bad.what);
    try {
      bvh::parse(bad.text, "bad.bvh");
      ADD_FAILURE() << "no error for: " << bad.what;
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), bad.line) << e.what();
      EXPECT_EQ(e.file(), "bad.bvh");
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("bad.bvh:" + std::to_string(bad.line) + ": ", 0), 0u) << message;
      EXPECT_NE(message.find(bad.cause), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << "message must be one line";
    } catch (const std::exception& e) {
      ADD_FAILURE() << "wrong exception type: " << e.what();
    }
  }
}

// Frame values in every plain form the reader's fast path takes, and the forms it leaves to the
// general path: each value and its decimals as std::from_chars and the text give them.
TEST(BvhReader, FrameValuesReadExactlyInEveryForm) {
  const std::vector<std::string> forms = {
      "0",
      "-0",
      "5.",
      "-5.",
      ".5",
      "-.5",
      "0012.50",
      "-17.3198",
      "9.3722",
      "123456789.123456789",
      "1234567890123456789",        // 19 digits: the fast path's longest
      "12345678901234567890",       // 20 digits: general path
      "9007199254740993",           // mantissa above 2^53: general path
      "0.12345678901234567890123",  // 23 decimals: general path
      "1e3",
      "-2.5E-2",
      "+3",
      "+.25",
      "0.000000000000000000001"};
  for (const std::string& form : forms) {
    SCOPED_TRACE(form);
    for (const char* after : {" ", "\t", "\r\n", ""}) {  // "": the value ends the file
      const std::string text =
          arm_with("0 0 0 0 0 0 10 20 30\n", "0 0 0 0 0 0 10 20 " + form + after);
      const auto doc = bvh::parse(text, "arm.bvh");
      const std::string_view shown =
          form[0] == '+' ? std::string_view(form).substr(1) : std::string_view(form);
      double expected = 0.0;
      std::from_chars(shown.data(), shown.data() + shown.size(), expected);
      EXPECT_EQ(std::bit_cast<std::uint64_t>(doc.value(2, 8)),
                std::bit_cast<std::uint64_t>(expected));
      EXPECT_EQ(doc.value_view(2, 8), form);
      EXPECT_EQ(doc.channel_decimals[8], ikfix::io::decimals_shown(shown));
    }
  }
}

// The same forms in every slot of a line with many bytes after it (where the reader reads
// numbers eight bytes at a time), between the blanks and before the line breaks a frame line may
// have: each value as std::from_chars gives it, each channel's decimals as its text shows them;
// a malformed value among them is the same error as anywhere.
TEST(BvhReader, FrameValuesReadExactlyWhateverTheBlanks) {
  const std::vector<std::string> forms = {
      "0",        "-0",        "5.",          "-5.",       ".5",      "-.5",      "0012.50",
      "-17.3198", "9.3722",    "-103.167999", "0.658012",  "1234567", "-7654321", "12345678",
      "1e3",      "-2.5E-2",   "+3",          "+.25",      "-1.5e+2", "123.4567", "0.000000000001",
      "1.",       "-999999.9", "12345678.25", "0.1234567", "-.0"};
  const std::vector<std::string> blanks = {" ", "  ", "\t", " \t ", "\t\t", "   "};
  for (std::size_t k = 0; k < forms.size(); ++k) {
    std::vector<std::string> used;
    // The line of this k's values, slot 4 replaced by `fourth` when given.
    auto line_of = [&](const std::string& fourth) {
      std::string line;
      used.clear();
      for (std::size_t c = 0; c < 9; ++c) {
        if (c > 0) line += blanks[(k + c) % blanks.size()];
        used.push_back(c == 4 && !fourth.empty() ? fourth : forms[(k + c) % forms.size()]);
        line += used.back();
      }
      return line;
    };
    const std::string bad = line_of("1.5x");
    const std::string line = line_of("");
    for (const char* eol : {"\n", "\r\n", " \n", "\t\r\n"}) {
      SCOPED_TRACE(line + eol);
      const auto doc = bvh::parse(arm_with("1 2 3 0 0 0 90 0 0\n", line + eol), "arm.bvh");
      for (int c = 0; c < 9; ++c) {
        const std::string& form = used[static_cast<std::size_t>(c)];
        const std::string_view shown =
            form[0] == '+' ? std::string_view(form).substr(1) : std::string_view(form);
        double expected = 0.0;
        std::from_chars(shown.data(), shown.data() + shown.size(), expected);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(doc.value(0, c)),
                  std::bit_cast<std::uint64_t>(expected))
            << form;
        EXPECT_EQ(doc.value_view(0, c), form);
        // The other frames' values are integers: the channel shows this value's decimals.
        EXPECT_EQ(doc.channel_decimals[static_cast<std::size_t>(c)],
                  ikfix::io::decimals_shown(shown))
            << form;
      }
    }
    try {
      bvh::parse(arm_with("1 2 3 0 0 0 90 0 0\n", bad + "\n"), "arm.bvh");
      ADD_FAILURE() << "no error: " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), 19) << bad;
      EXPECT_NE(std::string(e.what()).find("value '1.5x' is not a number"), std::string::npos)
          << e.what();
    }
  }
}

// ParseOptions::channels_to_read: the channels not asked for hold NaN in Document::values, but
// their text is checked as strictly (the same error), their decimals are counted and value()
// still gives their numbers (from the text); position channels are always made.
bvh::ParseOptions only_channels(std::vector<char> flags) {
  bvh::ParseOptions options;
  options.channels_to_read = [flags](const bvh::Document& hierarchy) {
    EXPECT_TRUE(hierarchy.values.empty());  // asked before the frame lines
    return flags;
  };
  return options;
}

void expect_same_but_unmade(const bvh::Document& all, const bvh::Document& some) {
  ASSERT_EQ(some.values.size(), all.values.size());
  EXPECT_EQ(some.channel_decimals, all.channel_decimals);
  for (int f = 0; f < all.frame_count; ++f)
    for (int c = 0; c < all.channel_count; ++c) {
      const double made = some.values[static_cast<std::size_t>(f) * all.channel_count + c];
      if (some.channels_read[static_cast<std::size_t>(c)])
        EXPECT_EQ(std::bit_cast<std::uint64_t>(made),
                  std::bit_cast<std::uint64_t>(all.value(f, c)));
      else
        EXPECT_TRUE(std::isnan(made));
      EXPECT_EQ(std::bit_cast<std::uint64_t>(some.value(f, c)),
                std::bit_cast<std::uint64_t>(all.value(f, c)));
    }
}

TEST(BvhReader, ChannelsNotAskedForAreCheckedButNotMade) {
  const std::vector<std::string> lines = {"1 2 3 0 0 0 90 0 0",
                                          "9.3722 -17.3198 .5 -0 5. 1e3 "
                                          "+3 -2.5E-2 12345678.25",
                                          "0.1234567 -.5 0012.50 -999999.9 1. 0.000000000001 "
                                          "1234567 -7654321 123.4567"};
  const std::vector<char> flags = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  for (const std::string& line : lines) {
    SCOPED_TRACE(line);
    const std::string text = arm_with("0 0 0 0 0 90 0 0 0", line);
    const auto all = bvh::parse(text, "arm.bvh");
    const auto some = bvh::parse(text, "arm.bvh", only_channels(flags));
    EXPECT_EQ(some.channels_read, (std::vector<char>{1, 1, 1, 1, 0, 0, 0, 1, 0}));
    expect_same_but_unmade(all, some);
  }
  // Every flag set (positions count as set), or none given: nothing recorded.
  EXPECT_TRUE(bvh::parse(kArm, "arm.bvh", only_channels({0, 0, 0, 1, 1, 1, 1, 1, 1}))
                  .channels_read.empty());
  EXPECT_TRUE(bvh::parse(kArm, "arm.bvh", only_channels({})).channels_read.empty());
  EXPECT_THROW(bvh::parse(kArm, "arm.bvh", only_channels({1, 0})), std::invalid_argument);
  for (const char* bad : {"1.5x", "+-1", "nan", "1e999", "-", "."}) {
    try {
      bvh::parse(arm_with("0 0 0 0 0 90 0 0 0", std::string("0 0 0 0 0 90 ") + bad + " 0 0"),
                 "arm.bvh", only_channels(flags));
      ADD_FAILURE() << "no error: " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), 20) << bad;
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
          << e.what();
    }
  }
}

TEST(BvhReader, RealFileWithSomeChannelsReadsTheSame) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto path = ikfix::test::shared_data_dir() / "anim" / "bvh" / "cmu_01_01_forward_jumps.bvh";
  const auto all = bvh::read_file(path);
  std::vector<char> flags(static_cast<std::size_t>(all.channel_count), 0);
  for (std::size_t c = 0; c < flags.size(); c += 4) flags[c] = 1;
  const auto some = bvh::read_file(path, only_channels(flags));
  ASSERT_FALSE(some.channels_read.empty());
  expect_same_but_unmade(all, some);
  // The frame lines on several threads: the same.
  const ikfix::test::CountingRunner runner(2);
  bvh::ParseOptions threaded = only_channels(flags);
  threaded.runner = &runner;
  const auto blocks = bvh::read_file(path, threaded);
  EXPECT_GT(runner.loops(), 0);
  expect_same_but_unmade(all, blocks);
}

// What ends a value is a blank, a line break or the end of the file; a stray NUL byte is not.
TEST(BvhReader, NulByteInAFrameLineIsAnError) {
  const std::string text = arm_with("0 0 0 0 0 90 0 0 0", std::string("0 0 0 0 0 90\0 0 0 0", 19));
  try {
    bvh::parse(text, "arm.bvh");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 20);
    EXPECT_NE(std::string(e.what()).find("is not a number"), std::string::npos) << e.what();
  }
}

TEST(BvhReader, EveryTruncationFailsCleanly) {
  // Cutting the file anywhere must give an InputError, never a crash or a silent success
  // (except cuts inside the very last value).
  const std::string arm = kArm;
  // The last value "30" cut to "3" is still a well-formed file: stop before that.
  for (std::size_t n = 0; n + 2 < arm.size(); ++n) {
    try {
      bvh::parse(std::string_view(arm).substr(0, n), "cut.bvh");
      ADD_FAILURE() << "parsed a file cut at byte " << n;
    } catch (const InputError& e) {
      EXPECT_GT(e.line(), 0) << e.what();
    }
  }
}

TEST(BvhReader, RandomCorruptionNeverCrashes) {
  // Overwrite, insert or delete a few random bytes: the result either parses (and then round
  // trips byte for byte) or raises InputError with a line number; nothing else.
  std::mt19937 rng(2024);
  const std::string alphabet = " \t\r\n{}.-+eE0123456789#nafiXYZ";
  for (const std::string& base : {std::string(kArm), replace_all(kArm, "\n", "\r\n")}) {
    for (int trial = 0; trial < 4000; ++trial) {
      std::string text = base;
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits && !text.empty(); ++e) {
        const std::size_t at = rng() % text.size();
        const char c = alphabet[rng() % alphabet.size()];
        switch (rng() % 3) {
          case 0:
            text[at] = c;
            break;
          case 1:
            text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
            break;
          default:
            text.erase(at, 1);
            break;
        }
      }
      try {
        const auto doc = bvh::parse(text, "fuzz.bvh");
        const auto c = bvh::clip(doc);
        std::unique_ptr<bool[]> none(new bool[doc.joint_count()]());
        ASSERT_EQ(bvh::write(doc, c, {none.get(), static_cast<std::size_t>(doc.joint_count())}),
                  text);
      } catch (const InputError& e) {
        ASSERT_GT(e.line(), 0) << e.what();
      }
    }
  }
}

// kArm with blanks added to its first frame line to `size` bytes, its last value's digits at
// the end, written to a file and read back by read_file.
void expect_file_of_size_reads_as_its_text(std::size_t size) {
  SCOPED_TRACE(size);
  std::string text = kArm;
  text.pop_back();  // the file ends with the last value's digits
  const std::size_t first_frame_end = text.find("\n", text.find("Frame Time:")) + 1;
  const std::size_t line_end = text.find('\n', first_frame_end);
  text.insert(line_end, size - text.size(), ' ');  // blanks ending a frame line are allowed
  ASSERT_EQ(text.size(), size);
  const auto path = ikfix::test::scratch_dir("bvh_page_end") / "page_end.bvh";
  std::ofstream(path, std::ios::binary) << text;
  bvh::Document doc = bvh::read_file(path);
  const bvh::Document copy = doc;
  doc = bvh::Document{};  // the copy shares the text, which stays
  EXPECT_EQ(copy.text, text);
  const bvh::Document from_memory = bvh::parse(text, "page_end.bvh");
  ASSERT_EQ(copy.frame_count, from_memory.frame_count);
  for (int f = 0; f < copy.frame_count; ++f)
    for (int c = 0; c < copy.channel_count; ++c)
      EXPECT_EQ(copy.value(f, c), from_memory.value(f, c)) << f << " " << c;
  std::unique_ptr<bool[]> none(new bool[copy.joint_count()]());
  EXPECT_EQ(
      bvh::write(copy, bvh::clip(copy), {none.get(), static_cast<std::size_t>(copy.joint_count())}),
      text);
}

// read_file maps the file: one whose last value ends exactly at a page's end (the parser reads
// the byte after the text, which a mapping has only inside its last page) or one byte before
// it is read as the same text parsed from memory, and the Document keeps its text.
TEST(BvhReader, FileEndingAtAPageEndReadsAsItsText) {
  for (const std::size_t size : {std::size_t{8191}, std::size_t{8192}})
    expect_file_of_size_reads_as_its_text(size);
}

TEST(BvhReader, EmptyFileIsAnInputError) {
  const auto path = ikfix::test::scratch_dir("bvh_empty") / "empty.bvh";
  std::ofstream(path, std::ios::binary).flush();
  EXPECT_THROW(bvh::read_file(path), InputError);
}

TEST(BvhReader, MissingFileIsAnInputError) {
  EXPECT_THROW(bvh::read_file("/nonexistent/dir/clip.bvh"), InputError);
}

}  // namespace
