// glTF reader on the real files in ../shared/data/anim/gltf and on hand-made bad inputs, and a
// cross-check of world joint positions against Assimp's import of the same files.
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <assimp/Importer.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <glm/gtc/matrix_transform.hpp>
#include <map>
#include <memory>
#include <string>

#include "core/fk.hpp"
#include "gltf_test_support.hpp"
#include "io/clip_io.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/gltf/gltf.hpp"
#include "test_data.hpp"
#include "test_scratch.hpp"

namespace {

namespace fs = std::filesystem;
namespace gltf = ikfix::io::gltf;
using ikfix::core::Vec3;
using ikfix::io::InputError;

fs::path gltf_dir() { return ikfix::test::shared_data_dir() / "anim" / "gltf"; }

std::shared_ptr<const gltf::Document> read(const std::string& name) {
  return std::make_shared<const gltf::Document>(gltf::read_file(gltf_dir() / name));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

fs::path temp_dir(const std::string& name) { return ikfix::test::scratch_dir("gltf_" + name); }

TEST(GltfReader, CesiumManSkeletonIncludesTheAncestorsOfItsRootJoint) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto doc = read("CesiumMan.glb");
  EXPECT_EQ(doc->container, gltf::Container::glb);
  ASSERT_EQ(doc->animations.size(), 1u);
  const gltf::Take take = gltf::extract_take(doc, 0);
  // 19 skin joints plus Z_UP and Armature above them; the mesh node is not a joint.
  ASSERT_EQ(take.skeleton.joint_count(), 21);
  EXPECT_EQ(take.skeleton.names[0], "Z_UP");
  EXPECT_EQ(take.skeleton.names[1], "Armature");
  EXPECT_EQ(take.skeleton.names[2], "Skeleton_torso_joint_1");
  EXPECT_EQ(take.skeleton.find("Cesium_Man"), -1);
  EXPECT_EQ(take.skeleton.validate(), "");
  EXPECT_EQ(take.layout.joint_nodes[0], 0);
  // 48 keys every 1/24 s from 1/24 s: the frames are exactly the key times.
  EXPECT_TRUE(take.uniform_grid);
  EXPECT_EQ(take.clip.fps, 24.0);
  ASSERT_EQ(take.clip.frame_count, 48);
  EXPECT_EQ(take.layout.frame_times.front(), static_cast<double>(0.04166661947965622f));
  EXPECT_EQ(take.layout.frame_times.back(), 2.0);
  // Z_UP turns the Z-up armature upright: the character stands ~1.5 m tall along +Y.
  std::vector<ikfix::core::Transform> world(21);
  ikfix::core::forward_kinematics(take.skeleton, take.clip.frame(0), {}, world);
  double lo = 1e9, hi = -1e9;
  for (const auto& w : world) {
    lo = std::min(lo, w.translation.y);
    hi = std::max(hi, w.translation.y);
  }
  EXPECT_GT(hi - lo, 1.0);
  EXPECT_LT(hi - lo, 2.0);
  EXPECT_TRUE(take.unit_note.empty()) << take.unit_note;
}

TEST(GltfReader, FoxHasThreeTakesByNameOrIndexAndACentimetreSizedRig) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto doc = read("Fox.glb");
  ASSERT_EQ(doc->animations.size(), 3u);
  EXPECT_EQ(gltf::find_animation(*doc, "Survey"), 0);
  EXPECT_EQ(gltf::find_animation(*doc, "Walk"), 1);
  EXPECT_EQ(gltf::find_animation(*doc, "2"), 2);
  const std::string error = error_of([&] { gltf::find_animation(*doc, "Trot"); });
  EXPECT_NE(error.find("no animation 'Trot'"), std::string::npos) << error;
  EXPECT_NE(error.find("1 'Walk'"), std::string::npos) << error;
  // Survey and Walk are keyed every 1/24 s; Run has a 4.8-frame gap between two keys, so it is
  // not one grid and is sampled at 30 fps (0 .. 1.1583 s: 35 frames plus one on the last key).
  const int frames[3] = {83, 18, 36};
  const double fps[3] = {24, 24, 30};
  for (int a = 0; a < 3; ++a) {
    const gltf::Take take = gltf::extract_take(doc, a);
    EXPECT_EQ(take.clip.frame_count, frames[a]) << take.name;
    EXPECT_EQ(take.clip.fps, fps[a]) << take.name;
    EXPECT_EQ(take.uniform_grid, a != 2) << take.name;
    // 24 skin joints + the scene root above _rootJoint.
    EXPECT_EQ(take.skeleton.joint_count(), 25);
    EXPECT_NE(take.unit_note.find("stays metres"), std::string::npos) << take.unit_note;
  }
}

