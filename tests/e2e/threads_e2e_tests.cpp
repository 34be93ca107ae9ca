// `ikfix run --threads N` and `check --threads N` end to end: whatever N, the same clip bytes and
// the same report; and `batch` (one thread per clip) writes the same bytes as `run`.
#include "e2e_support.hpp"

namespace ikfix::test {
namespace {

struct ThreadsCase {
  const char* name;
  std::filesystem::path clip;
  bool shared;  // needs ../shared/data
};

// Runs the clip at 1, 2 and 3 threads; expects byte-identical clips and reports equal but for
// the output path they name. Returns the clip written.
std::string expect_same_at_any_thread_count(const ThreadsCase& c) {
  const auto dir = temp_dir(std::string("threads_") + c.name);
  std::string first_clip;
  nlohmann::json first_report;
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    const auto out = dir / ("out" + std::to_string(threads) + ".bvh");
    const auto report = dir / ("r" + std::to_string(threads) + ".json");
    const auto r = run_ikfix(
        "run " + quoted(c.clip) + " --terrain " + quoted(bundled("terrain/stairs.obj")) + " -o " +
        quoted(out) + " --report " + quoted(report) + " --threads " + std::to_string(threads));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    if (r.exit_code != 0) break;
    const std::string written = io::read_file(out);
    nlohmann::json json = read_json(report);
    json.erase("output");
    if (threads == 1) {
      first_clip = written;
      first_report = json;
    } else {
      EXPECT_TRUE(written == first_clip) << "the clip written differs from --threads 1's";
      EXPECT_EQ(json, first_report);
    }
  }
  std::filesystem::remove_all(dir);
  return first_clip;
}

TEST(E2eThreads, LargeCmuClipSameBytesAndReportAtAnyThreadCount) {
  IKFIX_REQUIRE_SHARED_DATA();
  // 2 MB, 2752 frames: large enough that the reader, the Euler conversion and the writer split.
  const std::string clip = expect_same_at_any_thread_count(
      {"jumps", shared_data_dir() / "anim/bvh/cmu_01_01_forward_jumps.bvh", true});
  EXPECT_FALSE(clip.empty());
}

TEST(E2eThreads, BundledWalkSameBytesAndReportAtAnyThreadCount) {
  const std::string clip =
      expect_same_at_any_thread_count({"walk", bundled("clips/walk.bvh"), false});
  EXPECT_FALSE(clip.empty());
}

TEST(E2eThreads, CheckReportSameAtAnyThreadCount) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("threads_check");
  const auto clip = shared_data_dir() / "anim/bvh/cmu_02_01_walk.bvh";
  for (int threads : {1, 2}) {
    const auto r =
        run_ikfix("check " + quoted(clip) + " --terrain " + quoted(bundled("terrain/stairs.obj")) +
                  " --report " + quoted(dir / ("c" + std::to_string(threads) + ".json")) +
                  " --threads " + std::to_string(threads));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  EXPECT_EQ(read_json(dir / "c1.json"), read_json(dir / "c2.json"));
  std::filesystem::remove_all(dir);
}

// batch keeps each clip on one thread (its --jobs use the cores): what it writes is what
// `run` writes on any number of threads.
TEST(E2eThreads, BatchWritesWhatRunWrites) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("threads_batch");
  const auto clip = shared_data_dir() / "anim/bvh/cmu_01_01_forward_jumps.bvh";
  const auto lib = dir / "lib";
  std::filesystem::create_directories(lib);
  std::filesystem::copy_file(clip, lib / clip.filename());
  const auto b =
      run_ikfix("batch " + quoted(lib) + " --terrain " + quoted(bundled("terrain/stairs.obj")) +
                " --out-dir " + quoted(dir / "out") + " --jobs 2");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  const auto r =
      run_ikfix("run " + quoted(clip) + " --terrain " + quoted(bundled("terrain/stairs.obj")) +
                " -o " + quoted(dir / "run.bvh") + " --threads 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(io::read_file(dir / "out" / clip.filename()) == io::read_file(dir / "run.bvh"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test
