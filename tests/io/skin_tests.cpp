// Skinned meshes read into core::Skin (io/skin_builder, io/fbx/skin, io/gltf/skin): the builder's
// rules on small hand-made cases, the readers' edge cases on small synthetic files, and the
// shared characters posed by linear blend skinning against Assimp's own reading of the same
// files (its vertices, bone offset matrices, weights and animation; no ikfix code on that side).
#include <assimp/scene.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <glm/gtc/matrix_transform.hpp>
#include <map>
#include <string>
#include <vector>

#include "core/fk.hpp"
#include "io/clip_io.hpp"
#include "io/fbx_test_support.hpp"
#include "io/gltf/base64.hpp"
#include "io/gltf/reader.hpp"
#include "io/matrix_trs.hpp"
#include "io/skin_builder.hpp"
#include "test_data.hpp"
#include "test_scratch.hpp"

namespace {

using ikfix::core::Skin;
using ikfix::core::Transform;
using ikfix::core::Vec3;
namespace io = ikfix::io;

// ---- SkinBuilder and bind_nodes ---------------------------------------------------------------

TEST(SkinBuilder, MergesInfluencesOnOneJointKeepsHeaviestFourAndRenormalises) {
  io::SkinBuilder b;
  io::NodeBinding j[6];
  for (int k = 0; k < 6; ++k) j[k].joint = k;
  // Six influences, two of them on joint 0 (merged: weight 0.3, point averaged by weight).
  b.add(j[0], 0.1, {1, 0, 0});
  b.add(j[0], 0.2, {4, 0, 0});
  b.add(j[1], 0.25, {0, 1, 0});
  b.add(j[2], 0.05, {0, 0, 1});
  b.add(j[3], 0.2, {0, 2, 0});
  b.add(j[4], 0.15, {0, 0, 2});
  b.add(j[5], 0.0, {9, 9, 9});  // weight 0: left out
  ASSERT_TRUE(b.end_vertex());
  const auto skin = b.finish();
  ASSERT_TRUE(skin);
  ASSERT_EQ(skin->vertices.size(), 1u);
  const auto& v = skin->vertices[0];
  // Kept: joint 0 (0.3), 1 (0.25), 3 (0.2), 4 (0.15); joint 2 (0.05) dropped; sum 0.9.
  EXPECT_EQ(v.joint, (std::array<int, 4>{0, 1, 3, 4}));
  EXPECT_NEAR(v.weight[0], 0.3 / 0.9, 1e-15);
  EXPECT_NEAR(v.weight[3], 0.15 / 0.9, 1e-15);
  EXPECT_NEAR(v.weight[0] + v.weight[1] + v.weight[2] + v.weight[3], 1.0, 1e-15);
  EXPECT_NEAR(v.local[0].x, (0.1 * 1 + 0.2 * 4) / 0.3, 1e-12);
}

TEST(SkinBuilder, VertexWithoutWeightIsDroppedAndEmptySkinIsNull) {
  io::SkinBuilder b;
  io::NodeBinding unbound;  // joint -1
  b.add(unbound, 1.0, {1, 2, 3});
  EXPECT_FALSE(b.end_vertex());
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.finish(), nullptr);
}

TEST(SkinBuilder, MergedJointPosesAsTheSeparateInfluencesWould) {
  // Two influences on joint 0 merged: the posed point equals the sum of the two posed points.
  io::SkinBuilder b;
  io::NodeBinding j0;
  j0.joint = 0;
  b.add(j0, 0.25, {1, 2, 3});
  b.add(j0, 0.75, {-2, 0.5, 4});
  b.end_vertex();
  const auto skin = b.finish();
  Transform t;
  t.translation = {0.3, -1, 2};
  t.rotation = glm::normalize(ikfix::core::Quat(0.9, 0.1, -0.3, 0.2));
  t.scale = Vec3(1.7);
  const std::vector<Transform> world{t};
  const Vec3 expected = 0.25 * ikfix::core::transform_point(t, {1, 2, 3}) +
                        0.75 * ikfix::core::transform_point(t, {-2, 0.5, 4});
  const Vec3 got = ikfix::core::skinned_position(skin->vertices[0], world);
  EXPECT_LT(glm::length(got - expected), 1e-12);
}

