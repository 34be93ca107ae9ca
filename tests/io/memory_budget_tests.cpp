// --max-memory (issue 19 item 4): sizes as users write them, the clip estimate, and every reader
// refusing a clip whose estimate exceeds its budget before its motion is allocated.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <functional>
#include <memory>
#include <sstream>

#include "gltf_test_support.hpp"
#include "io/clip_io.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/gltf/gltf.hpp"
#include "io/memory_budget.hpp"
#include "io/synthetic_fbx.hpp"
#include "test_scratch.hpp"

namespace {

namespace io = ikfix::io;
using ikfix::test::scratch_path;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const io::InputError& e) {
    return e.what();
  }
  return "";
}

// Restores the process-wide budget (no limit) whatever a test set.
struct BudgetScope {
  explicit BudgetScope(std::uint64_t total) { io::set_memory_budget(total); }
  ~BudgetScope() {
    io::set_memory_budget(0);
    io::set_memory_reserved(0);
    io::set_clips_at_once(1);
  }
};

// A 2-joint BVH declaring `frames` frames and holding `lines` frame lines of "0 0 0 0"; the
// first value of the first line is `first`.
std::string small_bvh(int frames, int lines, const std::string& first = "0") {
  std::ostringstream bvh;
  bvh << "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Xposition Yposition Zposition\n"
      << "  JOINT Leg\n  {\n    OFFSET 0 -1 0\n    CHANNELS 1 Zrotation\n"
      << "    End Site\n    {\n      OFFSET 0 -1 0\n    }\n  }\n}\n"
      << "MOTION\nFrames: " << frames << "\nFrame Time: 0.01\n";
  for (int f = 0; f < lines; ++f) bvh << (f == 0 ? first : "0") << " 0 0 0\n";
  return bvh.str();
}

TEST(MemoryBudget, SizesAsUsersWriteThem) {
  EXPECT_EQ(io::parse_byte_size("512M"), 512 * kMiB);
  EXPECT_EQ(io::parse_byte_size("4G"), 4096 * kMiB);
  EXPECT_EQ(io::parse_byte_size("1.5g"), 1536 * kMiB);
  EXPECT_EQ(io::parse_byte_size("64KiB"), 64u * 1024);
  EXPECT_EQ(io::parse_byte_size("2TB"), std::uint64_t{2} << 40);
  EXPECT_EQ(io::parse_byte_size("1048576"), kMiB);
  EXPECT_EQ(io::parse_byte_size("100b"), 100u);
  for (const char* bad : {"", "G", "-1G", "0", "0.0001", "4X", "4GG", "nan", "inf", "1e3", " 4G",
                          "4G ", "99999999999T"})
    EXPECT_FALSE(io::parse_byte_size(bad)) << bad;
  EXPECT_EQ(io::format_bytes(100), "100 B");
  EXPECT_EQ(io::format_bytes(512 * kMiB), "512 MB");
  EXPECT_EQ(io::format_bytes(3481 * kMiB), "3.4 GB");
  EXPECT_EQ(io::format_bytes(20 * 1024), "20 kB");
}

TEST(MemoryBudget, PhysicalMemoryIsKnownOnLinux) {
  EXPECT_GT(io::physical_memory_bytes(), 64 * kMiB);
}

TEST(MemoryBudget, TheEstimateIsLinearInFramesJointsAndChannels) {
  const io::ClipCounts one{1000, 1000, 31, 96};
  io::ClipCounts twice_frames = one;
  twice_frames.frames *= 2;
  io::ClipCounts twice_joints = one;
  twice_joints.joints *= 2;
  const std::uint64_t base = io::estimate_clip_bytes({});
  const std::uint64_t e1 = io::estimate_clip_bytes(one);
  EXPECT_GT(e1, base);
  // Linear in frames (the file's bytes are the same here).
  EXPECT_NEAR(static_cast<double>(io::estimate_clip_bytes(twice_frames) - base - 1000),
              2.0 * static_cast<double>(e1 - base - 1000), 2.0);
  EXPECT_GT(io::estimate_clip_bytes(twice_joints), e1);
  // Absurd declared counts saturate instead of wrapping around.
  EXPECT_EQ(io::estimate_clip_bytes({~0ull, ~0ull, ~0ull, ~0ull}), std::uint64_t{1} << 63);
}

TEST(MemoryBudget, TheTerrainAndTheJobsShareTheBudget) {
  BudgetScope scope(1000 * kMiB);
  EXPECT_EQ(io::clip_memory_budget(), 1000 * kMiB);
  io::set_memory_reserved(200 * kMiB);
  EXPECT_EQ(io::clip_memory_budget(), 800 * kMiB);
  io::set_clips_at_once(4);
  EXPECT_EQ(io::clip_memory_budget(), 200 * kMiB);
  io::set_memory_reserved(2000 * kMiB);  // nothing left: every clip is refused
  EXPECT_EQ(io::clip_memory_budget(), 1u);
  io::set_memory_budget(0);
  EXPECT_EQ(io::clip_memory_budget(), 0u);  // no limit
}

