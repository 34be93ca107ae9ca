// The Assimp module (libikfix_assimp.so): the only ikfix code that includes Assimp. It imports a
// file and copies what ikfix reads into the plain types of io/assimp/imported_scene.hpp.
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <assimp/Importer.hpp>
#include <exception>
#include <type_traits>

#include "io/assimp/module_api.hpp"

namespace ikfix::io::assimp {
namespace {

static_assert(std::is_same_v<ai_real, Real>, "imported_scene.hpp's Real must be Assimp's ai_real");

Vec3r vec(const aiVector3D& v) { return {v.x, v.y, v.z}; }
QuatR quat(const aiQuaternion& q) { return {q.w, q.x, q.y, q.z}; }

template <typename In, typename Out>
void copy_keys(const In* keys, unsigned count, std::vector<Out>& out) {
  out.reserve(count);
  for (unsigned k = 0; k < count; ++k) {
    Out key;
    key.time = keys[k].mTime;
    if constexpr (std::is_same_v<Out, QuatKey>)
      key.value = quat(keys[k].mValue);
    else
      key.value = vec(keys[k].mValue);
    out.push_back(key);
  }
}

// Depth first, parents before children (the root is nodes[0]).
std::uint32_t copy_node(const aiNode& in, Scene& scene) {
  const auto index = static_cast<std::uint32_t>(scene.nodes.size());
  scene.nodes.emplace_back();
  {
    Node& node = scene.nodes.back();
    node.name = in.mName.C_Str();
    for (unsigned r = 0; r < 4; ++r)
      for (unsigned c = 0; c < 4; ++c) node.matrix[4 * r + c] = in.mTransformation[r][c];
    aiVector3D s, p;
    aiQuaternion q;
    in.mTransformation.Decompose(s, q, p);
    node.scale = vec(s);
    node.position = vec(p);
    node.rotation = quat(q);
    node.meshes.assign(in.mMeshes, in.mMeshes + in.mNumMeshes);
  }
  std::vector<std::uint32_t> children;
  children.reserve(in.mNumChildren);
  for (unsigned c = 0; c < in.mNumChildren; ++c)
    children.push_back(copy_node(*in.mChildren[c], scene));
  scene.nodes[index].children = std::move(children);  // `scene.nodes` may have grown meanwhile
  return index;
}

void copy_scene(const aiScene& in, Scene& scene) {
  if (in.mRootNode) copy_node(*in.mRootNode, scene);
  scene.meshes.resize(in.mNumMeshes);
  for (unsigned m = 0; m < in.mNumMeshes; ++m) {
    const aiMesh& src = *in.mMeshes[m];
    Mesh& mesh = scene.meshes[m];
    mesh.name = src.mName.C_Str();
    mesh.vertices.reserve(src.mNumVertices);
    for (unsigned v = 0; v < src.mNumVertices; ++v) mesh.vertices.push_back(vec(src.mVertices[v]));
    if (src.HasNormals()) {
      mesh.normals.reserve(src.mNumVertices);
      for (unsigned v = 0; v < src.mNumVertices; ++v) mesh.normals.push_back(vec(src.mNormals[v]));
    }
    for (unsigned f = 0; f < src.mNumFaces; ++f) {
      const aiFace& face = src.mFaces[f];
      if (face.mNumIndices == 3)
        mesh.triangles.push_back({face.mIndices[0], face.mIndices[1], face.mIndices[2]});
    }
    for (unsigned b = 0; b < src.mNumBones; ++b)
      mesh.bones.emplace_back(src.mBones[b]->mName.C_Str());
  }
  scene.animations.resize(in.mNumAnimations);
  for (unsigned a = 0; a < in.mNumAnimations; ++a) {
    const aiAnimation& src = *in.mAnimations[a];
    Animation& anim = scene.animations[a];
    anim.name = src.mName.C_Str();
    anim.duration = src.mDuration;
    anim.ticks_per_second = src.mTicksPerSecond;
    anim.channels.resize(src.mNumChannels);
    for (unsigned c = 0; c < src.mNumChannels; ++c) {
      const aiNodeAnim& ch = *src.mChannels[c];
      NodeChannel& out = anim.channels[c];
      out.node = ch.mNodeName.C_Str();
      copy_keys(ch.mPositionKeys, ch.mNumPositionKeys, out.positions);
      copy_keys(ch.mRotationKeys, ch.mNumRotationKeys, out.rotations);
      copy_keys(ch.mScalingKeys, ch.mNumScalingKeys, out.scalings);
    }
  }
}

bool import_scene(const ImportRequest& request, Scene& scene, std::string& error) {
  try {
    scene = Scene{};
    Assimp::Importer importer;
    importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, false);
    if (request.no_skeleton_meshes)
      importer.SetPropertyBool(AI_CONFIG_IMPORT_NO_SKELETON_MESHES, true);
    unsigned steps = aiProcess_ValidateDataStructure;
    if (request.triangulate) steps |= aiProcess_Triangulate;
    const aiScene* in =
        request.bytes ? importer.ReadFileFromMemory(request.bytes->data(), request.bytes->size(),
                                                    steps, request.format_hint.c_str())
                      : importer.ReadFile(request.file, steps);
    if (!in) {
      error = importer.GetErrorString();
      return false;
    }
    copy_scene(*in, scene);
    return true;
  } catch (const std::exception& e) {  // out of memory while copying: reported, not thrown across
    error = e.what();
  } catch (...) {
    error = "unknown error inside Assimp";
  }
  scene = Scene{};
  return false;
}

const ModuleApi kApi{kModuleAbiVersion, &import_scene};

}  // namespace
}  // namespace ikfix::io::assimp

extern "C" __attribute__((visibility("default"))) const ikfix::io::assimp::ModuleApi*
ikfix_assimp_module() {
  return &ikfix::io::assimp::kApi;
}
