// Every input a fuzzer ever found a problem with (tests/fuzz/regressions/<target>/, README.md
// there) runs through its target in every build: each must now be read or rejected cleanly.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/fuzz/fuzz_targets.hpp"

namespace {

namespace fs = std::filesystem;
using ikfix::fuzz::Outcome;
using ikfix::fuzz::Target;

std::string bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<fs::path> kept_inputs(const std::string& target) {
  const fs::path dir = fs::path(IKFIX_SOURCE_DIR) / "tests/fuzz/regressions" / target;
  std::vector<fs::path> files;
  if (fs::is_directory(dir))
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

class FuzzRegressions : public testing::TestWithParam<Target> {};

TEST_P(FuzzRegressions, EveryKeptInputIsReadOrRejectedCleanly) {
  for (const fs::path& file : kept_inputs(GetParam().name)) {
    SCOPED_TRACE(file.string());
    EXPECT_NO_THROW(GetParam().run(bytes_of(file)));
  }
}

TEST_P(FuzzRegressions, AnEmptyInputIsRejected) {
  EXPECT_EQ(GetParam().run(""), Outcome::rejected);
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzRegressions, testing::ValuesIn(ikfix::fuzz::targets()),
                         [](const testing::TestParamInfo<Target>& info) {
                           return std::string(info.param.name);
                         });

// The bundled files every target must read (the seeds of the fuzzers' corpora).
TEST(FuzzTargets, ReadTheBundledFiles) {
  const fs::path data = fs::path(IKFIX_SOURCE_DIR) / "data";
  const std::string walk = bytes_of(data / "clips/walk.bvh");
  EXPECT_EQ(ikfix::fuzz::bvh_target(walk), Outcome::read);
  for (const char* terrain : {"flat", "stairs", "slope", "bumps"})
    EXPECT_EQ(ikfix::fuzz::obj_target(bytes_of(data / "terrain" / (std::string(terrain) + ".obj"))),
              Outcome::read)
        << terrain;
}

// The bundled walk cut to its first frames, as the pipeline harness takes it.
TEST(FuzzTargets, PipelineFixesAShortWalk) {
  const std::string walk = bytes_of(fs::path(IKFIX_SOURCE_DIR) / "data/clips/walk.bvh");
  const std::size_t motion = walk.find("Frames:");
  ASSERT_NE(motion, std::string::npos);
  std::string cut = walk.substr(0, motion) + "Frames: 40\n";
  std::size_t line = walk.find('\n', motion) + 1;  // after "Frames:", then "Frame Time:"
  for (int i = 0; i < 41; ++i) {
    const std::size_t end = walk.find('\n', line) + 1;
    cut += walk.substr(line, end - line);
    line = end;
  }
  EXPECT_EQ(ikfix::fuzz::pipeline_target(cut), Outcome::read);
}

TEST(FuzzTargets, JsonSelectorPicksTheReader) {
  using ikfix::fuzz::json_target;
  using namespace std::string_literals;
  EXPECT_EQ(json_target("\x00{\"clip_unit\": \"cm\", \"clip_up\": \"z\"}"s), Outcome::read);
  EXPECT_EQ(json_target("\x00{\"clip_unit\": \"furlong\"}"s), Outcome::rejected);
  const std::string contacts =
      R"({"ikfix_contacts": 1, "frames": 10, "left": [[0, 3]], "right": []})";
  EXPECT_EQ(json_target("\x01\x09"s + contacts), Outcome::read);
  EXPECT_EQ(json_target("\x01\x0a"s + contacts), Outcome::rejected);  // 11 frames
  const std::string map =
      R"({"schema": "ikfix-bone-map-v1", "pairs": [{"source": "Hips", "target": "pelvis"}]})";
  EXPECT_EQ(json_target("\x02"s + map), Outcome::read);
  EXPECT_EQ(json_target("\x02{}"s), Outcome::rejected);
}

// A GLB whose key times (in its binary chunk) span 9.4 M frames of 5 joints, about 33 GB to
// fix: the targets run with a memory budget (kMemoryBudgetBytes, as `ikfix --max-memory 512M`),
// so the reader refuses it before sampling; without one, fuzz_gltf saw it allocate 3.7 GB.
TEST(FuzzTargets, AClipOverTheMemoryBudgetIsRejected) {
  const fs::path kept = fs::path(IKFIX_SOURCE_DIR) /
                        "tests/fuzz/regressions/gltf/key_times_span_9_million_frames.glb";
  EXPECT_EQ(ikfix::fuzz::gltf_target(bytes_of(kept)), Outcome::rejected);
}

}  // namespace