TEST(BindNodes, NodeWithoutJointUsesNearestAncestorThroughStaticTransforms) {
  // Nodes: 0 root joint, 1 child not a joint, 2 grandchild not a joint, 3 separate root (none).
  const std::vector<int> parents{-1, 0, 1, -1};
  std::vector<glm::dmat4> locals(4, glm::dmat4(1.0));
  locals[1] = glm::translate(glm::dmat4(1.0), glm::dvec3(0, 1, 0));
  locals[2] = glm::translate(glm::dmat4(1.0), glm::dvec3(0, 0, 2));
  const std::vector<int> node_joint{0, -1, -1, -1};
  const auto b = io::bind_nodes(parents, locals, node_joint);
  EXPECT_EQ(b[0].joint, 0);
  EXPECT_EQ(b[1].joint, 0);
  EXPECT_EQ(b[2].joint, 0);
  EXPECT_EQ(b[3].joint, -1);
  const glm::dvec4 p = b[2].node_to_joint * glm::dvec4(1, 0, 0, 1);
  EXPECT_EQ(glm::dvec3(p), glm::dvec3(1, 1, 2));
}

// ---- synthetic glTF ---------------------------------------------------------------------------

// A glTF with two joints (root at the origin, child 1 m up), a three-vertex skinned mesh and
// one animation; `joints`, `weights` (4 per vertex) and the buffer are what the tests vary.
struct TinyGltf {
  std::vector<float> positions{0, 0, 0, 0, 1, 0, 0, 2, 0};
  std::vector<std::uint8_t> joints{0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0};
  std::vector<float> weights{1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0};
  int position_count = 3;
  bool with_skin = true;

  std::string text() const {
    // Inverse bind matrices: joint 0 at the origin, joint 1 at y = 1.
    std::vector<float> ibm(32, 0.0f);
    for (int k = 0; k < 2; ++k)
      for (int d = 0; d < 4; ++d) ibm[16 * k + 5 * d] = 1.0f;
    ibm[16 + 13] = -1.0f;
    const std::vector<float> times{0.0f, 1.0f};
    const std::vector<float> rotations{0, 0, 0, 1, 0, 0, 0.70710677f, 0.70710677f};
    std::string bin;
    auto put = [&bin](const void* p, std::size_t n) { bin.append(static_cast<const char*>(p), n); };
    put(positions.data(), positions.size() * 4);  // 0: 36 bytes
    put(joints.data(), joints.size());            // 36: 12 bytes
    put(weights.data(), weights.size() * 4);      // 48: 48 bytes
    put(ibm.data(), ibm.size() * 4);              // 96: 128 bytes
    put(times.data(), times.size() * 4);          // 224: 8 bytes
    put(rotations.data(), rotations.size() * 4);  // 232: 32 bytes
    const std::string uri = "data:application/octet-stream;base64," + io::gltf::base64_encode(bin);
    std::string skin_part = with_skin ? R"(, "skin": 0)" : "";
    return R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 2]}],
  "nodes": [{"name": "root", "children": [1]}, {"name": "tip", "translation": [0, 1, 0]},
            {"name": "body", "mesh": 0)" +
           skin_part + R"(}],
  "skins": [{"joints": [0, 1], "inverseBindMatrices": 3}],
  "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}}]}],
  "animations": [{"samplers": [{"input": 4, "output": 5}],
                  "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]}],
  "buffers": [{"byteLength": )" +
           std::to_string(bin.size()) + R"(, "uri": ")" + uri + R"("}],
  "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": )" +
           std::to_string(bin.size()) + R"(}],
  "accessors": [
    {"bufferView": 0, "byteOffset": 0, "componentType": 5126, "count": )" +
           std::to_string(position_count) + R"(, "type": "VEC3"},
    {"bufferView": 0, "byteOffset": 36, "componentType": 5121, "count": 3, "type": "VEC4"},
    {"bufferView": 0, "byteOffset": 48, "componentType": 5126, "count": 3, "type": "VEC4"},
    {"bufferView": 0, "byteOffset": 96, "componentType": 5126, "count": 2, "type": "MAT4"},
    {"bufferView": 0, "byteOffset": 224, "componentType": 5126, "count": 2, "type": "SCALAR",
     "min": [0], "max": [1]},
    {"bufferView": 0, "byteOffset": 232, "componentType": 5126, "count": 2, "type": "VEC4"}]})";
  }

  io::LoadedClip load(const std::string& name) const {
    const auto path = ikfix::test::scratch_dir("skin_gltf") / (name + ".gltf");
    std::ofstream(path) << text();
    return io::load_clip(path);
  }
};

