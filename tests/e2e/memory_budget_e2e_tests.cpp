// --max-memory end to end (issue 19 item 4): a clip whose estimated need exceeds the budget is
// refused with one line naming it, before its frames are read, and leaves no output; in a batch
// it is that clip's error row while the others are fixed.
#include <algorithm>

#include "e2e_support.hpp"

namespace ikfix::test {
namespace {

namespace fs = std::filesystem;

const fs::path kWalk = bundled("clips/walk.bvh");
const fs::path kStairs = bundled("terrain/stairs.obj");

// The bundled walk with its 120 frames repeated `times` times (a longer clip, same skeleton).
std::string repeated_walk(int times) {
  const std::string text = io::read_file(kWalk);
  const std::size_t motion = text.find("MOTION");
  const std::size_t frames = text.find("Frame Time:", motion);
  const std::size_t first = text.find('\n', frames) + 1;
  std::string out = text.substr(0, motion) + "MOTION\nFrames: " + std::to_string(120 * times) +
                    "\n" + text.substr(frames, first - frames);
  for (int i = 0; i < times; ++i) out += text.substr(first);
  return out;
}

TEST(MemoryBudgetE2E, AClipOverTheBudgetIsOneLineAndNoOutput) {
  const auto dir = temp_dir("memory_run");
  const fs::path out = dir / "walk.bvh";
  const auto refused = run_ikfix("run " + quoted(kWalk) + " --terrain " + quoted(kStairs) + " -o " +
                                 quoted(out) + " --max-memory 16M");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_EQ(refused.output.rfind("error: " + kWalk.string() + ": needs about ", 0), 0u)
      << refused.output;
  EXPECT_NE(refused.output.find("(120 frames of 24 joints), more than the budget of 16 MB "
                                "(--max-memory)"),
            std::string::npos)
      << refused.output;
  EXPECT_EQ(std::count(refused.output.begin(), refused.output.end(), '\n'), 1) << refused.output;
  EXPECT_FALSE(fs::exists(out));
  const auto fixed = run_ikfix("run " + quoted(kWalk) + " --terrain " + quoted(kStairs) + " -o " +
                               quoted(out) + " --max-memory 1G");
  EXPECT_EQ(fixed.exit_code, 0) << fixed.output;
  EXPECT_TRUE(fs::exists(out));
  // check and retarget read through the same readers.
  const auto check =
      run_ikfix("check " + quoted(kWalk) + " --terrain " + quoted(kStairs) + " --max-memory 16M");
  EXPECT_EQ(check.exit_code, 2) << check.output;
  EXPECT_NE(check.output.find("(--max-memory)"), std::string::npos) << check.output;
  const auto retarget = run_ikfix("retarget " + quoted(kWalk) + " --to " + quoted(kWalk) + " -o " +
                                  quoted(dir / "r.bvh") + " --max-memory 16M");
  EXPECT_EQ(retarget.exit_code, 2) << retarget.output;
  EXPECT_NE(retarget.output.find("(--max-memory)"), std::string::npos) << retarget.output;
}

TEST(MemoryBudgetE2E, SizesThatAreNotSizesAreUsageErrors) {
  for (const char* bad : {"4X", "-1G", "G", "lots"}) {
    const auto r = run_ikfix("run " + quoted(kWalk) + " --terrain " + quoted(kStairs) +
                             " --max-memory " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("is not a size"), std::string::npos) << r.output;
  }
}

TEST(MemoryBudgetE2E, InABatchARefusedClipIsAnErrorRowAndTheOthersGoOn) {
  const auto dir = temp_dir("memory_batch");
  const fs::path lib = dir / "lib";
  fs::create_directories(lib);
  fs::copy_file(kWalk, lib / "walk.bvh");
  io::write_file_atomic(lib / "long.bvh", repeated_walk(50));  // 6000 frames: about 60 MB
  const auto r = run_ikfix("batch " + quoted(lib) + " --terrain " + quoted(kStairs) +
                           " --out-dir " + quoted(dir / "out") + " --jobs 1 --max-memory 32M" +
                           " --allow-errors --report " + quoted(dir / "r.json"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto report = read_json(dir / "r.json");
  EXPECT_EQ(report["totals"]["ok"], 1);
  EXPECT_EQ(report["totals"]["errors"], 1);
  ASSERT_EQ(report["errors"].size(), 1u);
  const std::string error = report["errors"][0]["error"].get<std::string>();
  EXPECT_NE(error.find("long.bvh: needs about"), std::string::npos) << error;
  EXPECT_NE(error.find("(6000 frames of 24 joints)"), std::string::npos) << error;
  EXPECT_TRUE(fs::exists(dir / "out" / "walk.bvh"));
  EXPECT_FALSE(fs::exists(dir / "out" / "long.bvh"));
  // Two jobs share the budget: each clip gets half, so the walk alone still fits in 40M.
  const auto two = run_ikfix("batch " + quoted(lib) + " --terrain " + quoted(kStairs) +
                             " --out-dir " + quoted(dir / "out2") + " --jobs 2 --max-memory 40M" +
                             " --allow-errors --report " + quoted(dir / "r2.json"));
  EXPECT_EQ(two.exit_code, 0) << two.output;
  EXPECT_EQ(read_json(dir / "r2.json")["totals"]["ok"], 1);
}

}  // namespace
}  // namespace ikfix::test
