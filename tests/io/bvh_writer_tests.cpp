// BVH writer: byte-exact round trips on every real clip, rewrites of every joint that reproduce
// every value, edits that land where they should, formatting rules and refusals.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "io/bvh/bvh.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "test_data.hpp"
#include "test_scratch.hpp"

namespace {

namespace bvh = ikfix::io::bvh;
using ikfix::core::Quat;
using ikfix::core::Vec3;
using ikfix::io::InputError;

// std::vector<bool> has no contiguous storage; change flags live here.
struct Flags {
  explicit Flags(int n, bool value = false) : data(new bool[n]), size(n) {
    std::fill(data.get(), data.get() + n, value);
  }
  std::unique_ptr<bool[]> data;
  int size;
  bool& operator[](int j) { return data[j]; }
  operator std::span<const bool>() const { return {data.get(), static_cast<std::size_t>(size)}; }
};

std::vector<std::filesystem::path> real_bvh_files() {
  std::vector<std::filesystem::path> files;
  const auto dir = ikfix::test::shared_data_dir() / "anim" / "bvh";
  if (!std::filesystem::is_directory(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".bvh") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

bvh::ParseOptions tolerant() {
  bvh::ParseOptions o;
  o.allow_extra_frame_lines = true;
  return o;
}

int decimals_of(std::string_view s) {
  const auto dot = s.find('.');
  if (dot == std::string_view::npos) return 0;
  int n = 0;
  for (std::size_t k = dot + 1; k < s.size() && s[k] >= '0' && s[k] <= '9'; ++k) ++n;
  return n;
}

double rotation_gap_deg(const Quat& a, const Quat& b) {
  const Quat r = glm::conjugate(glm::normalize(a)) * glm::normalize(b);
  const double v = std::sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
  return 2.0 * std::atan2(v, std::abs(r.w)) * 180.0 / ikfix::core::kPi;
}

// ---------------------------------------------------------------------------------------------
// Real files.

TEST(BvhWriter, RealFilesRoundTripByteExact) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto files = real_bvh_files();
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    const std::string original = ikfix::io::read_file(path);
    const auto doc = bvh::parse(original, path.string(), tolerant());
    const auto clip = bvh::clip(doc);
    const std::string out = bvh::write(doc, clip, Flags(doc.joint_count()));
    EXPECT_TRUE(out == original) << "nothing changed, yet the output differs";
  }
}

TEST(BvhWriter, RealFilesRewriteEveryJointWithoutLoss) {
  IKFIX_REQUIRE_SHARED_DATA();
  for (const auto& path : real_bvh_files()) {
    SCOPED_TRACE(path.filename().string());
    const auto doc = bvh::read_file(path, tolerant());
    const auto clip = bvh::clip(doc);
    const std::string out = bvh::write(doc, clip, Flags(doc.joint_count(), true));
    const auto again = bvh::parse(out, "rewritten.bvh", tolerant());
    ASSERT_EQ(again.frame_count, doc.frame_count);
    ASSERT_EQ(again.channel_count, doc.channel_count);
    // Same header and frame timing, byte for byte.
    EXPECT_EQ(out.substr(0, doc.frame_text[0]), doc.text.substr(0, doc.frame_text[0]));
    // Every value within half a unit of the last decimal the file prints: the writer must pick
    // the very angles the file had, not +-360 or other-branch equivalents.
    long long rewritten = 0;
    for (int f = 0; f < doc.frame_count; ++f) {
      for (int c = 0; c < doc.channel_count; ++c) {
        const std::string_view text = doc.value_view(f, c);
        const double half_ulp = 0.5 * std::pow(10.0, -decimals_of(text)) * (1 + 1e-9);
        const double a = doc.value(f, c), b = again.value(f, c);
        if (std::abs(a - b) > half_ulp) {
          ADD_FAILURE() << "frame " << f << " channel " << c << ": " << text << " became "
                        << again.value_view(f, c);
          return;
        }
        rewritten += text != again.value_view(f, c);
      }
    }
    // Values equal to the file's are kept as written, so almost nothing is re-spelled (only
    // spellings like "-0.0000" that read back as the same number stay, never new noise).
    EXPECT_EQ(rewritten, 0);
  }
}

TEST(BvhWriter, RealFileEditLandsOnlyWhereFlagged) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto doc = bvh::read_file(ikfix::test::shared_data_dir() / "anim" / "bvh" /
                                  "cmu_131_01_start_walk_stop_max.bvh");
  auto edited = bvh::clip(doc);
  const auto skel = bvh::skeleton(doc);
  const int foot = skel.find("LeftAnkle");  // 3ds Max names in this file
  ASSERT_GE(foot, 0);
  const int root = 0;
  const Quat tilt = glm::angleAxis(glm::radians(7.5), glm::normalize(Vec3(1, 0.3, -0.2)));
  for (int f = 0; f < edited.frame_count; ++f) {
    edited.at(f, foot).rotation = edited.at(f, foot).rotation * tilt;
    edited.at(f, root).translation.y += 0.25 * std::sin(f * 0.01);
  }
  Flags changed(doc.joint_count());
  changed[foot] = true;
  changed[root] = true;
  const std::string out = bvh::write(doc, edited, changed);
  const auto again = bvh::parse(out, "edited.bvh");
  const auto reread = bvh::clip(again);