std::vector<Transform> world_of(const io::LoadedClip& lc, int frame) {
  std::vector<Transform> world(lc.skeleton.joint_count());
  ikfix::core::forward_kinematics(lc.skeleton, lc.clip.frame(frame), lc.space.to_world(), world);
  return world;
}

bool has_warning(const io::LoadedClip& lc, const std::string& text) {
  for (const auto& w : lc.warnings)
    if (w.find(text) != std::string::npos) return true;
  return false;
}

TEST(GltfSkin, TinySkinPosesByItsInverseBindMatrices) {
  const io::LoadedClip lc = TinyGltf{}.load("tiny");
  ASSERT_TRUE(lc.skin);
  ASSERT_EQ(lc.skin->vertices.size(), 3u);
  // Frame 0: the bind pose; the mesh is where the file put it.
  const auto rest = world_of(lc, 0);
  for (int v = 0; v < 3; ++v)
    EXPECT_LT(
        glm::length(ikfix::core::skinned_position(lc.skin->vertices[v], rest) - Vec3(0, v, 0)),
        1e-7);
  // Last frame: the tip joint turned 90 degrees about Z; vertex 2 (all on the tip, 1 m above
  // it) swings to x = -1, vertex 1 (half on each, at the tip) stays.
  const auto bent = world_of(lc, lc.clip.frame_count - 1);
  EXPECT_LT(glm::length(ikfix::core::skinned_position(lc.skin->vertices[2], bent) - Vec3(-1, 1, 0)),
            1e-6);
  EXPECT_LT(glm::length(ikfix::core::skinned_position(lc.skin->vertices[1], bent) - Vec3(0, 1, 0)),
            1e-6);
}

TEST(GltfSkin, NoSkinNoCost) {
  TinyGltf g;
  g.with_skin = false;
  const io::LoadedClip lc = g.load("unskinned");
  EXPECT_EQ(lc.skin, nullptr);
  EXPECT_FALSE(has_warning(lc, "skinned mesh"));
}

TEST(GltfSkin, JointIndexPastTheSkinDropsTheSkinWithAWarning) {
  TinyGltf g;
  g.joints[4] = 7;  // vertex 1 names joint 7 of a 2-joint skin
  const io::LoadedClip lc = g.load("bad_joint");
  EXPECT_EQ(lc.skin, nullptr);
  EXPECT_TRUE(has_warning(lc, "skinned mesh ignored")) << ::testing::PrintToString(lc.warnings);
  EXPECT_TRUE(has_warning(lc, "names joint 7")) << ::testing::PrintToString(lc.warnings);
  EXPECT_EQ(lc.clip.frame_count, 2);  // the motion is read all the same
}

TEST(GltfSkin, NegativeOrNonFiniteWeightsDropTheSkin) {
  TinyGltf neg;
  neg.weights[0] = -1;
  EXPECT_TRUE(has_warning(neg.load("negative"), "negative weight"));
  TinyGltf nan;
  nan.weights[4] = std::nanf("");
  const io::LoadedClip lc = nan.load("nan");
  EXPECT_EQ(lc.skin, nullptr);
  EXPECT_TRUE(has_warning(lc, "skinned mesh ignored")) << ::testing::PrintToString(lc.warnings);
}

TEST(GltfSkin, CountLargerThanTheBytesDropsTheSkin) {
  TinyGltf g;
  g.position_count = 1000;  // the accessor runs past its bufferView
  const io::LoadedClip lc = g.load("overrun");
  EXPECT_EQ(lc.skin, nullptr);
  EXPECT_TRUE(has_warning(lc, "skinned mesh ignored")) << ::testing::PrintToString(lc.warnings);
}

// ---- synthetic FBX (ASCII) --------------------------------------------------------------------

