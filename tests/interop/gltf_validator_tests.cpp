// Khronos glTF-Validator on everything the glTF writer produces: patched real files (every take,
// new channels, STEP samplers replaced, embedded buffers) and `ikfix run` outputs. Each output
// must have 0 errors and no warning its input did not have (validate_gltf.mjs --baseline).
// Skips when node or the validator package is missing (see interop.cmake).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "e2e/e2e_support.hpp"
#include "io/clip_io.hpp"
#include "io/gltf/gltf.hpp"

namespace ikfix::test {
namespace {

namespace fs = std::filesystem;

fs::path gltf_clip(const std::string& name) { return shared_data_dir() / "anim" / "gltf" / name; }

struct Validation {
  int exit_code = -1;
  nlohmann::json summary;
  std::string output;
};

Validation validate(const fs::path& file, const fs::path& baseline) {
  const fs::path script = source_dir() / "tests" / "interop" / "validate_gltf.mjs";
  const std::string command =
      "node " + quoted(script) + " " + quoted(file) + " --baseline " + quoted(baseline) + " 2>&1";
  Validation v;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return v;
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe.get())) > 0) v.output.append(buffer, n);
  const int status = pclose(pipe.release());
  v.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  const auto brace = v.output.find('{');
  if (brace != std::string::npos)
    v.summary = nlohmann::json::parse(v.output.substr(brace), nullptr, false);
  return v;
}

bool validator_available(std::string& why) {
  if (std::system("node --version > /dev/null 2>&1") != 0) {
    why = "node is not installed";
    return false;
  }
  if (!fs::exists(source_dir() / "tests" / "interop" / "node_modules" / "gltf-validator")) {
    why = "gltf-validator is not installed (npm install in tests/interop)";
    return false;
  }
  return true;
}

#define IKFIX_REQUIRE_VALIDATOR()                                        \
  do {                                                                   \
    IKFIX_REQUIRE_SHARED_DATA();                                         \
    std::string why;                                                     \
    if (!validator_available(why)) {                                     \
      if (::ikfix::test::running_in_ci()) FAIL() << why << " (CI=true)"; \
      GTEST_SKIP() << why;                                               \
    }                                                                    \
  } while (0)

void expect_valid(const fs::path& output, const fs::path& input) {
  const Validation v = validate(output, input);
  ASSERT_NE(v.exit_code, 2) << v.output;
  ASSERT_TRUE(v.summary.is_object()) << v.output;
  std::printf("[ validator ] %s: %d errors, %d warnings, %d infos (input: %d warnings) %s\n",
              output.filename().c_str(), v.summary.value("errors", -1),
              v.summary.value("warnings", -1), v.summary.value("infos", -1),
              v.summary["baseline"].value("warnings", -1), v.summary["codes"].dump().c_str());
  EXPECT_EQ(v.summary.value("errors", -1), 0) << v.output;
  EXPECT_TRUE(v.summary["new_warnings"].empty()) << v.output;
  EXPECT_EQ(v.exit_code, 0) << v.output;
}

// Turns `joints` (all when empty) by a small frame-dependent rotation in every take of `file`
// and moves the first one, writes all takes at once, and validates the result.
void patch_and_validate(const std::string& file, std::vector<std::string> joints) {
  const auto dir = temp_dir("gltf_validate");
  std::vector<io::LoadedClip> takes;
  const io::LoadedClip take0 = io::load_clip(gltf_clip(file));
  const auto layout0 = static_cast<const io::gltf::TakeLayout*>(take0.document.get());
  for (int t = 0; t < take0.take_count; ++t) {
    io::gltf::Take take = io::gltf::extract_take(layout0->document, t);
    io::LoadedClip c = take0;
    c.skeleton = take.skeleton;
    c.clip = take.clip;
    c.document = std::make_shared<const io::gltf::TakeLayout>(take.layout);
    takes.push_back(std::move(c));
  }
  std::vector<core::Clip> edited;
  std::vector<std::vector<char>> changed;
  for (const auto& c : takes) {
    edited.push_back(c.clip);
    changed.emplace_back(c.skeleton.joint_count(), 0);
    std::vector<std::string> names = joints;
    if (names.empty()) names = {c.skeleton.names.back()};
    for (std::size_t k = 0; k < names.size(); ++k) {
      const int j = c.skeleton.find(names[k]);
      ASSERT_GE(j, 0) << names[k];
      changed.back()[j] = 1;
      for (int f = 0; f < c.clip.frame_count; ++f) {
        auto& t = edited.back().at(f, j);
        t.rotation = t.rotation * core::axis_angle(core::Vec3(0, 0, 1), 0.2 * std::sin(0.3 * f));
        if (k == 0) t.translation += core::Vec3(0, 0.01 * std::cos(0.3 * f), 0);
      }
    }
  }
  std::vector<io::TakeEdit> edits;
  for (std::size_t t = 0; t < takes.size(); ++t)
    edits.push_back({&takes[t], &edited[t], changed[t]});
  const fs::path out = dir / ("patched_" + file);
  io::save_takes(out, edits);
  expect_valid(out, gltf_clip(file));
  fs::remove_all(dir);
}

TEST(GltfValidator, PatchedCesiumMan) {
  IKFIX_REQUIRE_VALIDATOR();
  patch_and_validate("CesiumMan.glb",
                     {"Skeleton_torso_joint_1", "leg_joint_L_1", "leg_joint_L_2", "leg_joint_L_3",
                      "leg_joint_R_1", "leg_joint_R_2", "leg_joint_R_3"});
}

