// Outputs in another format than the input: `ikfix batch --format bvh` and `ikfix run -o X.bvh`
// write every clip as a BVH whose joints stand where the fixed clip in its own format puts them;
// conversions that would lose data fail with the reason, clip by clip.
#include <algorithm>
#include <map>

#include "e2e_support.hpp"
#include "io/bvh/new_writer.hpp"

namespace ikfix::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

const fs::path kStairs = bundled("terrain/stairs.obj");
const fs::path kWalk = bundled("clips/walk.bvh");

std::string batch_args(const fs::path& inputs, const fs::path& out, const std::string& extra = "") {
  return "batch " + quoted(inputs) + " --terrain " + quoted(kStairs) + " --out-dir " + quoted(out) +
         " " + extra;
}

// A mixed library: the bundled BVH walk, two FBX characters and a GLB from the shared data.
fs::path mixed_library(const fs::path& dir) {
  const fs::path lib = dir / "lib";
  fs::create_directories(lib / "fbx");
  fs::copy_file(kWalk, lib / "walk.bvh");
  const fs::path anim = shared_data_dir() / "anim";
  fs::copy_file(anim / "fbx/cmu_07_01_walk_skeleton.fbx", lib / "fbx/cmu_07_01_walk_skeleton.fbx");
  fs::copy_file(anim / "fbx/kenney_character_maya_7700.fbx",
                lib / "fbx/kenney_character_maya_7700.fbx");
  fs::copy_file(anim / "gltf/CesiumMan.glb", lib / "CesiumMan.glb");
  return lib;
}

// Largest distance (metres) between a joint of `native` and the joint of the same (BVH-safe)
// name in `converted`, over all frames. The converted file's ROOT is the pelvis: the one-child
// joints above it in `native` (group and control nodes) are not in it; every other joint is.
double largest_difference(const PosedClip& native, const PosedClip& converted) {
  EXPECT_EQ(native.loaded.clip.frame_count, converted.loaded.clip.frame_count);
  const std::vector<std::string> names = io::bvh::bvh_safe_names(native.loaded.skeleton.names);
  const core::Skeleton& skeleton = native.loaded.skeleton;
  // Only the single root's chain of one-child joints may be folded away (as the writer folds
  // it): a one-child joint elsewhere (a spine or neck joint) must still be in the file.
  std::vector<char> above_pelvis(skeleton.joint_count(), 0);
  if (std::count(skeleton.parents.begin(), skeleton.parents.end(), -1) == 1)
    for (int j = 0; skeleton.children(j).size() == 1 && !skeleton.end_sites[j];
         j = skeleton.children(j)[0])
      above_pelvis[j] = 1;
  double worst = 0.0;
  for (int j = 0; j < native.joints; ++j) {
    const int k = converted.loaded.skeleton.find(names[j]);
    if (k < 0) {
      EXPECT_TRUE(above_pelvis[j]) << names[j] << " is missing";
      continue;
    }
    for (int f = 0; f < std::min(native.loaded.clip.frame_count, converted.loaded.clip.frame_count);
         ++f)
      worst = std::max(worst, glm::length(native.at(f, j) - converted.at(f, k)));
  }
  return worst;
}