  const auto& joints = doc.joints;
  for (int f = 0; f < doc.frame_count; ++f) {
    for (int j = 0; j < doc.joint_count(); ++j) {
      const bool touched = j == foot || j == root;
      for (std::size_t n = 0; n < joints[j].channels.size(); ++n) {
        const int c = joints[j].first_value + static_cast<int>(n);
        if (!touched) {
          ASSERT_EQ(again.value_view(f, c), doc.value_view(f, c))
              << "frame " << f << " joint " << j;
        } else if (again.value_view(f, c) != doc.value_view(f, c)) {
          EXPECT_EQ(decimals_of(again.value_view(f, c)), 4) << again.value_view(f, c);
        }
      }
    }
    // The edit is reproduced to the 4 printed decimals (1e-4 degree per angle).
    EXPECT_LT(rotation_gap_deg(reread.at(f, foot).rotation, edited.at(f, foot).rotation), 3e-4);
    EXPECT_NEAR(reread.at(f, root).translation.y, edited.at(f, root).translation.y, 0.5e-4 + 1e-12);
    // No +-360 jumps: each written angle stays within 20 degrees of the file's own value.
    for (std::size_t n = 3; n < 6; ++n)
      EXPECT_LT(std::abs(again.value(f, static_cast<int>(n)) - doc.value(f, static_cast<int>(n))),
                20.0);
  }
  // Line endings of edited lines are kept (this file mixes CRLF and LF).
  EXPECT_EQ(std::count(out.begin(), out.end(), '\r'),
            std::count(doc.text.begin(), doc.text.end(), '\r'));
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'),
            std::count(doc.text.begin(), doc.text.end(), '\n'));
}

TEST(BvhWriter, SurplusFrameLinesAreKeptVerbatim) {
  const std::string text =
      "HIERARCHY\nROOT A\n{\n OFFSET 0 0 0\n CHANNELS 1 Zrotation\n}\n"
      "MOTION\nFrames: 1\nFrame Time: 0.1\n1.50\n2.25\n";
  const auto doc = bvh::parse(text, "surplus.bvh", tolerant());
  EXPECT_EQ(doc.extra_frame_lines, 1);
  auto edited = bvh::clip(doc);
  edited.at(0, 0).rotation = bvh::axis_rotation_deg(2, 3.0);
  EXPECT_EQ(bvh::write(doc, edited, Flags(1, true)),
            "HIERARCHY\nROOT A\n{\n OFFSET 0 0 0\n CHANNELS 1 Zrotation\n}\n"
            "MOTION\nFrames: 1\nFrame Time: 0.1\n3.00\n2.25\n");
}

// ---------------------------------------------------------------------------------------------
// Small hand-written files.

const char* kOneJoint =
    "HIERARCHY\r\n"
    "ROOT Root\r\n"
    "{\r\n"
    "\tOFFSET 1.5 0 0\r\n"
    "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\r\n"
    "\tJOINT Limb\r\n"
    "\t{\r\n"
    "\t\tOFFSET 0 1 0\r\n"
    "\t\tCHANNELS 3 Zrotation Yrotation Xrotation\r\n"
    "\t\tEnd Site\r\n"
    "\t\t{\r\n"
    "\t\t\tOFFSET 0 1 0\r\n"
    "\t\t}\r\n"
    "\t}\r\n"
    "}\r\n"
    "MOTION\r\n"
    "Frames:  2\r\n"
    "Frame Time: .0333333\r\n"
    "0.00 10.00 0.00    350.000000 0 -10.5\t0 90 0\r\n"
    "0.00 10.00 0.00    -350.0 0 0  0   0 0\r\n";

