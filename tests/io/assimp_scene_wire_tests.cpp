// The bytes between ikfix and its Assimp import child (io/assimp/scene_wire.hpp): a scene and a
// request come back equal, and no truncated, inflated or inconsistent answer is accepted.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "io/assimp/scene_wire.hpp"

namespace {

namespace as = ikfix::io::assimp;
namespace wire = ikfix::io::assimp::wire;

// Three nodes (root with two children, the second drawing a mesh), one mesh with normals, two
// triangles and a bone, one animation with a key of each kind.
as::Scene sample_scene() {
  as::Scene scene;
  scene.nodes.resize(3);
  scene.nodes[0].name = "root";
  scene.nodes[0].children = {1, 2};
  scene.nodes[1].name = "hip";
  for (int i = 0; i < 16; ++i) scene.nodes[1].matrix[i] = 0.25f * static_cast<float>(i) - 1.0f;
  scene.nodes[1].position = {1.5f, -2.0f, 3.25f};
  scene.nodes[1].rotation = {0.5f, 0.5f, -0.5f, 0.5f};
  scene.nodes[2].name = "ground";
  scene.nodes[2].meshes = {0};
  as::Mesh mesh;
  mesh.name = "tris";
  mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1e-30f, 3.4e38f, -0.0f}};
  mesh.normals = {{0, 1, 0}, {0, 1, 0}, {0, 1, 0}, {0, 1, 0}};
  mesh.triangles = {{0, 1, 2}, {1, 3, 2}};
  mesh.bones = {"hip"};
  scene.meshes.push_back(mesh);
  as::Animation anim;
  anim.name = "walk";
  anim.duration = 42.5;
  anim.ticks_per_second = 24;
  as::NodeChannel channel;
  channel.node = "hip";
  channel.positions = {{0.0, {1, 2, 3}}, {1.0 / 3.0, {4, 5, 6}}};
  channel.rotations = {{0.5, {0.7071f, 0.7071f, 0, 0}}};
  channel.scalings = {{2.0, {1, 1, 1}}};
  anim.channels.push_back(channel);
  scene.animations.push_back(anim);
  return scene;
}

std::string encode(wire::Status status, const std::string& message, const as::Scene& scene) {
  std::string bytes;
  wire::encode_result(status, message, scene, [&](std::string_view p) { bytes.append(p); });
  return bytes;
}

bool same_bits(const void* a, const void* b, std::size_t n) { return std::memcmp(a, b, n) == 0; }

TEST(AssimpSceneWire, SceneComesBackValueForValue) {
  const as::Scene in = sample_scene();
  as::Scene out;
  const wire::Result result = wire::decode_result(encode(wire::Status::imported, "", in), out);
  EXPECT_EQ(result.status, wire::Status::imported);
  ASSERT_EQ(out.nodes.size(), 3u);
  EXPECT_EQ(out.nodes[1].name, "hip");
  EXPECT_TRUE(same_bits(out.nodes[1].matrix.data(), in.nodes[1].matrix.data(), 64));
  EXPECT_TRUE(same_bits(&out.nodes[1].rotation, &in.nodes[1].rotation, sizeof(as::QuatR)));
  EXPECT_EQ(out.nodes[0].children, in.nodes[0].children);
  EXPECT_EQ(out.nodes[2].meshes, in.nodes[2].meshes);
  ASSERT_EQ(out.meshes.size(), 1u);
  EXPECT_TRUE(same_bits(out.meshes[0].vertices.data(), in.meshes[0].vertices.data(), 4 * 12));
  EXPECT_EQ(out.meshes[0].triangles, in.meshes[0].triangles);
  EXPECT_EQ(out.meshes[0].bones, in.meshes[0].bones);
  ASSERT_EQ(out.animations.size(), 1u);
  const as::NodeChannel& ch = out.animations[0].channels.at(0);
  EXPECT_EQ(out.animations[0].duration, 42.5);
  EXPECT_EQ(ch.positions.at(1).time, 1.0 / 3.0);
  EXPECT_EQ(ch.positions.at(1).value.z, 6.0f);
  EXPECT_EQ(ch.rotations.at(0).value.x, 0.7071f);
  EXPECT_EQ(ch.scalings.at(0).time, 2.0);
}