TEST(Format, BatchFormatBvhWritesWhatTheNativeFixPoses) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("format_bvh");
  const auto lib = mixed_library(dir);
  const auto native =
      run_ikfix(batch_args(lib, dir / "native", "--report " + quoted(dir / "native.json")));
  ASSERT_EQ(native.exit_code, 0) << native.output;
  const auto bvh =
      run_ikfix(batch_args(lib, dir / "bvh", "--format bvh --report " + quoted(dir / "bvh.json")));
  ASSERT_EQ(bvh.exit_code, 0) << bvh.output;

  const Json report = Json::parse(io::read_file(dir / "bvh.json"));
  ASSERT_EQ(report["clips"].size(), 4u);
  for (const auto& clip : report["clips"]) {
    const fs::path input = clip["input"].get<std::string>();
    const fs::path relative = input.lexically_relative(lib);
    fs::path as_bvh = relative;
    as_bvh.replace_extension(".bvh");
    SCOPED_TRACE(relative.string());
    EXPECT_EQ(clip["status"], "ok");
    EXPECT_EQ(clip["output"].get<std::string>(), (dir / "bvh" / as_bvh).string());
    // Units: the BVH keeps the clip's own; read it in the unit the native file resolved.
    const PosedClip fixed = pose_clip(dir / "native" / relative);
    io::ClipLoadOptions same_unit;
    same_unit.metres_per_unit = fixed.loaded.space.metres_per_unit;
    const PosedClip converted = pose_clip(dir / "bvh" / as_bvh, same_unit);
    // Float keys in the native FBX / GLB against doubles in the BVH, and joint translations that
    // move by less than 2e-7 of the skeleton's size written as constant OFFSETs (measured:
    // <= 1.06 micrometres, CMU x100 group and Maya scale noise).
    EXPECT_LT(largest_difference(fixed, converted), 2e-6);
    if (input.extension() == ".bvh") {  // BVH to BVH is the patch writer, as without --format
      EXPECT_EQ(io::read_file(dir / "native" / relative), io::read_file(dir / "bvh" / as_bvh));
    }
  }

  // `ikfix run -o X.bvh` writes the same bytes as the batch.
  const auto run = run_ikfix("run " + quoted(lib / "CesiumMan.glb") + " --terrain " +
                             quoted(kStairs) + " -o " + quoted(dir / "run.bvh"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(io::read_file(dir / "run.bvh"), io::read_file(dir / "bvh" / "CesiumMan.bvh"));
}

TEST(Format, ConversionsThatLoseDataFailClipByClip) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("format_fbx");
  const auto lib = mixed_library(dir);
  const auto r =
      run_ikfix(batch_args(lib, dir / "out", "--format fbx --report " + quoted(dir / "r.json")));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const Json report = Json::parse(io::read_file(dir / "r.json"));
  std::map<std::string, Json> by_name;
  for (const auto& clip : report["clips"])
    by_name[fs::path(clip["input"].get<std::string>()).filename().string()] = clip;
  EXPECT_EQ(by_name["kenney_character_maya_7700.fbx"]["status"], "ok");
  EXPECT_EQ(by_name["walk.bvh"]["status"], "error");
  EXPECT_NE(by_name["walk.bvh"]["error"].get<std::string>().find(
                "cannot write a .bvh clip as .fbx without losing data"),
            std::string::npos)
      << by_name["walk.bvh"]["error"];
  EXPECT_NE(by_name["CesiumMan.glb"]["error"].get<std::string>().find(
                "(ikfix writes .glb clips as .glb or .bvh only)"),
            std::string::npos)
      << by_name["CesiumMan.glb"]["error"];
  EXPECT_FALSE(fs::exists(dir / "out" / "walk.fbx"));
  EXPECT_FALSE(fs::exists(dir / "out" / "CesiumMan.fbx"));
}

TEST(Format, OutputsThatWouldCollideAreBadUsage) {
  const auto dir = temp_dir("format_collide");
  fs::create_directories(dir / "lib");
  fs::copy_file(kWalk, dir / "lib" / "walk.bvh");
  io::write_file_atomic(dir / "lib" / "walk.glb", "not read: the clash is found first");
  const auto r = run_ikfix(batch_args(dir / "lib", dir / "out", "--format bvh"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("would both be written to walk.bvh under --out-dir with --format bvh"),
            std::string::npos)
      << r.output;
  const auto check = run_ikfix("batch " + quoted(dir / "lib" / "walk.bvh") + " --terrain " +
                               quoted(kStairs) + " --check-only --format bvh");
  EXPECT_EQ(check.exit_code, 2) << check.output;
  const auto bad = run_ikfix(batch_args(dir / "lib" / "walk.bvh", dir / "out", "--format obj"));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
}

}  // namespace
}  // namespace ikfix::test
