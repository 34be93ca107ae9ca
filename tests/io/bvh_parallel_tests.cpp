// BVH read and write on several threads (ParseOptions::runner, clip(doc, runner),
// write(..., runner)) against the serial path: the same Document, Clip and bytes bit for bit on
// every real clip and on large synthetic files with every line-ending style, blank lines and
// surplus lines; the same error text and line number for malformed frame lines.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "counting_runner.hpp"
#include "io/bvh/bvh.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "test_data.hpp"
#include "test_scratch.hpp"

namespace {

namespace bvh = ikfix::io::bvh;
namespace core = ikfix::core;
using ikfix::io::InputError;

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

bool same_bits(std::span<const double> a, std::span<const double> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](double x, double y) { return bits(x) == bits(y); });
}

bool same_vec(const core::Vec3& a, const core::Vec3& b) {
  return bits(a.x) == bits(b.x) && bits(a.y) == bits(b.y) && bits(a.z) == bits(b.z);
}

void expect_same_document(const bvh::Document& a, const bvh::Document& b) {
  EXPECT_EQ(a.source_name, b.source_name);
  EXPECT_TRUE(a.text == b.text);
  ASSERT_EQ(a.joints.size(), b.joints.size());
  for (std::size_t j = 0; j < a.joints.size(); ++j) {
    const bvh::Joint &x = a.joints[j], &y = b.joints[j];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.parent, y.parent);
    EXPECT_EQ(x.line, y.line);
    EXPECT_TRUE(same_vec(x.offset, y.offset));
    EXPECT_EQ(x.channels, y.channels);
    EXPECT_EQ(x.first_value, y.first_value);
    ASSERT_EQ(x.end_site.has_value(), y.end_site.has_value());
    if (x.end_site) {
      EXPECT_TRUE(same_vec(*x.end_site, *y.end_site));
    }
  }
  EXPECT_EQ(a.channel_count, b.channel_count);
  EXPECT_EQ(a.frame_count, b.frame_count);
  EXPECT_EQ(bits(a.frame_time), bits(b.frame_time));
  EXPECT_EQ(a.frame_time_text.offset, b.frame_time_text.offset);
  EXPECT_EQ(a.frame_time_text.length, b.frame_time_text.length);
  EXPECT_EQ(a.frames_line, b.frames_line);
  EXPECT_EQ(a.frame_time_line, b.frame_time_line);
  EXPECT_EQ(a.first_frame_line, b.first_frame_line);
  EXPECT_TRUE(same_bits(a.values, b.values)) << "values differ";
  ASSERT_EQ(a.frame_text.size(), b.frame_text.size());
  EXPECT_TRUE(std::equal(a.frame_text.begin(), a.frame_text.end(), b.frame_text.begin()))
      << "frame offsets differ";
  EXPECT_EQ(a.channel_decimals, b.channel_decimals);
  EXPECT_EQ(a.extra_frame_lines, b.extra_frame_lines);
  EXPECT_EQ(a.line_endings, b.line_endings);
}

void expect_same_clip(const core::Clip& a, const core::Clip& b) {
  EXPECT_EQ(bits(a.fps), bits(b.fps));
  EXPECT_EQ(a.frame_count, b.frame_count);
  EXPECT_EQ(a.joint_count, b.joint_count);
  ASSERT_EQ(a.locals.size(), b.locals.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.locals.size(); ++i) {
    const core::Transform &x = a.locals[i], &y = b.locals[i];
    const bool same =
        same_vec(x.translation, y.translation) && same_vec(x.scale, y.scale) &&
        bits(x.rotation.w) == bits(y.rotation.w) && bits(x.rotation.x) == bits(y.rotation.x) &&
        bits(x.rotation.y) == bits(y.rotation.y) && bits(x.rotation.z) == bits(y.rotation.z);
    differing += !same;
  }
  EXPECT_EQ(differing, 0u) << "transforms differ";
}

// What a parse gives: the Document, or the error text and line.
struct Outcome {
  std::optional<bvh::Document> doc;
  std::string error;
  int line = 0;
};

