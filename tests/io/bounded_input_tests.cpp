// Declared counts are checked against the bytes present before anything is allocated (issue 19
// row 5): FBX frames come from a take's keys, not from a LocalStop that lies; a glTF accessor's
// elements must lie in its bufferView; glTF key times are floats. And --max-joints (row 6).
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <sstream>

#include "gltf_test_support.hpp"
#include "io/clip_facts.hpp"
#include "io/clip_io.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/gltf/gltf.hpp"
#include "io/synthetic_fbx.hpp"
#include "test_scratch.hpp"

namespace {

namespace gltf = ikfix::io::gltf;
using ikfix::io::InputError;
using ikfix::test::MiniGltf;
using ikfix::test::scratch_path;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(BoundedFbx, FramesComeFromTheKeysNotFromALyingLocalStop) {
  // Three keys at 30 fps; the stack declares 100 s, then 2^62 ticks (about 3,000 years).
  for (const std::int64_t stop :
       {std::int64_t{100} * ikfix::test::kFbxTicksPerSecond, std::int64_t{1} << 62}) {
    ikfix::test::SyntheticFbxOptions options;
    options.frames = 3;
    options.local_stop = stop;
    const auto path = scratch_path("lying_stop.fbx");
    ikfix::io::write_file_atomic(path, ikfix::test::synthetic_skeleton_fbx(options));
    const ikfix::io::LoadedClip lc = ikfix::io::load_clip(path);
    EXPECT_EQ(lc.clip.frame_count, 3) << stop;
    ASSERT_FALSE(lc.warnings.empty());
    EXPECT_NE(lc.warnings[0].find("keys end at 0.0666667 s"), std::string::npos) << lc.warnings[0];
  }
  // A true stop is kept: no warning, the same frames.
  ikfix::test::SyntheticFbxOptions honest;
  honest.frames = 5;
  const auto path = scratch_path("honest_stop.fbx");
  ikfix::io::write_file_atomic(path, ikfix::test::synthetic_skeleton_fbx(honest));
  const ikfix::io::LoadedClip lc = ikfix::io::load_clip(path);
  EXPECT_EQ(lc.clip.frame_count, 5);
  EXPECT_TRUE(lc.warnings.empty()) << lc.warnings[0];
}

// A root node animated by one translation sampler: `times` and three values per key.
MiniGltf translated_root(const std::vector<float>& times) {
  MiniGltf m;
  m.add_node("root", -1);
  const int input = m.add_floats(times, "SCALAR", 1);
  const int output = m.add_floats(std::vector<float>(times.size() * 3, 0.5f), "VEC3", 3);
  m.add_animation("walk", {{0, "translation", input, output, "LINEAR"}});
  return m;
}

TEST(BoundedGltf, IntegerKeyTimesAreRefused) {
  // componentType FLOAT -> UNSIGNED_INT on the key times (the same bytes read as integers):
  // 0, 0.3 and 1 s became 0, 1050253722 and 1065353216 "seconds", sampled at 30 fps.
  MiniGltf m = translated_root({0.0f, 0.3f, 1.0f});
  m.json["accessors"][0]["componentType"] = 5125;
  const auto doc = std::make_shared<const gltf::Document>(m.parse("times.gltf"));
  const std::string what = error_of([&] { gltf::extract_take(doc, 0); });
  EXPECT_NE(what.find("times.gltf"), std::string::npos) << what;
  EXPECT_NE(what.find("key times must be FLOAT"), std::string::npos) << what;
}

TEST(BoundedGltf, KeysSpanningCenturiesAreRefusedBeforeSampling) {
  MiniGltf m = translated_root({0.0f, 0.3f, 3.0e9f});
  const auto doc = std::make_shared<const gltf::Document>(m.parse("long.gltf"));
  const std::string what = error_of([&] { gltf::extract_take(doc, 0); });
  EXPECT_NE(what.find("long.gltf: animation 'walk': its keys span"), std::string::npos) << what;
}

TEST(BoundedGltf, AccessorCountBeyondItsBufferViewIsRefusedBeforeAllocating) {
  // 2^28 - 1 VEC4 elements (8 GiB once decoded) declared on a 64-byte view.
  MiniGltf m = translated_root({0.0f, 1.0f});
  const int view = m.add_view(std::string(64, '\0').data(), 64);
  const int big = m.add_accessor(view, 5126, (1 << 28) - 1, "VEC4");
  const gltf::Document doc = m.parse("count.gltf");
  const std::string what = error_of([&] { gltf::read_accessor(doc, big); });
  EXPECT_NE(what.find("count.gltf: accessor " + std::to_string(big) + ": 268435455 elements"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("do not fit in its bufferView (64 bytes)"), std::string::npos) << what;
  // Without a bufferView (zeros, then sparse values) the elements must fit in the file's buffers.
  m.json["accessors"].push_back(
      {{"componentType", 5126}, {"count", (1 << 28) - 1}, {"type", "VEC4"}});
  const gltf::Document zeros = m.parse("zeros.gltf");
  const std::string what2 = error_of([&] { gltf::read_accessor(zeros, big + 1); });
  EXPECT_NE(what2.find("no bufferView: more than the"), std::string::npos) << what2;
}

TEST(MaxJoints, AClipWithMoreJointsIsRefusedNamingTheFileAndBothNumbers) {
  std::ostringstream bvh;
  bvh << "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Xposition Yposition Zposition\n";
  for (int i = 0; i < 20; ++i)
    bvh << "  JOINT j" << i << "\n  {\n    OFFSET 0 1 0\n    CHANNELS 1 Zrotation\n"
        << "    End Site\n    {\n      OFFSET 0 1 0\n    }\n  }\n";
  bvh << "}\nMOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0";
  for (int i = 0; i < 20; ++i) bvh << " 0";
  bvh << "\n";
  const auto path = scratch_path("many_joints.bvh");
  ikfix::io::write_file_atomic(path, bvh.str());
  struct Restore {
    ~Restore() { ikfix::io::set_max_joints(0); }
  } restore;
  ikfix::io::set_max_joints(20);
  const std::string what = error_of([&] { ikfix::io::load_clip(path); });
  EXPECT_EQ(what, path.string() + ": 21 joints, more than the limit of 20 (--max-joints)");
  ikfix::io::set_max_joints(21);
  EXPECT_EQ(ikfix::io::load_clip(path).skeleton.joint_count(), 21);
  // Every format: the FBX skeleton (group node and 11 bones) under a limit of 11.
  const auto fbx = scratch_path("twelve_joints.fbx");
  ikfix::io::write_file_atomic(fbx, ikfix::test::synthetic_skeleton_fbx({}));
  ikfix::io::set_max_joints(11);
  EXPECT_EQ(error_of([&] { ikfix::io::load_clip(fbx); }),
            fbx.string() + ": 12 joints, more than the limit of 11 (--max-joints)");
}

}  // namespace
