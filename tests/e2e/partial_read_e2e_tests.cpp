// `ikfix run` writing a BVH without metrics reads only the motion of the joints the fix reads
// (the legs and their ancestors); with --report (metrics read every joint) it reads them all.
// Both must write the same bytes, on legs with ankle joints and on legs ending in bone tails.
#include "e2e_support.hpp"

namespace ikfix::test {
namespace {

// Runs `clip` onto the stairs with --report (every joint read) and without (the fix's joints
// only) at 1 and 2 threads; expects the same bytes every time. Returns the report.
nlohmann::json expect_same_bytes_read_whole_or_in_part(const std::filesystem::path& clip,
                                                       const std::string& name) {
  const auto dir = temp_dir("partial_read_" + name);
  const std::string run =
      "run " + quoted(clip) + " --terrain " + quoted(bundled("terrain/stairs.obj"));
  const auto whole =
      run_ikfix(run + " -o " + quoted(dir / "whole.bvh") + " --report " + quoted(dir / "r.json"));
  EXPECT_EQ(whole.exit_code, 0) << whole.output;
  if (whole.exit_code != 0) return {};
  const std::string expected = io::read_file(dir / "whole.bvh");
  EXPECT_NE(expected, io::read_file(clip))
      << "the fix changed nothing: the comparison proves little";
  for (int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    const auto out = dir / ("part" + std::to_string(threads) + ".bvh");
    const auto r = run_ikfix(run + " -o " + quoted(out) + " --threads " + std::to_string(threads));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(io::read_file(out) == expected) << "differs from the clip written with --report";
  }
  nlohmann::json report = read_json(dir / "r.json");
  std::filesystem::remove_all(dir);
  return report;
}

TEST(E2ePartialRead, CmuClipSameBytesWithOrWithoutMetrics) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto report = expect_same_bytes_read_whole_or_in_part(
      shared_data_dir() / "anim/bvh/cmu_01_01_forward_jumps.bvh", "jumps");
  EXPECT_EQ(report["legs"]["method"], "names");
}

TEST(E2ePartialRead, BoneTailLegsSameBytesWithOrWithoutMetrics) {
  IKFIX_REQUIRE_SHARED_DATA();
  // The barbarian's legs end in bone tails (no ankle joint): its FBX written as a BVH keeps them
  // so.
  const auto dir = temp_dir("partial_read_tails_source");
  const auto bvh = dir / "barbarian.bvh";
  const auto convert =
      run_ikfix("run " + quoted(shared_data_dir() / "anim/fbx/barbarian_blender_7400.fbx") +
                " --terrain " + quoted(bundled("terrain/stairs.obj")) + " -o " + quoted(bvh));
  ASSERT_EQ(convert.exit_code, 0) << convert.output;
  const auto report = expect_same_bytes_read_whole_or_in_part(bvh, "tails");
  EXPECT_EQ(report["skeleton"]["virtual_ankles"].size(), 2u) << report.dump();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test