TEST(MemoryBudget, ABvhOverItsBudgetIsRefusedBeforeItsFramesAreRead) {
  const auto path = scratch_path("budget.bvh");
  // Its first value is not a number: the refusal coming first shows that no frame was read.
  io::write_file_atomic(path, small_bvh(5000, 5000, "x"));
  const io::ClipCounts counts{0, 5000, 2, 4};
  BudgetScope scope(io::estimate_clip_bytes(counts));  // below: the file's bytes come on top
  const std::string what = error_of([&] { io::load_clip(path); });
  EXPECT_EQ(what.rfind(path.string() + ": needs about ", 0), 0u) << what;
  EXPECT_NE(what.find("of memory (5000 frames of 2 joints), more than the budget of"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("(--max-memory)"), std::string::npos) << what;
  // Within the budget, the same file reaches its frames (and their error).
  io::set_memory_budget(1024 * kMiB);
  EXPECT_NE(error_of([&] { io::load_clip(path); }).find("is not a number"), std::string::npos);
  io::write_file_atomic(path, small_bvh(5000, 5000));
  EXPECT_EQ(io::load_clip(path).clip.frame_count, 5000);
}

TEST(MemoryBudget, ABvhIsJudgedByTheFramesItsTextCanHold) {
  // "Frames: 2000000000" on 3 lines: not a memory error but the frame lines' own.
  const auto path = scratch_path("lying_frames.bvh");
  io::write_file_atomic(path, small_bvh(2000000000, 3));
  BudgetScope scope(1024 * kMiB);
  const std::string what = error_of([&] { io::load_clip(path); });
  EXPECT_NE(what.find("file ends after 3 frame lines"), std::string::npos) << what;
}

TEST(MemoryBudget, FbxGltfTakesOverTheirBudgetAreRefused) {
  const auto fbx = scratch_path("budget.fbx");
  io::write_file_atomic(fbx, ikfix::test::synthetic_skeleton_fbx({}));
  BudgetScope scope(8 * kMiB);  // below the fixed cost of any clip
  const std::string fbx_error = error_of([&] { io::load_clip(fbx); });
  EXPECT_EQ(fbx_error.rfind(fbx.string() + ": needs about ", 0), 0u) << fbx_error;
  EXPECT_NE(fbx_error.find("(3 frames of 12 joints)"), std::string::npos) << fbx_error;

  // glTF: 30,001 keys at 30 fps, 30,001 frames of one joint.
  ikfix::test::MiniGltf m;
  m.add_node("root", -1);
  std::vector<float> times(30001);
  for (std::size_t k = 0; k < times.size(); ++k) times[k] = static_cast<float>(k) / 30.0f;
  const int input = m.add_floats(times, "SCALAR", 1);
  const int output = m.add_floats(std::vector<float>(3 * times.size(), 0.5f), "VEC3", 3);
  m.add_animation("walk", {{0, "translation", input, output, "LINEAR"}});
  const auto doc = std::make_shared<const io::gltf::Document>(m.parse("budget.gltf"));
  io::set_memory_budget(io::estimate_clip_bytes({0, 30001, 1, 0}) - 1);
  const std::string gltf_error = error_of([&] { io::gltf::extract_take(doc, 0); });
  EXPECT_EQ(gltf_error.rfind("budget.gltf: needs about ", 0), 0u) << gltf_error;
  EXPECT_NE(gltf_error.find("(30001 frames of 1 joints)"), std::string::npos) << gltf_error;
  io::set_memory_budget(io::estimate_clip_bytes({0, 30001, 1, 0}));
  EXPECT_EQ(io::gltf::extract_take(doc, 0).clip.frame_count, 30001);
}

// Peak resident memory of this process so far, in bytes.
std::uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

TEST(MemoryBudget, AGltfWhoseKeysSpanMillionsOfFramesIsRefusedBeforeItsFrameTimesExist) {
  // Keys 0.3 s apart then one 1.4 M s later: no common grid, so 42 M frames at 30 fps, whose
  // times alone are 336 MB. fuzz_gltf saw such a file allocate 1 GiB before the budget's check.
  ikfix::test::MiniGltf m;
  m.add_node("root", -1);
  const std::vector<float> times = {0.0f, 0.3f, 1.4e6f};
  const int input = m.add_floats(times, "SCALAR", 1);
  const int output = m.add_floats(std::vector<float>(3 * times.size(), 0.5f), "VEC3", 3);
  m.add_animation("walk", {{0, "translation", input, output, "LINEAR"}});
  const auto doc = std::make_shared<const io::gltf::Document>(m.parse("span.gltf"));
  BudgetScope scope(512 * kMiB);
  const std::uint64_t peak_before = peak_rss_bytes();
  const std::string what = error_of([&] { io::gltf::extract_take(doc, 0); });
  EXPECT_EQ(what.rfind("span.gltf: needs about ", 0), 0u) << what;
  EXPECT_NE(what.find("(42000001 frames of 1 joints)"), std::string::npos) << what;
  EXPECT_LT(peak_rss_bytes() - peak_before, 64 * kMiB);
}

}  // namespace