// Two bones (Hips at y = 1, Leg 0.5 below it) and a mesh Model moved by 2 in x with a geometric
// translation of 1 in z; four control points, the last weighed by no cluster. `index` and
// `weight` replace the Leg cluster's first index and weight.
std::string tiny_fbx(const std::string& index = "1", const std::string& weight = "1") {
  const auto count = [](const std::string& list) {
    return std::to_string(1 + std::count(list.begin(), list.end(), ',') + 1);
  };
  // Cluster Transform = TransformLink^-1 * mesh global (mesh at x = 2).
  return R"(; FBX 7.4.0 project file
FBXHeaderExtension:  {
	FBXHeaderVersion: 1003
	FBXVersion: 7400
}
GlobalSettings:  {
	Version: 1000
	Properties70:  {
		P: "UnitScaleFactor", "double", "Number", "",100
	}
}
Objects:  {
	Geometry: 10, "Geometry::Body", "Mesh" {
		Vertices: *12 {
			a: 0,1,0,0,0.5,0,1,0.5,0,5,5,5
		}
		PolygonVertexIndex: *4 {
			a: 0,1,2,-4
		}
	}
	Model: 20, "Model::Body", "Mesh" {
		Version: 232
		Properties70:  {
			P: "GeometricTranslation", "Vector3D", "Vector", "",0,0,1
			P: "Lcl Translation", "Lcl Translation", "", "A",2,0,0
		}
	}
	Model: 30, "Model::Hips", "LimbNode" {
		Version: 232
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A",0,1,0
		}
	}
	Model: 31, "Model::Leg", "LimbNode" {
		Version: 232
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A",0,-0.5,0
		}
	}
	Model: 32, "Model::Leg_end", "LimbNode" {
		Version: 232
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A",0,-0.5,0
		}
	}
	Deformer: 40, "Deformer::Skin", "Skin" {
		Version: 101
	}
	Deformer: 41, "SubDeformer::Hips", "Cluster" {
		Version: 100
		Indexes: *2 {
			a: 0,1
		}
		Weights: *2 {
			a: 1,0.5
		}
		Transform: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,2,-1,0,1
		}
		TransformLink: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,0,1,0,1
		}
	}
	Deformer: 42, "SubDeformer::Leg", "Cluster" {
		Version: 100
		Indexes: *)" +
         count(index) + R"( {
			a: )" +
         index + R"(,2
		}
		Weights: *)" +
         count(weight) + R"( {
			a: )" +
         weight + R"(,1
		}
		Transform: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,2,-0.5,0,1
		}
		TransformLink: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,0,0.5,0,1
		}
	}
	Deformer: 43, "SubDeformer::Leg_end", "Cluster" {
		Version: 100
		Indexes: *1 {
			a: 2
		}
		Weights: *1 {
			a: 1
		}
		Transform: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,2,0,0,1
		}
		TransformLink: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1
		}
	}
}
Connections:  {
	C: "OO",20,0
	C: "OO",10,20
	C: "OO",30,0
	C: "OO",31,30
	C: "OO",32,31
	C: "OO",40,10
	C: "OO",41,40
	C: "OO",42,40
	C: "OO",43,40
	C: "OO",30,41
	C: "OO",31,42
	C: "OO",32,43
}
)";
}

io::LoadedClip load_fbx_character(const std::string& name, const std::string& text) {
  const auto path = ikfix::test::scratch_dir("skin_fbx") / (name + ".fbx");
  std::ofstream(path) << text;
  return io::load_character(path);
}

int joint_named(const io::LoadedClip& lc, const std::string& name) {
  for (int j = 0; j < lc.skeleton.joint_count(); ++j)
    if (lc.skeleton.names[j] == name) return j;
  return -1;
}