Outcome parse_with(const std::string& text, const core::ParallelRunner* runner,
                   bool allow_extra = false) {
  bvh::ParseOptions options;
  options.allow_extra_frame_lines = allow_extra;
  options.runner = runner;
  Outcome out;
  try {
    out.doc = bvh::parse(text, "big.bvh", options);
  } catch (const InputError& e) {
    out.error = e.what();
    out.line = e.line();
  }
  return out;
}

// Parses `text` serially and on 2 and 3 threads, checks the parallel path ran and every result
// matches the serial one; returns the serial outcome.
Outcome expect_same_parse(const std::string& text, bool allow_extra = false) {
  const Outcome serial = parse_with(text, nullptr, allow_extra);
  for (int threads : {2, 3}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    const ikfix::test::CountingRunner runner(threads);
    const Outcome parallel = parse_with(text, &runner, allow_extra);
    EXPECT_GT(runner.loops(), 0) << "the frame lines were not parsed on the runner";
    EXPECT_EQ(parallel.error, serial.error);
    EXPECT_EQ(parallel.line, serial.line);
    EXPECT_EQ(parallel.doc.has_value(), serial.doc.has_value());
    if (parallel.doc && serial.doc) {
      expect_same_document(*parallel.doc, *serial.doc);
      expect_same_clip(bvh::clip(*parallel.doc, &runner), bvh::clip(*serial.doc));
    }
  }
  return serial;
}

// A large file as lines (header first, then one line per frame), to edit before joining.
// Three joints with different channel orders; values with 1 to 6 decimals.
struct Lines {
  std::vector<std::string> header;
  std::vector<std::string> frames;
  int frame_count_line() const { return static_cast<int>(header.size()) - 1; }  // "Frames:" index

  std::string join(const std::string& eol, bool final_eol = true) const {
    std::string text;
    for (const auto& l : header) text += l + eol;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      text += frames[i];
      if (final_eol || i + 1 < frames.size()) text += eol;
    }
    return text;
  }
  // 1-based line number of frame line `f` (one line per header entry, one per frame).
  int line_of_frame(int f) const { return static_cast<int>(header.size()) + f + 1; }
};

constexpr int kFrames = 3000;

Lines big_file(int frames = kFrames) {
  Lines l;
  l.header = {"HIERARCHY",
              "ROOT Hips",
              "{",
              "\tOFFSET 0.0 0.0 0.0",
              "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation",
              "\tJOINT Chest",
              "\t{",
              "\t\tOFFSET 0.0 5.2 0.1",
              "\t\tCHANNELS 3 Xrotation Zrotation Yrotation",
              "\t\tJOINT Head",
              "\t\t{",
              "\t\t\tOFFSET 0.0 3.0 0.0",
              "\t\t\tCHANNELS 3 Yrotation Xrotation Zrotation",
              "\t\t\tEnd Site",
              "\t\t\t{",
              "\t\t\t\tOFFSET 0.0 1.0 0.0",
              "\t\t\t}",
              "\t\t}",
              "\t}",
              "}",
              "MOTION",
              "Frames: " + std::to_string(frames),
              "Frame Time: .0083333"};
  char number[64];
  for (int f = 0; f < frames; ++f) {
    std::string line;
    for (int c = 0; c < 12; ++c) {
      const int decimals = 1 + (f + c) % 6;
      std::snprintf(number, sizeof number, "%.*f", decimals, 170.0 * std::sin(0.013 * f + 0.9 * c));
      if (c) line += (f + c) % 7 == 0 ? "\t " : " ";  // tabs and double blanks here and there
      line += number;
    }
    if (f % 11 == 0) line += "  ";  // trailing blanks
    l.frames.push_back(line);
  }
  return l;
}

// ---------------------------------------------------------------------------------------------
// Same Document and Clip.

TEST(BvhParallel, RealFilesParseToTheSameDocumentAndClip) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = ikfix::test::shared_data_dir() / "anim" / "bvh";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".bvh") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    const Outcome serial = expect_same_parse(ikfix::io::read_file(path), /*allow_extra=*/true);
    EXPECT_TRUE(serial.doc.has_value()) << serial.error;
  }
}