TEST(GltfReader, ClipIoReportsTakesUnitsAndFormat) {
  IKFIX_REQUIRE_SHARED_DATA();
  ikfix::io::ClipLoadOptions options;
  options.take = "Run";
  const auto fox = ikfix::io::load_clip(gltf_dir() / "Fox.glb", options);
  EXPECT_EQ(fox.format, "glb");
  EXPECT_EQ(fox.take_name, "Run");
  EXPECT_EQ(fox.take_index, 2);
  EXPECT_EQ(fox.take_count, 3);
  EXPECT_EQ(fox.unit_name, "m");
  EXPECT_EQ(fox.unit_source, "file");
  EXPECT_EQ(fox.space.metres_per_unit, 1.0);
  EXPECT_FALSE(fox.unit_reason.empty());
  options.take = "7";
  EXPECT_THROW(ikfix::io::load_clip(gltf_dir() / "Fox.glb", options), InputError);
  options = {};
  options.metres_per_unit = 0.01;
  const auto fox_cm = ikfix::io::load_clip(gltf_dir() / "Fox.glb", options);
  EXPECT_EQ(fox_cm.unit_source, "user");
  EXPECT_EQ(fox_cm.space.metres_per_unit, 0.01);
  const auto skin = ikfix::io::load_clip(gltf_dir() / "SimpleSkin.gltf");
  EXPECT_EQ(skin.format, "gltf");
  EXPECT_TRUE(ikfix::io::is_supported_clip("a/b.GLB"));
  EXPECT_TRUE(ikfix::io::is_supported_clip("b.gltf"));
}

TEST(GltfReader, RiggedSimpleMixesStepAndLinearOnOneGrid) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto doc = read("RiggedSimple_blender.glb");
  const gltf::Take take = gltf::extract_take(doc, 0);
  EXPECT_TRUE(take.uniform_grid);
  EXPECT_EQ(take.clip.frame_count, 161);
  EXPECT_EQ(take.clip.fps, 24.0);
  EXPECT_EQ(take.skeleton.names[0], "Armature");
  EXPECT_EQ(take.skeleton.joint_count(), 5);
}

TEST(GltfReader, SimpleSkinEmbeddedBuffersAndUnnamedNodes) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto doc = read("SimpleSkin.gltf");
  EXPECT_EQ(doc->container, gltf::Container::gltf);
  ASSERT_EQ(doc->buffers.size(), 4u);
  EXPECT_EQ(doc->buffers[0].source, gltf::BufferSource::data_uri);
  const gltf::Take take = gltf::extract_take(doc, 0);
  EXPECT_EQ(take.skeleton.names, (std::vector<std::string>{"node_0", "node_1", "node_2"}));
  EXPECT_EQ(take.clip.frame_count, 12);
  EXPECT_EQ(take.clip.fps, 2.0);
  // Key 2 (1.0 s) of node 2 is (0, 0, 0.707, 0.707) as stored in the file.
  const auto q = take.clip.at(2, 2).rotation;
  EXPECT_NEAR(q.z, 0.707, 1e-3);
  EXPECT_NEAR(q.w, 0.707, 1e-3);
}

