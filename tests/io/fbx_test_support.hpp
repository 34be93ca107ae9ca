#pragma once
// Test helpers for FBX: an independent evaluation of an FBX take through Assimp (the same safe
// settings ikfix uses: aiProcess_ValidateDataStructure only, FBX pivots not preserved), and
// world transforms of a loaded clip for comparison.
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <cmath>
#include <filesystem>
#include <glm/gtc/matrix_transform.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/fk.hpp"
#include "io/clip_io.hpp"

namespace ikfix::test {

// An FBX file as Assimp sees it, evaluated like every Assimp consumer does (lerp / slerp
// between keys).
class AssimpFbx {
 public:
  explicit AssimpFbx(const std::filesystem::path& path) {
    importer_.SetPropertyBool(AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, false);
    scene_ = importer_.ReadFile(path.string(), aiProcess_ValidateDataStructure);
  }
  AssimpFbx(const std::string& bytes, bool) {
    importer_.SetPropertyBool(AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, false);
    scene_ = importer_.ReadFileFromMemory(bytes.data(), bytes.size(),
                                          aiProcess_ValidateDataStructure, "fbx");
  }
  const aiScene* scene() const { return scene_; }
  std::string error() { return importer_.GetErrorString(); }

  const aiAnimation* animation(const std::string& take) const {
    for (unsigned a = 0; a < scene_->mNumAnimations; ++a) {
      const std::string name = scene_->mAnimations[a]->mName.C_Str();
      if (name == take || name == "AnimStack::" + take) return scene_->mAnimations[a];
    }
    return scene_->mNumAnimations == 1 ? scene_->mAnimations[0] : nullptr;
  }

  // World matrices (column-major glm, file units) of every node at `time` (animation ticks).
  std::map<std::string, glm::dmat4> world_at(const aiAnimation* anim, double time) const {
    std::map<std::string, const aiNodeAnim*> channels;
    if (anim)
      for (unsigned c = 0; c < anim->mNumChannels; ++c)
        channels[anim->mChannels[c]->mNodeName.C_Str()] = anim->mChannels[c];
    std::map<std::string, glm::dmat4> out;
    visit(scene_->mRootNode, glm::dmat4(1.0), channels, time, out);
    return out;
  }

  // Key times (ticks) of a node's rotation channel, or empty.
  static std::vector<double> rotation_key_times(const aiAnimation* anim, const std::string& node) {
    std::vector<double> t;
    for (unsigned c = 0; c < anim->mNumChannels; ++c)
      if (node == anim->mChannels[c]->mNodeName.C_Str())
        for (unsigned k = 0; k < anim->mChannels[c]->mNumRotationKeys; ++k)
          t.push_back(anim->mChannels[c]->mRotationKeys[k].mTime);
    return t;
  }

 private:
  static glm::dmat4 to_dmat4(const aiMatrix4x4& m) {
    glm::dmat4 g(1.0);
    const ai_real* rows[4] = {m[0], m[1], m[2], m[3]};
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) g[c][r] = static_cast<double>(rows[r][c]);
    return g;
  }
  template <typename Key, typename V, typename F>
  static V sample(const Key* keys, unsigned n, double time, V fallback, F lerp) {
    if (n == 0) return fallback;
    if (time <= keys[0].mTime) return V(keys[0].mValue);
    if (time >= keys[n - 1].mTime) return V(keys[n - 1].mValue);
    unsigned k = 0;
    while (k + 1 < n && keys[k + 1].mTime <= time) ++k;
    const double s = (time - keys[k].mTime) / (keys[k + 1].mTime - keys[k].mTime);
    return lerp(V(keys[k].mValue), V(keys[k + 1].mValue), s);
  }
  static void visit(const aiNode* node, const glm::dmat4& parent,
                    const std::map<std::string, const aiNodeAnim*>& channels, double time,
                    std::map<std::string, glm::dmat4>& out) {
    glm::dmat4 local = to_dmat4(node->mTransformation);
    if (auto it = channels.find(node->mName.C_Str()); it != channels.end()) {
      const aiNodeAnim* ch = it->second;
      aiVector3D s0, p0;
      aiQuaternion r0;
      node->mTransformation.Decompose(s0, r0, p0);
      auto vlerp = [](aiVector3D a, aiVector3D b, double s) {
        return a + (b - a) * static_cast<ai_real>(s);
      };
      auto qlerp = [](aiQuaternion a, aiQuaternion b, double s) {
        aiQuaternion out;
        aiQuaternion::Interpolate(out, a, b, static_cast<ai_real>(s));
        return out;
      };
      const aiVector3D p = sample(ch->mPositionKeys, ch->mNumPositionKeys, time, p0, vlerp);
      const aiVector3D sc = sample(ch->mScalingKeys, ch->mNumScalingKeys, time, s0, vlerp);
      const aiQuaternion r = sample(ch->mRotationKeys, ch->mNumRotationKeys, time, r0, qlerp);
      const glm::dquat q(r.w, r.x, r.y, r.z);
      local = glm::translate(glm::dmat4(1.0), glm::dvec3(p.x, p.y, p.z)) * glm::mat4_cast(q) *
              glm::scale(glm::dmat4(1.0), glm::dvec3(sc.x, sc.y, sc.z));
    }
    const glm::dmat4 world = parent * local;
    out[node->mName.C_Str()] = world;
    for (unsigned c = 0; c < node->mNumChildren; ++c)
      visit(node->mChildren[c], world, channels, time, out);
  }

  Assimp::Importer importer_;
  const aiScene* scene_ = nullptr;
};

// World transforms of a loaded clip's frame in the file's own units and axes (no ClipSpace).
inline std::vector<core::Transform> file_world(const io::LoadedClip& lc, const core::Clip& clip,
                                               int frame) {
  std::vector<core::Transform> world(lc.skeleton.joint_count());
  core::forward_kinematics(lc.skeleton, clip.frame(frame), core::Transform{}, world);
  return world;
}

inline double angle_deg(const glm::dquat& a, const glm::dquat& b) {
  const glm::dquat d = glm::normalize(glm::conjugate(a) * b);
  return 2.0 * std::atan2(std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z), std::abs(d.w)) * 180.0 /
         3.14159265358979323846;
}

}  // namespace ikfix::test