TEST(BvhParallel, LineEndingStylesGiveTheSameDocument) {
  const Lines lines = big_file();
  for (const std::string eol : {"\n", "\r\n", "\r"}) {
    SCOPED_TRACE("eol " + std::to_string(eol.size()) + (eol == "\r" ? " CR" : ""));
    const Outcome serial = expect_same_parse(lines.join(eol));
    ASSERT_TRUE(serial.doc.has_value()) << serial.error;
    EXPECT_EQ(serial.doc->frame_count, kFrames);
  }
  // Mixed: frame lines alternate between the three.
  std::string mixed;
  for (const auto& l : lines.header) mixed += l + "\n";
  for (std::size_t f = 0; f < lines.frames.size(); ++f)
    mixed += lines.frames[f] + (f % 3 == 0 ? "\r\n" : f % 3 == 1 ? "\r" : "\n");
  const Outcome serial = expect_same_parse(mixed);
  ASSERT_TRUE(serial.doc.has_value()) << serial.error;
  EXPECT_EQ(serial.doc->line_endings, bvh::LineEndings::mixed);
}

TEST(BvhParallel, BlankLinesAndNoFinalLineBreakGiveTheSameDocument) {
  Lines lines = big_file();
  // Blank and blank-looking lines everywhere, including runs of them (block cuts land on some).
  for (int f = kFrames - 1; f > 0; f -= 97)
    lines.frames.insert(lines.frames.begin() + f, f % 2 ? "" : " \t ");
  for (int k = 0; k < 40; ++k) lines.frames.insert(lines.frames.begin() + kFrames / 2, "");
  lines.frames.insert(lines.frames.begin(), "");
  for (const std::string eol : {"\n", "\r\n"}) {
    SCOPED_TRACE("eol size " + std::to_string(eol.size()));
    const Outcome serial = expect_same_parse(lines.join(eol, /*final_eol=*/false));
    ASSERT_TRUE(serial.doc.has_value()) << serial.error;
    EXPECT_EQ(serial.doc->first_frame_line, lines.line_of_frame(1));
  }
}

TEST(BvhParallel, SurplusFrameLinesKeptWhenAllowed) {
  Lines lines = big_file();
  for (int k = 0; k < 5; ++k) lines.frames.push_back(lines.frames[static_cast<std::size_t>(k)]);
  const Outcome serial = expect_same_parse(lines.join("\n"), /*allow_extra=*/true);
  ASSERT_TRUE(serial.doc.has_value()) << serial.error;
  EXPECT_EQ(serial.doc->extra_frame_lines, 5);
  EXPECT_EQ(serial.doc->values.size(), static_cast<std::size_t>(kFrames) * 12);
}

// ---------------------------------------------------------------------------------------------
// Same error, same line.

// Parses the file serially and in parallel; expects the same error, naming `line`.
void expect_error_at(const std::string& text, int line, const std::string& cause_part) {
  const Outcome serial = expect_same_parse(text);
  ASSERT_FALSE(serial.doc.has_value()) << "expected an error";
  EXPECT_EQ(serial.line, line) << serial.error;
  EXPECT_NE(serial.error.find(cause_part), std::string::npos) << serial.error;
  EXPECT_EQ(serial.error.rfind("big.bvh:" + std::to_string(line) + ": ", 0), 0u) << serial.error;
}

TEST(BvhParallel, BadValueLateInTheFileNamesItsLine) {
  for (const std::string eol : {"\n", "\r\n", "\r"}) {
    Lines lines = big_file();
    lines.frames[2500].replace(0, lines.frames[2500].find(' '), "1.2.3");
    expect_error_at(lines.join(eol), lines.line_of_frame(2500), "'1.2.3' is not a number");
  }
}

TEST(BvhParallel, NonFiniteAndOutOfRangeValuesNameTheirLines) {
  Lines lines = big_file();
  lines.frames[1800] = "nan" + lines.frames[1800].substr(lines.frames[1800].find(' '));
  expect_error_at(lines.join("\n"), lines.line_of_frame(1800), "not a finite number");
  lines = big_file();
  lines.frames[2999] = "1e999" + lines.frames[2999].substr(lines.frames[2999].find(' '));
  expect_error_at(lines.join("\r\n"), lines.line_of_frame(2999), "out of range");
}