TEST(GltfReader, ExternalBuffersAreReadRelativeToTheFile) {
  IKFIX_REQUIRE_SHARED_DATA();
  // SimpleSkin with its data URIs moved to files, one name with a space (percent-encoded uri).
  const auto dir = temp_dir("external");
  auto json = nlohmann::ordered_json::parse(ikfix::io::read_file(gltf_dir() / "SimpleSkin.gltf"));
  for (std::size_t i = 0; i < json["buffers"].size(); ++i) {
    const std::string uri = json["buffers"][i]["uri"];
    const auto bytes = gltf::base64_decode(uri.substr(uri.find(',') + 1));
    ASSERT_TRUE(bytes);
    ikfix::io::write_file_atomic(dir / ("part " + std::to_string(i) + ".bin"), *bytes);
    json["buffers"][i]["uri"] = "part%20" + std::to_string(i) + ".bin";
  }
  ikfix::io::write_file_atomic(dir / "skin.gltf", json.dump(2));
  const auto ext = std::make_shared<const gltf::Document>(gltf::read_file(dir / "skin.gltf"));
  EXPECT_EQ(ext->buffers[3].source, gltf::BufferSource::external);
  const auto embedded = read("SimpleSkin.gltf");
  const gltf::Take a = gltf::extract_take(ext, 0);
  const gltf::Take b = gltf::extract_take(embedded, 0);
  EXPECT_EQ(a.clip.locals.size(), b.clip.locals.size());
  for (std::size_t i = 0; i < a.clip.locals.size(); ++i)
    EXPECT_EQ(a.clip.locals[i].rotation, b.clip.locals[i].rotation);
  fs::remove(dir / "part 3.bin");
  const std::string error = error_of([&] { gltf::read_file(dir / "skin.gltf"); });
  EXPECT_NE(error.find("buffer 3"), std::string::npos) << error;
  EXPECT_NE(error.find("part%203.bin"), std::string::npos) << error;
  fs::remove_all(dir);
}

TEST(GltfReader, BadInputsGiveOneLineNamingTheFile) {
  using ikfix::test::MiniGltf;
  const std::string bad_json =
      error_of([] { gltf::parse("{\"asset\": {\"version\": \"2.0\"", "x.gltf"); });
  EXPECT_NE(bad_json.find("x.gltf: invalid glTF JSON"), std::string::npos) << bad_json;
  const std::string v1 =
      error_of([] { gltf::parse("{\"asset\": {\"version\": \"1.0\"}}", "old.gltf"); });
  EXPECT_NE(v1.find("glTF version 1.0 is not supported"), std::string::npos) << v1;
  const std::string glb =
      error_of([] { gltf::parse(std::string("glTF\x02\0\0\0\x40\0\0\0", 12), "t.glb"); });
  EXPECT_NE(glb.find("t.glb: GLB too short"), std::string::npos) << glb;
  // A node that is its own grandchild.
  MiniGltf m;
  m.add_node("a", -1);
  m.add_node("b", 0);
  m.json["nodes"][1]["children"] = {0};
  const std::string cycle = error_of([&] { m.parse("cycle.gltf"); });
  EXPECT_NE(cycle.find("cycle.gltf: node 0 is part of a cycle"), std::string::npos) << cycle;
}

TEST(GltfReader, TruncatedGlbIsRefused) {
  IKFIX_REQUIRE_SHARED_DATA();
  std::string bytes = ikfix::io::read_file(gltf_dir() / "CesiumMan.glb");
  bytes.resize(bytes.size() / 2);
  const std::string error = error_of([&] { gltf::parse(bytes, "half.glb"); });
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
}

// ---- Assimp cross-check ----

glm::dmat4 trs(const Vec3& t, const ikfix::core::Quat& r, const Vec3& s) {
  return glm::translate(glm::dmat4(1.0), t) * glm::mat4_cast(r) * glm::scale(glm::dmat4(1.0), s);
}

// Assimp's channel value at `ticks`: the key at that time, else linear/slerp between its keys.
template <typename Key, typename Get, typename Mix>
auto channel_value(const Key* keys, unsigned count, double ticks, Get get, Mix mix) {
  if (count == 1 || ticks <= keys[0].mTime) return get(keys[0]);
  for (unsigned k = 0; k + 1 < count; ++k) {
    if (std::abs(keys[k].mTime - ticks) < 1e-6) return get(keys[k]);
    if (ticks < keys[k + 1].mTime)
      return mix(get(keys[k]), get(keys[k + 1]),
                 (ticks - keys[k].mTime) / (keys[k + 1].mTime - keys[k].mTime));
  }
  return get(keys[count - 1]);
}