TEST(FbxSkin, TinyAsciiSkinReproducesTheBindPoseWithGeometricTranslation) {
  const io::LoadedClip lc = load_fbx_character("tiny", tiny_fbx());
  ASSERT_TRUE(lc.skin);
  // Control point 3 has no weight: not part of the skin.
  ASSERT_EQ(lc.skin->vertices.size(), 3u);
  // "Leg_end" is folded into Leg's end site: its influence goes to Leg.
  EXPECT_EQ(joint_named(lc, "Leg_end"), -1);
  EXPECT_EQ(lc.skin->vertices[2].joint[0], joint_named(lc, "Leg"));
  EXPECT_EQ(lc.skin->vertices[2].joint[1], -1);
  // Bind-pose world (metres: the file is in metres): mesh Model at x = 2, geometric z = 1.
  const auto rest = world_of(lc, 0);
  const Vec3 expected[3] = {{2, 1, 1}, {2, 0.5, 1}, {3, 0.5, 1}};
  for (int v = 0; v < 3; ++v)
    EXPECT_LT(glm::length(ikfix::core::skinned_position(lc.skin->vertices[v], rest) - expected[v]),
              1e-12)
        << v;
  // Vertex 1: Hips 0.5 and Leg 1, renormalised to 1/3 and 2/3.
  EXPECT_NEAR(lc.skin->vertices[1].weight[0], 2.0 / 3.0, 1e-15);
}

TEST(FbxSkin, BadClusterDataDropsTheSkinWithAWarning) {
  const io::LoadedClip out_of_range = load_fbx_character("range", tiny_fbx("9"));
  EXPECT_EQ(out_of_range.skin, nullptr);
  EXPECT_TRUE(has_warning(out_of_range, "control point 9 out of range"))
      << ::testing::PrintToString(out_of_range.warnings);
  const io::LoadedClip negative = load_fbx_character("negative", tiny_fbx("1", "-2"));
  EXPECT_EQ(negative.skin, nullptr);
  EXPECT_TRUE(has_warning(negative, "negative or not finite"))
      << ::testing::PrintToString(negative.warnings);
  const io::LoadedClip counts = load_fbx_character("counts", tiny_fbx("1,3", "1"));
  EXPECT_EQ(counts.skin, nullptr);
  EXPECT_TRUE(has_warning(counts, "Indexes but")) << ::testing::PrintToString(counts.warnings);
}

// ---- shared characters against Assimp ---------------------------------------------------------

glm::dmat4 to_dmat4(const aiMatrix4x4& m) {
  glm::dmat4 g(1.0);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) g[c][r] = static_cast<double>(m[r][c]);
  return g;
}

const aiNode* node_with_mesh(const aiNode* n, unsigned mesh) {
  for (unsigned k = 0; k < n->mNumMeshes; ++k)
    if (n->mMeshes[k] == mesh) return n;
  for (unsigned c = 0; c < n->mNumChildren; ++c)
    if (const aiNode* found = node_with_mesh(n->mChildren[c], mesh)) return found;
  return nullptr;
}

// Assimp's skinned vertices, posed: each vertex weighed by at least one bone, at
// sum_b w_b * bone_world(b) * offset(b) * v. `bone_world` gives a bone's world matrix by name;
// `bind` (instead) puts every bone at its bind pose, where the vertex is the mesh's own
// (glTF: the vertex as stored, as the spec poses a skinned mesh without its node's transform;
// other formats: the mesh node's world matrix applied).
std::vector<Vec3> assimp_skinned(const aiScene* scene, bool gltf,
                                 const std::map<std::string, glm::dmat4>* bone_world) {
  std::vector<Vec3> out;
  const auto rest = std::map<std::string, glm::dmat4>();
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[m];
    if (mesh->mNumBones == 0) continue;
    const aiNode* holder = node_with_mesh(scene->mRootNode, m);
    glm::dmat4 mesh_world(1.0);
    for (const aiNode* p = holder; p && !gltf; p = p->mParent)
      mesh_world = to_dmat4(p->mTransformation) * mesh_world;
    std::vector<Vec3> sum(mesh->mNumVertices, Vec3(0.0));
    std::vector<double> weight(mesh->mNumVertices, 0.0);
    for (unsigned b = 0; b < mesh->mNumBones; ++b) {
      const aiBone* bone = mesh->mBones[b];
      glm::dmat4 m4 = mesh_world;  // bind pose: bone world * offset = the mesh's world
      if (bone_world) m4 = bone_world->at(bone->mName.C_Str()) * to_dmat4(bone->mOffsetMatrix);
      for (unsigned w = 0; w < bone->mNumWeights; ++w) {
        const aiVertexWeight& vw = bone->mWeights[w];
        const aiVector3D& p = mesh->mVertices[vw.mVertexId];
        sum[vw.mVertexId] +=
            static_cast<double>(vw.mWeight) * Vec3(m4 * glm::dvec4(p.x, p.y, p.z, 1.0));
        weight[vw.mVertexId] += static_cast<double>(vw.mWeight);
      }
    }
    for (unsigned v = 0; v < mesh->mNumVertices; ++v)
      if (weight[v] > 0) out.push_back(sum[v] / weight[v]);
  }
  return out;
}