TEST(BvhWriter, EditedValuesFollowTheFilesValuesAndPrecision) {
  const auto doc = bvh::parse(kOneJoint, "one.bvh");
  auto edited = bvh::clip(doc);
  // Root: turn 5 more degrees about Z, move up by 0.126 (Y) and to x = 1.5 + 0.0000001.
  for (int f = 0; f < 2; ++f) {
    edited.at(f, 0).rotation = bvh::axis_rotation_deg(2, 5.0) * edited.at(f, 0).rotation;
    edited.at(f, 0).translation += Vec3(1e-7, 0.126, 0.0);
  }
  Flags changed(2);
  changed[0] = true;
  const std::string out = bvh::write(doc, edited, changed);
  const auto again = bvh::parse(out, "again.bvh");
  // 350 + 5 stays 355 (not -5); -350 + 5 stays -345 (not 15). Rotation columns print 6 decimals
  // (the most the Zrotation column shows); Yposition prints 2 like "10.00".
  EXPECT_EQ(again.value_view(0, 3), "355.000000");
  EXPECT_EQ(again.value_view(1, 3), "-345.000000");
  EXPECT_EQ(again.value_view(0, 1), "10.13");
  EXPECT_EQ(again.value_view(0, 0), "0.00");  // 1e-7 prints as 0.00: kept as written
  // Unflagged joint keeps its text, including the tab and spacing.
  EXPECT_NE(out.find("-10.5\t0 90 0\r\n"), std::string::npos);
  EXPECT_NE(out.find("0  0   0 0\r\n"), std::string::npos);
}

TEST(BvhWriter, GimbalLockValuesAreReproduced) {
  // Limb is ZYX with Y = 90 at frame 0: rewriting it unchanged must give back 0 90 0.
  const auto doc = bvh::parse(kOneJoint, "one.bvh");
  const auto clip = bvh::clip(doc);
  Flags changed(2);
  changed[1] = true;
  const std::string out = bvh::write(doc, clip, changed);
  EXPECT_EQ(out, std::string(kOneJoint));

  // Rotating it further about its parent's Z at gimbal lock still writes a faithful rotation.
  auto edited = clip;
  edited.at(0, 1).rotation = bvh::axis_rotation_deg(2, 30.0) * clip.at(0, 1).rotation;
  const auto again = bvh::parse(bvh::write(doc, edited, changed), "again.bvh");
  EXPECT_LT(rotation_gap_deg(bvh::clip(again).at(0, 1).rotation, edited.at(0, 1).rotation), 1e-6);
}

TEST(BvhWriter, NoNegativeZeroNoise) {
  const auto doc = bvh::parse(kOneJoint, "one.bvh");
  auto edited = bvh::clip(doc);
  // Root Xrotation "-10.5" (1 decimal) becomes -1e-9: written "0.0", not "-0.0".
  edited.at(0, 0).rotation = bvh::quat_from_euler_deg({2, 1, 0}, {350.0, 0.0, -1e-9});
  // Limb Zrotation "0" (no decimals: borrows 6 from the other rotation columns) becomes 0.004;
  // its Xrotation becomes -1e-9, which prints as zero and so keeps its original "0".
  edited.at(1, 1).rotation = bvh::axis_rotation_deg(2, 0.004) * bvh::axis_rotation_deg(0, -1e-9);
  const std::string out = bvh::write(doc, edited, Flags(2, true));
  const auto again = bvh::parse(out, "again.bvh");
  EXPECT_EQ(again.value_view(0, 5), "0.0");
  EXPECT_EQ(again.value_view(0, 3), "350.000000");
  EXPECT_EQ(again.value_view(1, 6), "0.004000");
  EXPECT_EQ(again.value_view(1, 8), "0");
  EXPECT_EQ(out.find("-0.0"), std::string::npos) << out;
}