// Max distance between our world joint positions and Assimp's, over every joint and frame of
// every animation of `file`.
double assimp_world_error(const std::string& file, double* scale_out = nullptr) {
  Assimp::Importer importer;
  const aiScene* scene =
      importer.ReadFile((gltf_dir() / file).string(), aiProcess_ValidateDataStructure);
  EXPECT_NE(scene, nullptr) << importer.GetErrorString();
  if (!scene) return 1e9;
  const auto doc = read(file);
  EXPECT_EQ(scene->mNumAnimations, doc->animations.size());
  double worst = 0, size = 0;
  for (unsigned a = 0; a < scene->mNumAnimations; ++a) {
    const aiAnimation* anim = scene->mAnimations[a];
    const gltf::Take take = gltf::extract_take(doc, static_cast<int>(a));
    std::map<std::string, const aiNodeAnim*> channels;
    for (unsigned c = 0; c < anim->mNumChannels; ++c)
      channels[anim->mChannels[c]->mNodeName.C_Str()] = anim->mChannels[c];
    const int joints = take.skeleton.joint_count();
    std::vector<ikfix::core::Transform> world(joints);
    for (int f = 0; f < take.clip.frame_count; ++f) {
      const double ticks = take.layout.frame_times[f] * anim->mTicksPerSecond;
      ikfix::core::forward_kinematics(take.skeleton, take.clip.frame(f), {}, world);
      for (int j = 0; j < joints; ++j) {
        const int node = take.layout.joint_nodes[j];
        const auto& jn = doc->json["nodes"][node];
        const std::string name = jn.contains("name") ? jn["name"].get<std::string>()
                                                     : "nodes[" + std::to_string(node) + "]";
        const aiNode* n = scene->mRootNode->FindNode(name.c_str());
        EXPECT_NE(n, nullptr) << name;
        if (!n) continue;
        glm::dmat4 m(1.0);
        for (const aiNode* p = n; p; p = p->mParent) {
          glm::dmat4 local;
          const auto it = channels.find(p->mName.C_Str());
          if (it != channels.end()) {
            const aiNodeAnim* ch = it->second;
            auto vec = [](const aiVectorKey& k) {
              return Vec3(k.mValue.x, k.mValue.y, k.mValue.z);
            };
            auto lerp = [](const Vec3& x, const Vec3& y, double u) { return x + (y - x) * u; };
            auto quat = [](const aiQuatKey& k) {
              return ikfix::core::Quat(k.mValue.w, k.mValue.x, k.mValue.y, k.mValue.z);
            };
            auto slerp = [](const ikfix::core::Quat& x, const ikfix::core::Quat& y, double u) {
              return glm::slerp(x, y, u);
            };
            local = trs(channel_value(ch->mPositionKeys, ch->mNumPositionKeys, ticks, vec, lerp),
                        glm::normalize(channel_value(ch->mRotationKeys, ch->mNumRotationKeys, ticks,
                                                     quat, slerp)),
                        channel_value(ch->mScalingKeys, ch->mNumScalingKeys, ticks, vec, lerp));
          } else {
            const aiMatrix4x4& t = p->mTransformation;  // row-major
            for (int r = 0; r < 4; ++r)
              for (int c = 0; c < 4; ++c) local[c][r] = t[r][c];
          }
          m = local * m;
        }
        const Vec3 theirs(m[3][0], m[3][1], m[3][2]);
        worst = std::max(worst, glm::length(theirs - world[j].translation));
        size = std::max(size, glm::length(world[j].translation));
      }
    }
  }
  if (scale_out) *scale_out = size;
  return worst;
}

// Within 1e-5 m; Fox is built ~100 units across in "metres", where Assimp's single-precision
// matrices alone differ by ~1e-7 of the size, so its bound is 2e-7 of the rig's extent.
TEST(GltfReader, WorldJointPositionsMatchAssimpPerKey) {
  IKFIX_REQUIRE_SHARED_DATA();
  for (const char* file :
       {"CesiumMan.glb", "Fox.glb", "RiggedSimple_blender.glb", "SimpleSkin.gltf"}) {
    double size = 0;
    const double error = assimp_world_error(file, &size);
    std::printf(
        "[ cross-check ] %-26s max world position difference vs Assimp: %.3g m (rig extent %.3g "
        "m)\n",
        file, error, size);
    EXPECT_LE(error, std::max(1e-5, 2e-7 * size)) << file;
  }
}

}  // namespace
