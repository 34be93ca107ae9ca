// Per-clip settings: CLIP.ikfix.json beside a clip is honoured by run and batch alike.
#include <fstream>

#include "e2e_support.hpp"

namespace ikfix::test {
namespace {

TEST(E2eConfig, SidecarPlacesTheClipOnTheTerrainForRunAndBatch) {
  const auto dir = temp_dir("config");
  const auto lib = dir / "lib";
  std::filesystem::create_directories(lib);
  std::filesystem::copy_file(bundled("clips/walk.bvh"), lib / "walk.bvh");
  // The clip stands on a floor 0.5 m higher than the flat terrain file says.
  {
    std::ofstream(lib / "walk.bvh.ikfix.json")
        << R"({"terrain_offset": [0, 0.5, 0], "clip_unit": "cm"})";
  }
  const auto flat = bundled("terrain/flat.obj");
  auto run = run_ikfix("run " + quoted(lib / "walk.bvh") + " --terrain " + quoted(flat) + " -o " +
                       quoted(dir / "run.bvh") + " --report " + quoted(dir / "run.json"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto report = read_json(dir / "run.json");
  EXPECT_NEAR(report["body"]["min_rise_m"].get<double>(), 0.5, 0.02);
  EXPECT_EQ(report["unit"]["source"], "user");
  auto batch = run_ikfix("-q batch " + quoted(lib) + " --terrain " + quoted(flat) + " --out-dir " +
                         quoted(dir / "out"));
  ASSERT_EQ(batch.exit_code, 0) << batch.output;
  EXPECT_EQ(io::read_file(dir / "run.bvh"), io::read_file(dir / "out" / "walk.bvh"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test

namespace ikfix::test {
namespace {

TEST(E2eBatchInputs, FolderWalkSkipsIkfixOutputs) {
  const auto dir = temp_dir("skip_outputs");
  const auto lib = dir / "lib";
  std::filesystem::create_directories(lib);
  std::filesystem::copy_file(bundled("clips/walk.bvh"), lib / "walk.bvh");
  auto run = run_ikfix("-q run " + quoted(lib / "walk.bvh") + " --terrain " +
                       quoted(bundled("terrain/flat.obj")));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  ASSERT_TRUE(std::filesystem::exists(lib / "walk.ikfix.bvh"));
  auto batch = run_ikfix("batch " + quoted(lib) + " --terrain " +
                         quoted(bundled("terrain/flat.obj")) + " --out-dir " + quoted(dir / "out"));
  ASSERT_EQ(batch.exit_code, 0) << batch.output;
  EXPECT_NE(batch.output.find("1 clip(s)"), std::string::npos) << batch.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out" / "walk.ikfix.bvh"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test
