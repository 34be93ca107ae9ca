// Blender 3.4 opens the BVHs ikfix writes from other formats (`run -o X.bvh`, `batch --format
// bvh`, bvh::write_new): every bone of the file, posed where ikfix's forward kinematics of the
// same file puts the joint - for every joint that has no position channels between it and the
// ROOT: Blender reads a non-root joint's position channels as an armature-space position, which
// no other reader does (bvh/new_writer.hpp), and the converted clips keep such channels where a
// joint's translation really moves (scale noise of the Maya file, 0.5 um key noise of
// CesiumMan). Skips when Blender is not installed.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/fk.hpp"
#include "e2e/e2e_support.hpp"
#include "io/bvh/bvh.hpp"

namespace ikfix::test {
namespace {

namespace fs = std::filesystem;

TEST(BvhBlenderInterop, ConvertedClipsOpenInBlenderWithEveryJointInPlace) {
  IKFIX_REQUIRE_SHARED_DATA();
  if (std::system("blender --version > /dev/null 2>&1") != 0) {
    if (running_in_ci()) FAIL() << "blender not installed (CI=true: .ci/setup installs it)";
    GTEST_SKIP() << "blender not installed";
  }
  const auto dir = temp_dir("bvh_blender");
  const std::vector<int> frames = {0, 9, 20};
  std::vector<fs::path> outputs;
  for (const char* name : {"gltf/CesiumMan.glb", "fbx/kenney_character_maya_7700.fbx",
                           "fbx/cmu_07_01_walk_skeleton.fbx"}) {
    const fs::path input = shared_data_dir() / "anim" / name;
    fs::path out = dir / input.filename();
    out.replace_extension(".bvh");
    const auto r = run_ikfix("run " + quoted(input) + " --terrain " +
                             quoted(bundled("terrain/stairs.obj")) + " -o " + quoted(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    outputs.push_back(out);
  }
  const fs::path json_path = dir / "blender.json";
  std::string command = "IKFIX_POSE_FRAMES=1,10,21 blender -b --factory-startup --python " +
                        quoted(source_dir() / "tests" / "interop" / "blender_bvh_import.py") +
                        " -- " + quoted(json_path);
  for (const auto& out : outputs) command += " " + quoted(out);
  const auto log = std::system((command + " > " + quoted(dir / "blender.log") + " 2>&1").c_str());
  ASSERT_EQ(log, 0) << io::read_file(dir / "blender.log");
  const auto result = read_json(json_path);
  for (const auto& out : outputs) {
    SCOPED_TRACE(out.filename().string());
    const auto& entry = result.at(out.string());
    ASSERT_TRUE(entry["ok"].get<bool>()) << entry.dump();
    // The file as ikfix reads it, in its own units (Blender imports BVH units as they are).
    io::ClipLoadOptions as_is;
    as_is.metres_per_unit = 1.0;
    const io::LoadedClip clip = io::load_clip(out, as_is);
    EXPECT_EQ(entry["bones"].size(), static_cast<std::size_t>(clip.skeleton.joint_count()));
    const io::bvh::Document doc = io::bvh::read_file(out);
    std::vector<char> comparable(clip.skeleton.joint_count(), 1);
    for (int j = 1; j < clip.skeleton.joint_count(); ++j)
      comparable[j] = comparable[clip.skeleton.parents[j]] && doc.joints[j].channels.size() == 3;
    double worst = 0.0, size = 0.0;
    int compared = 0;
    std::vector<core::Transform> world(clip.skeleton.joint_count());
    for (int f : frames) {
      if (f >= clip.clip.frame_count) continue;
      core::forward_kinematics(clip.skeleton, clip.clip.frame(f), core::Transform{}, world);
      const auto& heads = entry["poses"][std::to_string(f + 1)];
      for (int j = 0; j < clip.skeleton.joint_count(); ++j) {
        const core::Vec3 p = world[j].translation;
        const core::Vec3 want(p.x, -p.z, p.y);  // Y up -> Blender's Z up
        size = std::max(size, glm::length(want));
        if (!comparable[j] || !heads.contains(clip.skeleton.names[j])) continue;
        const auto& h = heads[clip.skeleton.names[j]];
        worst = std::max(worst, glm::length(core::Vec3(h[0].get<double>(), h[1].get<double>(),
                                                       h[2].get<double>()) -
                                            want));
        ++compared;
      }
    }
    EXPECT_GE(compared, clip.skeleton.joint_count() / 2);  // at least half the joints, 2+ frames
    EXPECT_LT(worst, 1e-5 * size) << "Blender's bone heads against ikfix's joints";
  }
  if (!HasFailure()) fs::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test
