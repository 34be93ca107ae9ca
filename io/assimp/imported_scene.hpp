#pragma once
// What ikfix needs of a file Assimp imported, in standard types only: the one data structure that
// crosses from the Assimp module (libikfix_assimp.so, io/assimp/module/) into ikfix. Only the
// module includes Assimp's headers, so the ikfix executable does not link libassimp and a run
// that never needs Assimp (BVH clips, OBJ terrains) never loads it.
//
// Values are Assimp's, unconverted: Assimp's single-precision reals, its row-major matrices,
// key times in ticks. Units and axes are whatever the file (after Assimp's own conversions) has.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ikfix::io::assimp {

// Assimp's ai_real in the build ikfix uses (single precision; the module checks it).
using Real = float;

struct Vec3r {
  Real x = 0, y = 0, z = 0;
};
struct QuatR {
  Real w = 1, x = 0, y = 0, z = 0;
};

struct VectorKey {
  double time = 0;  // ticks
  Vec3r value;
};
struct QuatKey {
  double time = 0;  // ticks
  QuatR value;
};

// One animated node of an animation (aiNodeAnim), keys sorted by time.
struct NodeChannel {
  std::string node;
  std::vector<VectorKey> positions;
  std::vector<QuatKey> rotations;
  std::vector<VectorKey> scalings;
};

struct Animation {
  std::string name;
  double duration = 0;          // ticks
  double ticks_per_second = 0;  // 0 when the file does not say
  std::vector<NodeChannel> channels;
};

struct Mesh {
  std::string name;
  std::vector<Vec3r> vertices;
  std::vector<Vec3r> normals;  // one per vertex, or empty when the mesh has none
  // The mesh's faces with exactly three corners, in file order (points, lines and - unless the
  // import triangulated - polygons are left out).
  std::vector<std::array<std::uint32_t, 3>> triangles;
  std::vector<std::string> bones;  // names of the nodes that skin it
};

struct Node {
  std::string name;
  // Local transform, row-major as Assimp stores it: matrix[4 * row + column]; translation in
  // column 3.
  std::array<Real, 16> matrix{};
  // The same transform decomposed by Assimp (aiMatrix4x4::Decompose).
  Vec3r scale, position;
  QuatR rotation;
  std::vector<std::uint32_t> meshes;    // indices into Scene::meshes
  std::vector<std::uint32_t> children;  // indices into Scene::nodes, in file order
};

struct Scene {
  std::vector<Node> nodes;  // nodes[0] is the root; empty when the file has no node tree
  std::vector<Mesh> meshes;
  std::vector<Animation> animations;
};

// How to import. Every import folds FBX pivots into plain node transforms
// (AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS false; research/assimp_fidelity.md §2.1) and runs
// aiProcess_ValidateDataStructure; nothing else changes geometry or nodes unless asked here.
struct ImportRequest {
  std::string file;                    // the path to read, or the name of `bytes` in messages
  const std::string* bytes = nullptr;  // when set, read these bytes instead of the file
  std::string format_hint;             // with `bytes`: the format's extension ("fbx")
  bool triangulate = false;            // aiProcess_Triangulate
  bool no_skeleton_meshes = false;     // AI_CONFIG_IMPORT_NO_SKELETON_MESHES
};

}  // namespace ikfix::io::assimp