TEST(BvhParallel, WrongValueCountsNameTheirLines) {
  Lines lines = big_file();
  lines.frames[2000].resize(lines.frames[2000].rfind(' '));
  expect_error_at(lines.join("\n"), lines.line_of_frame(2000),
                  "frame line has 11 values; expected 12");
  lines = big_file();
  lines.frames[1500] += " 4.0 5.0";
  expect_error_at(lines.join("\n"), lines.line_of_frame(1500),
                  "frame line has 14 values; expected 12");
}

TEST(BvhParallel, FirstOfSeveralErrorsIsReported) {
  Lines lines = big_file();
  lines.frames[100] += " 7";                       // first block
  lines.frames[2900] = "x " + lines.frames[2900];  // last block
  lines.frames[1600] = "y " + lines.frames[1600];  // middle
  expect_error_at(lines.join("\n"), lines.line_of_frame(100), "frame line has 13 values");
}

TEST(BvhParallel, TooFewFrameLinesNamesTheEndOfTheFile) {
  Lines lines = big_file();
  lines.frames.resize(2990);
  const std::string text = lines.join("\n") + "\n\n";  // two blank lines at the end
  expect_error_at(text, lines.line_of_frame(2990) + 2, "file ends after 2990 frame lines");
}

TEST(BvhParallel, SurplusFrameLinesRefusedAtTheFirstOne) {
  Lines lines = big_file();
  lines.frames.push_back("");
  lines.frames.push_back(lines.frames[0]);
  lines.frames.push_back(lines.frames[1]);
  expect_error_at(lines.join("\r\n"), lines.line_of_frame(kFrames + 1),
                  "more frame lines than 'Frames: 3000'");
}

// ---------------------------------------------------------------------------------------------
// Writer: same bytes, same refusal.

struct Flags {
  explicit Flags(int n, bool value) : data(new bool[n]), size(n) {
    std::fill(data.get(), data.get() + n, value);
  }
  std::unique_ptr<bool[]> data;
  int size;
  operator std::span<const bool>() const { return {data.get(), static_cast<std::size_t>(size)}; }
};

// Every joint turned a little (and the root moved), so every value is re-encoded.
core::Clip edited_clip(const bvh::Document& doc) {
  core::Clip clip = bvh::clip(doc);
  const core::Quat turn = bvh::axis_rotation_deg(1, 0.7);
  for (int f = 0; f < clip.frame_count; ++f)
    for (int j = 0; j < clip.joint_count; ++j) {
      clip.at(f, j).rotation = clip.at(f, j).rotation * turn;
      if (doc.joints[j].channels.size() == 6)
        clip.at(f, j).translation += core::Vec3(0.013 * f, -0.5, 0.25);
    }
  return clip;
}

void expect_same_write(const bvh::Document& doc, const core::Clip& edited, const Flags& changed) {
  const std::string serial = bvh::write(doc, edited, changed);
  for (int threads : {2, 3}) {
    const ikfix::test::CountingRunner runner(threads);
    EXPECT_TRUE(bvh::write(doc, edited, changed, &runner) == serial) << threads << " threads";
    EXPECT_GT(runner.loops(), 0);
  }
}

TEST(BvhParallel, WriterGivesTheSameBytes) {
  const Lines lines = big_file();
  for (const std::string eol : {"\n", "\r\n"}) {
    const bvh::Document doc = bvh::parse(lines.join(eol), "big.bvh");
    expect_same_write(doc, edited_clip(doc), Flags(doc.joint_count(), true));
    expect_same_write(doc, bvh::clip(doc), Flags(doc.joint_count(), true));  // unedited: kept text
  }
}

