#include "io/fbx/verify.hpp"

#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "core/fk.hpp"
#include "io/error.hpp"

namespace ikfix::io::fbx {
namespace {

using core::Quat;
using core::Transform;
using core::Vec3;

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return text;
}

double angle_deg(const Quat& a, const Quat& b) {
  return core::rotation_angle(glm::normalize(glm::conjugate(a) * b)) * 180.0 / core::kPi;
}

// Index of the key nearest `time` (keys sorted by time), starting the search at `hint`.
template <typename Key>
unsigned nearest_key(const Key* keys, unsigned count, double time, unsigned& hint) {
  if (count == 0) return 0;
  unsigned k = std::min(hint, count - 1);
  while (k + 1 < count && keys[k + 1].mTime <= time) ++k;
  while (k > 0 && keys[k].mTime > time) --k;
  if (k + 1 < count && std::abs(keys[k + 1].mTime - time) < std::abs(keys[k].mTime - time)) ++k;
  hint = k;
  return k;
}

std::string format(const char* fmt, double a, double b = 0) {
  char buf[128];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
}

const aiAnimation* find_animation(const aiScene* s, const Take& take, int take_index, int take_count) {
  for (unsigned a = 0; a < s->mNumAnimations; ++a) {
    const std::string name = s->mAnimations[a]->mName.C_Str();
    if (name == take.name || name == "AnimStack::" + take.name) return s->mAnimations[a];
  }
  if (static_cast<int>(s->mNumAnimations) == take_count) return s->mAnimations[take_index];
  return nullptr;
}

}  // namespace

VerifyReport verify_with_assimp(const std::string& bytes, const std::string& file, const ClipDocument& cd,
                                const std::vector<PatchedTake>& patched) {
  VerifyReport report;
  Assimp::Importer importer;
  importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, false);
  const aiScene* s = importer.ReadFileFromMemory(bytes.data(), bytes.size(), aiProcess_ValidateDataStructure, "fbx");
  if (!s)
    throw InputError(file, "the written FBX does not read back through Assimp (" + one_line(importer.GetErrorString()) +
                               "); nothing was written");
  const core::Skeleton& sk = cd.skeleton;
  const int joints = sk.joint_count();
  for (const PatchedTake& p : patched) {
    if (p.joints.empty()) continue;
    const Take& take = cd.scene.takes[p.take];
    const aiAnimation* anim = find_animation(s, take, p.take, static_cast<int>(cd.scene.takes.size()));
    auto fail = [&](const std::string& what) {
      throw InputError(file, "written take '" + take.name + "' does not read back as intended: " + what +
                                 "; nothing was written");
    };
    if (!anim) fail("Assimp finds no animation for it");
    std::unordered_map<std::string, const aiNodeAnim*> channels;
    for (unsigned c = 0; c < anim->mNumChannels; ++c) channels[anim->mChannels[c]->mNodeName.C_Str()] = anim->mChannels[c];
    std::vector<const aiNodeAnim*> channel_of(joints, nullptr);
    for (int j : p.joints) {
      auto it = channels.find(sk.names[j]);
      if (it == channels.end()) fail("joint '" + sk.names[j] + "' has no animation channel");
      channel_of[j] = it->second;
    }
    const double ticks_per_frame = anim->mTicksPerSecond > 0 ? anim->mTicksPerSecond / p.timing.fps : 1.0;
    const Transform to_world = p.space.to_world();
    std::vector<Transform> locals(joints), world_intended(joints), world_read(joints);
    std::vector<unsigned> rot_hint(joints, 0), pos_hint(joints, 0);
    for (int f = 0; f < p.timing.frame_count; ++f) {
      const auto intended = p.edited->frame(f);
      core::forward_kinematics(sk, intended, to_world, world_intended);
      std::copy(intended.begin(), intended.end(), locals.begin());
      // Assimp shifts each take to start at 0.
      const double time = static_cast<double>(f) * ticks_per_frame;
      for (int j : p.joints) {
        const aiNodeAnim* ch = channel_of[j];
        if (ch->mNumRotationKeys == 0 || ch->mNumPositionKeys == 0) fail("joint '" + sk.names[j] + "' has no keys");
        const aiQuatKey& rk = ch->mRotationKeys[nearest_key(ch->mRotationKeys, ch->mNumRotationKeys, time, rot_hint[j])];
        const aiVectorKey& pk = ch->mPositionKeys[nearest_key(ch->mPositionKeys, ch->mNumPositionKeys, time, pos_hint[j])];
        if (std::abs(rk.mTime - time) > 1e-3 * ticks_per_frame || std::abs(pk.mTime - time) > 1e-3 * ticks_per_frame)
          fail("joint '" + sk.names[j] + "' has no key at frame " + std::to_string(f));
        const Quat q_read(rk.mValue.w, rk.mValue.x, rk.mValue.y, rk.mValue.z);
        const Vec3 t_read(pk.mValue.x, pk.mValue.y, pk.mValue.z);
        const double local_rot = angle_deg(intended[j].rotation, q_read);
        report.max_local_rotation_error_deg = std::max(report.max_local_rotation_error_deg, local_rot);
        if (!(local_rot <= kVerifyRotationToleranceDeg))
          fail("joint '" + sk.names[j] + "' frame " + std::to_string(f) + ": local rotation off by " + format("%.4g deg", local_rot));
        locals[j].rotation = q_read;
        locals[j].translation = t_read;
        ++report.keys_checked;
      }
      core::forward_kinematics(sk, locals, to_world, world_read);
      for (int j : p.joints) {
        const double dp = glm::length(world_read[j].translation - world_intended[j].translation);
        const double dr = angle_deg(world_read[j].rotation, world_intended[j].rotation);
        report.max_position_error_m = std::max(report.max_position_error_m, dp);
        report.max_rotation_error_deg = std::max(report.max_rotation_error_deg, dr);
        if (!(dp <= kVerifyPositionTolerance) || !(dr <= kVerifyRotationToleranceDeg))
          fail("joint '" + sk.names[j] + "' frame " + std::to_string(f) + ": world position off by " +
               format("%.3g mm", dp * 1000.0) + ", rotation by " + format("%.3g deg", dr));
      }
    }
  }
  return report;
}

}  // namespace ikfix::io::fbx
