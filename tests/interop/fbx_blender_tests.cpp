// Blender 3.4 opens what ikfix writes: the binary FBX outputs of `ikfix run` import with
// bpy.ops.import_scene.fbx and show the same armature bones, actions, F-curves and frame
// ranges as the inputs. Skips when Blender is not installed (apt-get install blender).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/fk.hpp"
#include "io/clip_io.hpp"
#include "io/file_util.hpp"
#include "test_data.hpp"
#include "test_scratch.hpp"

namespace ikfix::test {
namespace {

std::string run_command(const std::string& command, int& exit_code) {
  std::string output;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen((command + " 2>&1").c_str(), "r"), pclose);
  if (!pipe) return output;
  std::array<char, 4096> buffer;
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0)
    output.append(buffer.data(), n);
  const int status = pclose(pipe.release());
  exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

std::string q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// Shared data and Blender are needed; without Blender the test skips, except under CI=true.
#define IKFIX_REQUIRE_BLENDER()                                                                \
  do {                                                                                         \
    IKFIX_REQUIRE_SHARED_DATA();                                                               \
    int blender_code = 0;                                                                      \
    run_command("blender --version", blender_code);                                            \
    if (blender_code != 0) {                                                                   \
      if (running_in_ci()) FAIL() << "blender not installed (CI=true: .ci/setup installs it)"; \
      GTEST_SKIP() << "blender not installed";                                                 \
    }                                                                                          \
  } while (0)

using FilePairs = std::vector<std::pair<std::filesystem::path, std::filesystem::path>>;

// Imports every input and output of `pairs` with tests/interop/blender_fbx_import.py in one
// headless Blender and returns what it recorded per file path. `env` (e.g.
// "IKFIX_POSE_ACTION=Walk") goes before the command. Fails the test when Blender fails.
nlohmann::json import_in_blender(const FilePairs& pairs, const std::filesystem::path& dir,
                                 const std::string& env = "") {
  const auto json_path = dir / "blender.json";
  std::string command = (env.empty() ? "" : env + " ") + "blender -b --factory-startup --python " +
                        q(source_dir() / "tests" / "interop" / "blender_fbx_import.py") + " -- " +
                        q(json_path);
  for (const auto& [in, out] : pairs) command += " " + q(in) + " " + q(out);
  int code = 0;
  const std::string log = run_command(command, code);
  EXPECT_EQ(code, 0) << log;
  if (code != 0) return nlohmann::json::object();
  return nlohmann::json::parse(io::read_file(json_path));
}

TEST(FbxBlenderInterop, FixedBinaryFbxOpensInBlenderWithTheSameBonesAndFrames) {
  IKFIX_REQUIRE_BLENDER();
  int code = 0;
  const auto dir = ikfix::test::scratch_dir("interop_fbx");
  std::filesystem::create_directories(dir);
  FilePairs pairs;
  for (const char* name : {"cmu_07_01_walk_skeleton.fbx", "kenney_character_maya_7700.fbx"}) {
    const auto input = shared_data_dir() / "anim" / "fbx" / name;
    const auto out = dir / name;
    const std::string out_text =
        run_command(q(ikfix_binary()) + " run " + q(input) + " --terrain " +
                        q(source_dir() / "data" / "terrain" / "stairs.obj") + " -o " + q(out),
                    code);
    ASSERT_EQ(code, 0) << out_text;
    pairs.emplace_back(input, out);
  }
  const auto result = import_in_blender(pairs, dir);
  ASSERT_FALSE(HasFailure());
  for (const auto& [in, out] : pairs) {
    SCOPED_TRACE(out.filename().string());
    const auto& a = result.at(in.string());
    const auto& b = result.at(out.string());
    ASSERT_TRUE(a["ok"].get<bool>()) << a.dump();
    ASSERT_TRUE(b["ok"].get<bool>()) << b.dump();
    EXPECT_FALSE(b["armatures"].empty());
    EXPECT_EQ(a["armatures"], b["armatures"]);
    // Same actions and F-curves. The frame range Blender shows is the keys' range: the fixed
    // joints get a key on every frame of the take (LocalStart..LocalStop), so a take whose keys
    // stopped early (Kenney: keys to frame 16 of 0..20) now spans the whole take.
    ASSERT_EQ(a["actions"].size(), b["actions"].size());
    for (const auto& [name, action] : a["actions"].items()) {
      ASSERT_TRUE(b["actions"].contains(name)) << name;
      const auto& other = b["actions"][name];
      EXPECT_EQ(action["fcurves"], other["fcurves"]) << name;
      EXPECT_EQ(action["frame_range"][0], other["frame_range"][0]) << name;
      EXPECT_GE(other["frame_range"][1].get<double>(), action["frame_range"][1].get<double>())
          << name;
    }
  }
  std::filesystem::remove_all(dir);
}

// Issue 6, P8: a take added to the full Kenney character (binary FBX 7.7) and to its rest-only
// armature opens in Blender with the mesh, its skin (vertex groups, armature modifier) and every
// control bone intact, the file's own take unchanged, and the new take as one more action.
TEST(FbxBlenderInterop, AddedTakeOpensInBlenderWithMeshSkinAndControlsIntact) {
  IKFIX_REQUIRE_BLENDER();
  const auto dir = ikfix::test::scratch_dir("interop_take");
  std::filesystem::create_directories(dir);
  const int frames = 40;
  FilePairs pairs;
  // Where each bone should be (metres, Blender's Z up) at frames 0, 13 and 39 of the new take.
  std::map<std::string, std::map<int, std::map<std::string, core::Vec3>>> expected;
  for (const auto& input : {shared_data_dir() / "anim" / "fbx" / "kenney_character_maya_7700.fbx",
                            shared_data_dir() / "retarget" / "kenney_rest.fbx"}) {
    const io::LoadedClip character = io::load_character(input);
    core::Clip clip;
    clip.fps = character.clip.fps;
    clip.frame_count = frames;
    clip.joint_count = character.skeleton.joint_count();
    // Every joint gets curves: the Maya file's Models were saved away from the bind-pose rest.
    const std::vector<char> animated(clip.joint_count, 1);
    for (int f = 0; f < frames; ++f)
      for (int j = 0; j < clip.joint_count; ++j) {
        core::Transform t = character.skeleton.rest[j];
        const std::string& name = character.skeleton.names[j];
        if (name == "LeftUpLeg" || name == "RightLeg" || name == "Hips") {
          t.rotation = t.rotation * core::axis_angle(core::Vec3(1, 0, 0), 0.6 * std::sin(f * 0.3));
        }
        clip.locals.push_back(t);
      }
    const auto out = dir / ("walk_" + input.filename().string());
    io::save_new_take(out, character, clip, animated, "Walk", false);
    pairs.emplace_back(input, out);
    std::vector<core::Transform> world(clip.joint_count);
    for (int f : {0, 13, 39}) {
      core::forward_kinematics(character.skeleton, clip.frame(f), character.space.to_world(),
                               world);
      for (int j = 0; j < clip.joint_count; ++j) {
        const core::Vec3 p = world[j].translation;  // Y up -> Blender's Z up
        expected[out.string()][f][character.skeleton.names[j]] = core::Vec3(p.x, -p.z, p.y);
      }
    }
  }
  // Blender shows FBX time 0 as frame 1.
  const auto result =
      import_in_blender(pairs, dir, "IKFIX_POSE_ACTION=Walk IKFIX_POSE_FRAMES=1,14,40");
  ASSERT_FALSE(HasFailure());
  for (const auto& [in, out] : pairs) {
    SCOPED_TRACE(out.filename().string());
    const auto& a = result.at(in.string());
    const auto& b = result.at(out.string());
    ASSERT_TRUE(a["ok"].get<bool>()) << a.dump();
    ASSERT_TRUE(b["ok"].get<bool>()) << b.dump();
    EXPECT_FALSE(b["armatures"].empty());
    if (in.filename() == "kenney_character_maya_7700.fbx") {
      EXPECT_FALSE(b["meshes"].empty());  // the character mesh and its skin
    }
    EXPECT_EQ(a["armatures"], b["armatures"]);  // every bone, controls included
    // The new take poses every bone where ikfix's forward kinematics puts it.
    int compared = 0;
    double worst = 0.0;
    for (const auto& [frame, bones] : b["poses"].items()) {
      const auto& want = expected[out.string()][std::stoi(frame) - 1];
      for (const auto& [bone, head] : bones.items()) {
        const auto it = want.find(bone);
        if (it == want.end()) continue;
        const core::Vec3 got(head[0].get<double>(), head[1].get<double>(), head[2].get<double>());
        worst = std::max(worst, glm::length(got - it->second));
        ++compared;
      }
    }
    EXPECT_GT(compared, 3 * 30);
    EXPECT_LT(worst, 1e-4) << "metres, between Blender's bone heads and ikfix's joints";
    EXPECT_EQ(a["objects"], b["objects"]);
    EXPECT_EQ(a["meshes"], b["meshes"]);  // vertices, vertex groups, armature modifier
    for (const auto& [name, action] : a["actions"].items()) {
      ASSERT_TRUE(b["actions"].contains(name)) << name;
      EXPECT_EQ(action, b["actions"][name]) << name;
    }
    ASSERT_EQ(b["actions"].size(), a["actions"].size() + 1) << b["actions"].dump();
    bool found = false;
    for (const auto& [name, action] : b["actions"].items()) {
      if (a["actions"].contains(name)) continue;
      found = true;
      EXPECT_NE(name.find("Walk"), std::string::npos) << name;
      EXPECT_GT(action["fcurves"].get<int>(), 0);
      EXPECT_NEAR(action["frame_range"][1].get<double>() - action["frame_range"][0].get<double>(),
                  frames - 1, 1e-3);
    }
    EXPECT_TRUE(found);
  }
  if (!HasFailure()) std::filesystem::remove_all(dir);
}

// P8: a CMU walk retargeted into the full Kenney character opens in Blender with the character's
// mesh, skin (vertex groups, armature modifier), materials and every bone (controls included),
// plus one more action: the retargeted take, spanning the source's frames.
TEST(FbxBlenderInterop, RetargetedTakeInTheFullCharacterKeepsMeshSkinAndControls) {
  IKFIX_REQUIRE_BLENDER();
  int code = 0;
  const auto dir = ikfix::test::scratch_dir("interop_retarget");
  std::filesystem::create_directories(dir);
  const auto character = shared_data_dir() / "anim" / "fbx" / "kenney_character_maya_7700.fbx";
  const auto out = dir / "walk_on_kenney.fbx";
  const std::string out_text = run_command(
      q(ikfix_binary()) + " retarget " +
          q(shared_data_dir() / "anim" / "bvh" / "cmu_02_01_walk.bvh") + " --to " + q(character) +
          " --terrain " + q(source_dir() / "data" / "terrain" / "stairs.obj") +
          " --take-name cmu_walk -o " + q(out),
      code);
  ASSERT_EQ(code, 0) << out_text;
  const auto result = import_in_blender({{character, out}}, dir);
  ASSERT_FALSE(HasFailure());
  const auto& a = result.at(character.string());
  const auto& b = result.at(out.string());
  ASSERT_TRUE(a["ok"].get<bool>()) << a.dump();
  ASSERT_TRUE(b["ok"].get<bool>()) << b.dump();
  EXPECT_EQ(a["armatures"], b["armatures"]);  // every bone, the control bones included
  EXPECT_FALSE(b["meshes"].empty());
  EXPECT_EQ(a["meshes"], b["meshes"]);  // vertices, vertex groups, armature modifiers, materials
  EXPECT_EQ(a["materials"], b["materials"]);
  for (const auto& [name, mesh] : b["meshes"].items()) {
    EXPECT_GT(mesh["vertices"].get<int>(), 0) << name;
    EXPECT_FALSE(mesh["vertex_groups"].empty()) << name;
  }
  // The character's own takes are still there, and one more.
  EXPECT_EQ(b["actions"].size(), a["actions"].size() + 1) << b["actions"].dump();
  bool found = false;
  for (const auto& [name, action] : b["actions"].items())
    if (name.find("cmu_walk") != std::string::npos) {
      found = true;
      EXPECT_GT(action["fcurves"].get<int>(), 30) << name;
      EXPECT_GT(action["frame_range"][1].get<double>() - action["frame_range"][0].get<double>(),
                50.0)
          << name;
    }
  EXPECT_TRUE(found) << b["actions"].dump();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test