TEST(BvhParallel, WriterGivesTheSameBytesOnRealFiles) {
  IKFIX_REQUIRE_SHARED_DATA();
  for (const char* name :
       {"cmu_01_01_forward_jumps.bvh", "boxing_toes.bvh", "cmu_60_01_salsa_sl_metres.bvh"}) {
    SCOPED_TRACE(name);
    bvh::ParseOptions tolerant;
    tolerant.allow_extra_frame_lines = true;
    const bvh::Document doc =
        bvh::read_file(ikfix::test::shared_data_dir() / "anim" / "bvh" / name, tolerant);
    expect_same_write(doc, edited_clip(doc), Flags(doc.joint_count(), true));
  }
}

// Rotations edited in some keys only, flagged key by key: skipping the Euler conversion where
// the flag is 0 gives the bytes of the full encode, at any thread count, and save() writes them.
TEST(BvhParallel, RotationFlagsGiveTheBytesOfTheFullEncode) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir =
      std::filesystem::temp_directory_path() / ("ikfix_bvh_flags_" + std::to_string(::getpid()));
  for (const char* name :
       {"cmu_01_01_forward_jumps.bvh", "boxing_toes.bvh", "cmu_131_01_start_walk_stop_max.bvh"}) {
    SCOPED_TRACE(name);
    bvh::ParseOptions tolerant;
    tolerant.allow_extra_frame_lines = true;
    const bvh::Document doc =
        bvh::read_file(ikfix::test::shared_data_dir() / "anim" / "bvh" / name, tolerant);
    core::Clip edited = bvh::clip(doc);
    const int joints = doc.joint_count();
    std::vector<char> rotation_flags(static_cast<std::size_t>(edited.frame_count) * joints, 0);
    const core::Quat turn = bvh::axis_rotation_deg(2, 0.3);
    for (int f = 0; f < edited.frame_count; ++f) {
      for (int j = 0; j < joints; ++j) {
        if ((f + j) % 3 != 0)
          continue;  // a third of the keys turn, in a different pattern per joint
        edited.at(f, j).rotation = edited.at(f, j).rotation * turn;
        rotation_flags[static_cast<std::size_t>(f) * joints + j] = 1;
      }
      edited.at(f, 0).translation += core::Vec3(0.0, 0.01 * (f % 7), 0.0);
    }
    const Flags all(joints, true);
    const std::string full = bvh::write(doc, edited, all);
    ASSERT_FALSE(full == doc.text);
    EXPECT_TRUE(bvh::write(doc, edited, all, nullptr, rotation_flags) == full) << "1 thread";
    for (int threads : {2, 3}) {
      const ikfix::test::CountingRunner runner(threads);
      EXPECT_TRUE(bvh::write(doc, edited, all, &runner, rotation_flags) == full)
          << threads << " threads";
      bvh::save(dir / "out.bvh", doc, edited, all, &runner, rotation_flags);
      EXPECT_TRUE(ikfix::io::read_file(dir / "out.bvh") == full) << threads << " threads, save";
    }
  }
  std::filesystem::remove_all(dir);
}

// A 0 flag is taken at its word (the caller vouches the rotation is the file's own): that key's
// rotation channels keep their text even if the rotation was changed; flags of the wrong size
// are refused.
TEST(BvhParallel, RotationFlagOfZeroKeepsTheText) {
  const bvh::Document doc = bvh::parse(big_file().join("\n"), "big.bvh");
  const core::Clip edited = edited_clip(doc);  // every rotation turned
  const int joints = doc.joint_count();
  const std::vector<char> none(static_cast<std::size_t>(doc.frame_count) * joints, 0);
  const std::string out = bvh::write(doc, edited, Flags(joints, true), nullptr, none);
  const bvh::Document again = bvh::parse(out, "again.bvh");
  int kept = 0, moved = 0;
  for (int f = 0; f < doc.frame_count; ++f)
    for (int j = 0; j < joints; ++j)
      for (std::size_t n = 0; n < doc.joints[j].channels.size(); ++n) {
        const int c = doc.joints[j].first_value + static_cast<int>(n);
        if (bvh::is_rotation(doc.joints[j].channels[n])) {
          ASSERT_EQ(again.value_view(f, c), doc.value_view(f, c))
              << "frame " << f << " channel " << c;
          ++kept;
        } else if (again.value_view(f, c) != doc.value_view(f, c)) {
          ++moved;  // positions are still written
        }
      }
  EXPECT_GT(kept, 0);
  EXPECT_GT(moved, 0);
  const std::vector<char> short_flags(none.size() - 1, 0);
  EXPECT_THROW(bvh::write(doc, edited, Flags(joints, true), nullptr, short_flags), InputError);
}