// Assimp's bind-pose world matrix of every bone: mesh world * offset^-1 (glTF: offset^-1).
std::map<std::string, glm::dmat4> assimp_bind_worlds(const aiScene* scene, bool gltf) {
  std::map<std::string, glm::dmat4> out;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[m];
    glm::dmat4 mesh_world(1.0);
    for (const aiNode* p = node_with_mesh(scene->mRootNode, m); p && !gltf; p = p->mParent)
      mesh_world = to_dmat4(p->mTransformation) * mesh_world;
    for (unsigned b = 0; b < mesh->mNumBones; ++b)
      out.emplace(mesh->mBones[b]->mName.C_Str(),
                  mesh_world * glm::inverse(to_dmat4(mesh->mBones[b]->mOffsetMatrix)));
  }
  return out;
}

// The largest distance from a point of `a` to the nearest point of `b` (brute force on a grid
// of cells `cell` wide, so a few thousand points each way stay fast).
double farthest_from(const std::vector<Vec3>& a, const std::vector<Vec3>& b, double cell) {
  std::map<std::array<long, 3>, std::vector<Vec3>> grid;
  auto key = [cell](const Vec3& p) {
    return std::array<long, 3>{std::lround(std::floor(p.x / cell)),
                               std::lround(std::floor(p.y / cell)),
                               std::lround(std::floor(p.z / cell))};
  };
  for (const Vec3& p : b) grid[key(p)].push_back(p);
  double worst = 0;
  for (const Vec3& p : a) {
    double best = 1e300;
    const auto k = key(p);
    for (long dx = -1; dx <= 1; ++dx)
      for (long dy = -1; dy <= 1; ++dy)
        for (long dz = -1; dz <= 1; ++dz) {
          const auto it = grid.find({k[0] + dx, k[1] + dy, k[2] + dz});
          if (it == grid.end()) continue;
          for (const Vec3& q : it->second) best = std::min(best, glm::length(p - q));
        }
    worst = std::max(worst, best);
  }
  return worst;
}

double extent_of(const std::vector<Vec3>& points) {
  Vec3 lo(1e300), hi(-1e300);
  for (const Vec3& p : points) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  return glm::length(hi - lo);
}

// Our skin posed with each joint at `world_of_name` (file units and axes; joints Assimp does not
// know keep `fallback`).
std::vector<Vec3> posed_ours(const io::LoadedClip& lc,
                             const std::map<std::string, glm::dmat4>& world_of_name,
                             const std::vector<Transform>& fallback) {
  std::vector<Transform> world = fallback;
  for (int j = 0; j < lc.skeleton.joint_count(); ++j)
    if (const auto it = world_of_name.find(lc.skeleton.names[j]); it != world_of_name.end())
      io::decompose_trs(it->second, world[j]);
  std::vector<Vec3> out;
  for (const auto& v : lc.skin->vertices) out.push_back(ikfix::core::skinned_position(v, world));
  return out;
}

struct SharedSkinCase {
  const char* file;
  bool character;  // load_character (else load_clip)
};

void PrintTo(const SharedSkinCase& c, std::ostream* os) {
  *os << c.file << (c.character ? " (character)" : " (clip)");
}

class SharedSkin : public ::testing::TestWithParam<SharedSkinCase> {};