TEST(BvhWriter, RefusesWhatBvhCannotHold) {
  const auto doc = bvh::parse(kOneJoint, "one.bvh");
  const auto clip = bvh::clip(doc);
  Flags limb(2);
  limb[1] = true;
  auto expect_refusal = [&](const ikfix::core::Clip& c, const Flags& flags, const char* fragment) {
    try {
      bvh::write(doc, c, flags);
      ADD_FAILURE() << "expected a refusal mentioning " << fragment;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
      EXPECT_EQ(e.file(), "one.bvh");
    }
  };
  auto bad = clip;
  bad.at(1, 1).rotation.x = std::nan("");
  expect_refusal(bad, limb, "not finite");
  bad = clip;
  bad.at(0, 1).translation.z = INFINITY;
  expect_refusal(bad, limb, "not finite");
  bad = clip;
  bad.at(1, 1).rotation = Quat(0, 0, 0, 0);
  expect_refusal(bad, limb, "zero");
  bad = clip;
  bad.at(1, 1).translation.y += 0.5;  // Limb has no position channels
  expect_refusal(bad, limb, "no Yposition channel");
  bad = clip;
  bad.at(1, 1).scale = Vec3(2.0);
  expect_refusal(bad, limb, "scale");
  // Unflagged joints are not looked at.
  EXPECT_NO_THROW(bvh::write(doc, bad, Flags(2)));
  // Size mismatches.
  expect_refusal(clip, Flags(3), "3 change flags for 2 joints");
  bad = clip;
  bad.frame_count = 1;
  bad.locals.resize(2);
  expect_refusal(bad, limb, "edited clip has");
}

TEST(BvhWriter, AnyOfTheTenNumbersNotFiniteIsRefusedAndOnlyThat) {
  // The writer tests the ten numbers of a transform at once (each times zero, summed): every
  // component and kind of non-finite value is refused as not finite, and the largest finite
  // numbers pass that test (a translation or scale this joint cannot hold is refused for that).
  const auto doc = bvh::parse(kOneJoint, "one.bvh");
  const auto clip = bvh::clip(doc);
  Flags limb(2);
  limb[1] = true;
  const double max = std::numeric_limits<double>::max();
  const double inf = std::numeric_limits<double>::infinity();
  for (int component = 0; component < 10; ++component)
    for (double value : {std::nan(""), -std::nan(""), inf, -inf, max, -max}) {
      const bool rotation = component >= 3 && component < 7;
      if (rotation && std::isfinite(value)) continue;  // a huge quaternion is a rotation
      auto bad = clip;
      ikfix::core::Transform& t = bad.at(1, 1);
      double* numbers[10] = {&t.translation.x, &t.translation.y, &t.translation.z, &t.rotation.w,
                             &t.rotation.x,    &t.rotation.y,    &t.rotation.z,    &t.scale.x,
                             &t.scale.y,       &t.scale.z};
      *numbers[component] = value;
      try {
        bvh::write(doc, bad, limb);
        ADD_FAILURE() << "component " << component << " = " << value << " was written";
      } catch (const InputError& e) {
        const bool said_not_finite = std::string(e.what()).find("not finite") != std::string::npos;
        EXPECT_EQ(said_not_finite, !std::isfinite(value))
            << component << " = " << value << ": " << e.what();
      }
    }
}

TEST(BvhWriter, JointsWithFewerRotationChannels) {
  const char* text =
      "HIERARCHY\nROOT Hinge\n{\n OFFSET 0 0 0\n CHANNELS 1 Xrotation\n"
      " JOINT Two\n {\n  OFFSET 0 1 0\n  CHANNELS 2 Yrotation Xrotation\n }\n}\n"
      "MOTION\nFrames: 1\nFrame Time: 0.1\n10.0 20.0 30.0\n";
  const auto doc = bvh::parse(text, "hinge.bvh");
  auto edited = bvh::clip(doc);
  edited.at(0, 0).rotation = bvh::axis_rotation_deg(0, 12.5);
  edited.at(0, 1).rotation = bvh::axis_rotation_deg(1, 21.0) * bvh::axis_rotation_deg(0, 29.0);
  const auto out = bvh::write(doc, edited, Flags(2, true));
  EXPECT_NE(out.find("\n12.5 21.0 29.0\n"), std::string::npos) << out;
  edited.at(0, 0).rotation = bvh::axis_rotation_deg(1, 5.0);  // a hinge about X cannot do this
  try {
    bvh::write(doc, edited, Flags(2, true));
    ADD_FAILURE() << "expected a refusal";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("Hinge"), std::string::npos) << e.what();
  }
}

TEST(BvhWriter, SaveWritesAtomically) {
  const auto dir = ikfix::test::scratch_dir("bvh_writer");
  const auto path = dir / "sub" / "out.bvh";
  const auto doc = bvh::parse(kOneJoint, "one.bvh");
  bvh::save(path, doc, bvh::clip(doc), Flags(2));
  EXPECT_EQ(ikfix::io::read_file(path), std::string(kOneJoint));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir / "sub")) ++entries;
  EXPECT_EQ(entries, 1u);  // no temp file left behind
  std::filesystem::remove_all(dir);
}

}  // namespace