TEST(AssimpSceneWire, FailureCarriesTheMessage) {
  as::Scene out = sample_scene();
  const wire::Result result =
      wire::decode_result(encode(wire::Status::assimp_failed, "line 1\nline 2", {}), out);
  EXPECT_EQ(result.status, wire::Status::assimp_failed);
  EXPECT_EQ(result.message, "line 1\nline 2");
  EXPECT_TRUE(out.nodes.empty());
}

TEST(AssimpSceneWire, EveryTruncationAndAnyTrailingByteIsRefused) {
  const std::string bytes = encode(wire::Status::imported, "", sample_scene());
  as::Scene out;
  for (std::size_t n = 0; n < bytes.size(); ++n)
    EXPECT_THROW(wire::decode_result(std::string_view(bytes).substr(0, n), out), wire::WireError)
        << "accepted the first " << n << " of " << bytes.size() << " bytes";
  EXPECT_THROW(wire::decode_result(bytes + '\0', out), wire::WireError);
}

// A count that the bytes left cannot hold is refused before anything of that size is allocated.
TEST(AssimpSceneWire, HugeCountIsRefusedBeforeAllocating) {
  std::string bytes = encode(wire::Status::imported, "", as::Scene{});
  const std::uint64_t lie = std::uint64_t{1} << 60;
  std::memcpy(&bytes[9], &lie, sizeof lie);  // the node count, after magic, version and status
  as::Scene out;
  try {
    wire::decode_result(bytes, out);
    FAIL() << "a count of 2^60 nodes was accepted";
  } catch (const wire::WireError& e) {
    EXPECT_NE(std::string(e.what()).find("1152921504606846976 nodes"), std::string::npos)
        << e.what();
  }
}

TEST(AssimpSceneWire, IndicesMustFormATreeAndStayInRange) {
  const auto refused = [](as::Scene scene) {
    as::Scene out;
    EXPECT_THROW(wire::decode_result(encode(wire::Status::imported, "", scene), out),
                 wire::WireError);
  };
  as::Scene cycle = sample_scene();
  cycle.nodes[2].children = {0};
  refused(cycle);
  as::Scene twice = sample_scene();
  twice.nodes[1].children = {2};  // node 2 is also the root's child
  refused(twice);
  as::Scene orphan = sample_scene();
  orphan.nodes[0].children = {1};
  refused(orphan);
  as::Scene bad_mesh = sample_scene();
  bad_mesh.nodes[2].meshes = {1};
  refused(bad_mesh);
  as::Scene bad_corner = sample_scene();
  bad_corner.meshes[0].triangles[1][2] = 4;
  refused(bad_corner);
  as::Scene bad_normals = sample_scene();
  bad_normals.meshes[0].normals.pop_back();
  refused(bad_normals);
}

TEST(AssimpSceneWire, RequestComesBackWithItsBytes) {
  const std::string fbx = std::string("Kaydara\0binary", 14);
  as::ImportRequest request;
  request.file = "out/walk.fbx";
  request.bytes = &fbx;
  request.format_hint = "fbx";
  request.triangulate = true;
  wire::ChildRequest got;
  wire::decode_request(wire::encode_request(request, 123456789), got);
  EXPECT_EQ(got.memory_limit_bytes, 123456789u);
  EXPECT_EQ(got.request.file, "out/walk.fbx");
  EXPECT_EQ(got.request.format_hint, "fbx");
  EXPECT_TRUE(got.request.triangulate);
  EXPECT_FALSE(got.request.no_skeleton_meshes);
  ASSERT_EQ(got.request.bytes, &got.bytes);
  EXPECT_EQ(got.bytes, fbx);

  request.bytes = nullptr;
  wire::decode_request(wire::encode_request(request, 0), got);
  EXPECT_EQ(got.request.bytes, nullptr);
  const std::string bytes = wire::encode_request(request, 0);
  EXPECT_THROW(wire::decode_request(bytes.substr(0, bytes.size() - 1), got), wire::WireError);
}

}  // namespace