TEST(GltfValidator, PatchedFoxAllThreeTakesWithNewChannels) {
  IKFIX_REQUIRE_VALIDATOR();
  // b_LeftFoot02_018 and b_RightFoot02_022 have no channel in any take: channels are created.
  patch_and_validate("Fox.glb",
                     {"b_Hip_01", "b_LeftLeg01_015", "b_LeftFoot02_018", "b_RightFoot02_022"});
}

TEST(GltfValidator, PatchedRiggedSimpleStepSamplers) {
  IKFIX_REQUIRE_VALIDATOR();
  patch_and_validate("RiggedSimple_blender.glb", {"Root", "Root.002"});
}

TEST(GltfValidator, PatchedSimpleSkinEmbedded) {
  IKFIX_REQUIRE_VALIDATOR();
  patch_and_validate("SimpleSkin.gltf", {"node_1", "node_2"});
}

void run_and_validate(const char* terrain) {
  const auto dir = temp_dir(std::string("gltf_validate_run_") + terrain);
  const auto out = dir / "CesiumMan.ikfix.glb";
  const auto r =
      run_ikfix("run " + quoted(gltf_clip("CesiumMan.glb")) + " --terrain " +
                quoted(bundled(std::string("terrain/") + terrain + ".obj")) + " -o " + quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_valid(out, gltf_clip("CesiumMan.glb"));
  fs::remove_all(dir);
}

TEST(GltfValidator, RunCesiumManOnStairs) {
  IKFIX_REQUIRE_VALIDATOR();
  run_and_validate("stairs");
}

TEST(GltfValidator, RunCesiumManOnFlat) {
  IKFIX_REQUIRE_VALIDATOR();
  run_and_validate("flat");
}

// A new animation added to a character (io::save_new_take): every joint swings, the first one
// also moves; kept beside the file's animations, or replacing them.
void add_animation_and_validate(const fs::path& input, bool replace) {
  const auto dir = temp_dir("gltf_validate_new_take");
  const io::LoadedClip character = io::load_character(input);
  core::Clip clip;
  clip.fps = 30.0;
  clip.frame_count = 25;
  clip.joint_count = character.skeleton.joint_count();
  std::vector<char> animated(clip.joint_count, 0);
  const auto* layout = static_cast<const io::gltf::TakeLayout*>(character.document.get());
  for (int f = 0; f < clip.frame_count; ++f)
    for (int j = 0; j < clip.joint_count; ++j) {
      core::Transform t = character.skeleton.rest[j];
      // Bones only: nodes with a matrix (CesiumMan's Z_UP and Armature) cannot be animated, and
      // the validator warns about animating a skinned mesh's node (SimpleSkin's node 0).
      const int node = layout->joint_nodes[j];
      if (!layout->document->nodes[node].has_matrix &&
          !layout->document->json["nodes"][node].contains("skin")) {
        t.rotation =
            t.rotation * core::axis_angle(core::Vec3(1, 0, 0), 0.3 * std::sin(0.2 * f + j));
        animated[j] = 1;
      }
      clip.locals.push_back(t);
    }
  const fs::path out = dir / ("new_take_" + input.filename().string());
  io::save_new_take(out, character, clip, animated, "Retargeted", replace);
  expect_valid(out, input);
  fs::remove_all(dir);
}

TEST(GltfValidator, NewAnimationOnSkeletonOnlyGlb) {
  IKFIX_REQUIRE_VALIDATOR();
  add_animation_and_validate(shared_data_dir() / "retarget" / "kenney_rest.glb", false);
  add_animation_and_validate(shared_data_dir() / "retarget" / "cesiumman_rest.glb", false);
}

TEST(GltfValidator, NewAnimationBesideOrInsteadOfTheFilesOwn) {
  IKFIX_REQUIRE_VALIDATOR();
  for (bool replace : {false, true}) {
    add_animation_and_validate(gltf_clip("CesiumMan.glb"), replace);
    add_animation_and_validate(gltf_clip("SimpleSkin.gltf"), replace);
  }
}

// A CMU walk retargeted onto glTF characters: a new animation in the character's file, which the
// validator accepts with no new warning (CesiumMan: skinned mesh; Kenney: skeleton-only GLB).
void retarget_and_validate(const fs::path& character) {
  const auto dir = temp_dir("gltf_validate_retarget_" + character.stem().string());
  const auto out = dir / ("walk_on_" + character.filename().string());
  const auto r =
      run_ikfix("retarget " + quoted(shared_data_dir() / "anim" / "bvh" / "cmu_02_01_walk.bvh") +
                " --to " + quoted(character) + " --terrain " +
                quoted(bundled("terrain/stairs.obj")) + " -o " + quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_valid(out, character);
  fs::remove_all(dir);
}

TEST(GltfValidator, RetargetOntoCesiumMan) {
  IKFIX_REQUIRE_VALIDATOR();
  retarget_and_validate(gltf_clip("CesiumMan.glb"));
}

TEST(GltfValidator, RetargetOntoSkeletonOnlyKenney) {
  IKFIX_REQUIRE_VALIDATOR();
  retarget_and_validate(shared_data_dir() / "retarget" / "kenney_rest.glb");
}

}  // namespace
}  // namespace ikfix::test