// Bind pose: our skin posed with the bones at Assimp's bind matrices lands on Assimp's mesh
// vertices (and every Assimp skinned vertex has one of ours there), to 1e-6 of the mesh's size.
// Not max_skin_zup_7500_ascii.fbx: Assimp 5.2 bakes its mesh's geometric transform into the mesh
// node but computes the bone offsets without it, so its own bind pose does not put its bones at
// their TransformLink (off by up to 24 units there); the geometric transform is covered by
// FbxSkin.TinyAsciiSkinReproducesTheBindPoseWithGeometricTranslation.
TEST_P(SharedSkin, BindPoseReproducesAssimpsMeshVertices) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto path = ikfix::test::shared_data_dir() / "anim" / GetParam().file;
  const io::LoadedClip lc = GetParam().character ? io::load_character(path) : io::load_clip(path);
  ASSERT_TRUE(lc.skin) << ::testing::PrintToString(lc.warnings);
  ikfix::test::AssimpFbx assimp(path);
  ASSERT_NE(assimp.scene(), nullptr) << assimp.error();
  const bool gltf = lc.format == "glb" || lc.format == "gltf";
  const std::vector<Vec3> theirs = assimp_skinned(assimp.scene(), gltf, nullptr);
  const auto bind = assimp_bind_worlds(assimp.scene(), gltf);
  std::vector<Transform> fk(lc.skeleton.joint_count());
  ikfix::core::forward_kinematics(lc.skeleton, lc.skeleton.rest, Transform{}, fk);
  const std::vector<Vec3> ours = posed_ours(lc, bind, fk);
  const double size = extent_of(theirs);
  ASSERT_GT(size, 0);
  EXPECT_LE(farthest_from(ours, theirs, size / 50), 1e-6 * size) << "size " << size;
  EXPECT_LE(farthest_from(theirs, ours, size / 50), 1e-6 * size) << "size " << size;
}

INSTANTIATE_TEST_SUITE_P(
    Files, SharedSkin,
    ::testing::Values(SharedSkinCase{"fbx/kenney_character_maya_7700.fbx", false},
                      SharedSkinCase{"fbx/kenney_character_maya_7700.fbx", true},
                      SharedSkinCase{"fbx/barbarian_blender_7400.fbx", false},
                      SharedSkinCase{"fbx/barbarian_blender_7400.fbx", true},
                      SharedSkinCase{"fbx/blender_armature_anim_7400.fbx", true},
                      SharedSkinCase{"gltf/CesiumMan.glb", false},
                      SharedSkinCase{"gltf/CesiumMan.glb", true},
                      SharedSkinCase{"gltf/Fox.glb", false}),
    [](const auto& info) {
      std::string name = info.param.file;
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name + (info.param.character ? "_character" : "_clip");
    });

// A walking frame of CesiumMan: our skin posed by FK of our clip matches Assimp's vertices
// skinned with Assimp's own bone offsets, weights and animation at the same time.
TEST(SharedSkinPosed, CesiumManWalkFrameMatchesAssimp) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto path = ikfix::test::shared_data_dir() / "anim" / "gltf" / "CesiumMan.glb";
  const io::LoadedClip lc = io::load_clip(path);
  ASSERT_TRUE(lc.skin);
  ikfix::test::AssimpFbx assimp(path);
  ASSERT_NE(assimp.scene(), nullptr) << assimp.error();
  const aiAnimation* anim = assimp.scene()->mAnimations[0];
  const auto* layout = static_cast<const io::gltf::TakeLayout*>(lc.document.get());
  for (int frame : {7, 20, 33}) {
    const double ticks = layout->frame_times[frame] * anim->mTicksPerSecond;
    const auto bones = assimp.world_at(anim, ticks);
    const std::vector<Vec3> theirs = assimp_skinned(assimp.scene(), true, &bones);
    const auto world = world_of(lc, frame);  // glTF: metres, Y up, to_world identity
    std::vector<Vec3> ours;
    for (const auto& v : lc.skin->vertices) ours.push_back(ikfix::core::skinned_position(v, world));
    const double size = extent_of(theirs);
    EXPECT_LE(farthest_from(ours, theirs, size / 50), 1e-6 * size) << "frame " << frame;
    EXPECT_LE(farthest_from(theirs, ours, size / 50), 1e-6 * size) << "frame " << frame;
  }
}

TEST(SharedSkinPosed, SkeletonOnlyFilesHaveNoSkin) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = ikfix::test::shared_data_dir();
  EXPECT_EQ(io::load_clip(dir / "anim" / "fbx" / "cmu_07_01_walk_skeleton.fbx").skin, nullptr);
  EXPECT_EQ(io::load_character(dir / "retarget" / "kenney_rest.fbx").skin, nullptr);
  EXPECT_EQ(io::load_character(dir / "retarget" / "kenney_rest.glb").skin, nullptr);
}

}  // namespace