// save() streams the text to the file as it encodes on one thread (in pieces of 128 KiB) and
// writes whole blocks on several: the file is write()'s text either way.
TEST(BvhParallel, SaveWritesWhatWriteReturns) {
  const bvh::Document doc = bvh::parse(big_file().join("\n"), "big.bvh");
  ASSERT_GT(doc.text.size(), std::size_t{256} << 10);  // three streamed pieces or more
  const core::Clip edited = edited_clip(doc);
  const Flags all(doc.joint_count(), true);
  const std::string expected = bvh::write(doc, edited, all);
  const auto dir = ikfix::test::scratch_dir("bvh_save");
  const ikfix::test::CountingRunner runner(2);
  for (const core::ParallelRunner* r : {static_cast<const core::ParallelRunner*>(nullptr),
                                        static_cast<const core::ParallelRunner*>(&runner)}) {
    bvh::save(dir / "out.bvh", doc, edited, all, r);
    EXPECT_TRUE(ikfix::io::read_file(dir / "out.bvh") == expected)
        << (r ? "2 threads" : "1 thread");
    bvh::save(dir / "same.bvh", doc, bvh::clip(doc), all, r);  // nothing really edited
    EXPECT_TRUE(ikfix::io::read_file(dir / "same.bvh") == doc.text);
    bvh::save(dir / "none.bvh", doc, edited, Flags(doc.joint_count(), false),
              r);  // nothing flagged
    EXPECT_TRUE(ikfix::io::read_file(dir / "none.bvh") == doc.text);
  }
  std::filesystem::remove_all(dir);
}

// A refusal after part of the file was already streamed out leaves the previous file as it was
// and no temp file behind.
TEST(BvhParallel, SaveThatRefusesLeavesTheOldFile) {
  const bvh::Document doc = bvh::parse(big_file().join("\n"), "big.bvh");
  core::Clip edited = edited_clip(doc);
  edited.at(2700, 1).rotation.x = std::nan("");  // far past the first streamed piece
  const auto dir = ikfix::test::scratch_dir("bvh_refuse");
  std::filesystem::create_directories(dir);
  const auto path = dir / "out.bvh";
  ikfix::io::write_file_atomic(path, std::string_view("previous"));
  const ikfix::test::CountingRunner runner(2);
  for (const core::ParallelRunner* r : {static_cast<const core::ParallelRunner*>(nullptr),
                                        static_cast<const core::ParallelRunner*>(&runner)}) {
    EXPECT_THROW(bvh::save(path, doc, edited, Flags(doc.joint_count(), true), r), InputError);
    EXPECT_EQ(ikfix::io::read_file(path), "previous");
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
    EXPECT_EQ(entries, 1u);  // no temp file left behind
  }
  std::filesystem::remove_all(dir);
}

TEST(BvhParallel, WriterRefusesWithTheFirstBadFrame) {
  const bvh::Document doc = bvh::parse(big_file().join("\n"), "big.bvh");
  core::Clip edited = edited_clip(doc);
  edited.at(2700, 1).rotation.x = std::nan("");
  edited.at(1900, 2).translation.y += 1.0;  // Head has no position channel: refused, and first
  std::string serial_error;
  try {
    bvh::write(doc, edited, Flags(doc.joint_count(), true));
  } catch (const InputError& e) {
    serial_error = e.what();
  }
  ASSERT_NE(serial_error.find("joint 'Head' at frame index 1900"), std::string::npos)
      << serial_error;
  const ikfix::test::CountingRunner runner(3);
  try {
    bvh::write(doc, edited, Flags(doc.joint_count(), true), &runner);
    ADD_FAILURE() << "no error on 3 threads";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), serial_error);
  }
}

}  // namespace
