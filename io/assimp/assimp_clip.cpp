#include "io/assimp/assimp_clip.hpp"

#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "core/fk.hpp"
#include "core/units.hpp"
#include "io/error.hpp"

namespace ikfix::io::assimp {
namespace {

using core::Quat;
using core::Transform;
using core::Vec3;

std::string lower_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

Transform decompose(const aiMatrix4x4& m) {
  aiVector3D s, p;
  aiQuaternion r;
  m.Decompose(s, r, p);
  Transform t;
  t.translation = Vec3(p.x, p.y, p.z);
  t.rotation = glm::normalize(Quat(r.w, r.x, r.y, r.z));
  t.scale = Vec3(s.x, s.y, s.z);
  return t;
}

template <typename Key>
std::pair<unsigned, double> segment(const Key* keys, unsigned n, double time, unsigned& cursor) {
  if (time <= keys[0].mTime) return {0, 0.0};
  if (time >= keys[n - 1].mTime) return {n - 1, 0.0};
  unsigned k = std::min(cursor, n - 1);
  if (keys[k].mTime > time) k = 0;
  while (k + 1 < n && keys[k + 1].mTime <= time) ++k;
  cursor = k;
  if (k + 1 >= n) return {k, 0.0};
  return {k, (time - keys[k].mTime) / (keys[k + 1].mTime - keys[k].mTime)};
}

Vec3 sample_vector(const aiVectorKey* keys, unsigned n, double time, unsigned& cursor, const Vec3& fallback) {
  if (n == 0) return fallback;
  const auto [k, s] = segment(keys, n, time, cursor);
  const aiVector3D& a = keys[k].mValue;
  if (s == 0.0) return Vec3(a.x, a.y, a.z);
  const aiVector3D& b = keys[k + 1].mValue;
  return Vec3(a.x, a.y, a.z) + (Vec3(b.x, b.y, b.z) - Vec3(a.x, a.y, a.z)) * s;
}

Quat sample_rotation(const aiQuatKey* keys, unsigned n, double time, unsigned& cursor, const Quat& fallback) {
  if (n == 0) return fallback;
  const auto [k, s] = segment(keys, n, time, cursor);
  const aiQuaternion& a = keys[k].mValue;
  const Quat qa = glm::normalize(Quat(a.w, a.x, a.y, a.z));
  if (s == 0.0) return qa;
  const aiQuaternion& b = keys[k + 1].mValue;
  const Quat qb = core::align_hemisphere(glm::normalize(Quat(b.w, b.x, b.y, b.z)), qa);
  return glm::normalize(glm::slerp(qa, qb, s));
}

// The animation's frame rate: its smallest key spacing, snapped to a common rate.
double frame_rate(const aiAnimation* anim, double ticks_per_second) {
  double spacing = 0;
  for (unsigned c = 0; c < anim->mNumChannels; ++c) {
    const aiNodeAnim* ch = anim->mChannels[c];
    auto scan = [&](double a, double b) {
      const double d = b - a;
      if (d > 1e-9 && (spacing == 0 || d < spacing)) spacing = d;
    };
    for (unsigned k = 1; k < ch->mNumRotationKeys; ++k) scan(ch->mRotationKeys[k - 1].mTime, ch->mRotationKeys[k].mTime);
    for (unsigned k = 1; k < ch->mNumPositionKeys; ++k) scan(ch->mPositionKeys[k - 1].mTime, ch->mPositionKeys[k].mTime);
  }
  if (spacing <= 0) return 30.0;
  const double raw = ticks_per_second / spacing;
  for (double common : {24.0, 25.0, 30.0, 48.0, 50.0, 60.0, 100.0, 120.0})
    if (std::abs(raw / common - 1.0) < 0.01) return common;
  return std::clamp(raw, 1.0, 1000.0);
}

}  // namespace

bool is_assimp_clip(const std::filesystem::path& path) { return lower_extension(path) == ".dae"; }

LoadedClip load(const std::filesystem::path& path, const ClipLoadOptions& options) {
  const std::string file = path.string();
  Assimp::Importer importer;
  importer.SetPropertyBool(AI_CONFIG_IMPORT_NO_SKELETON_MESHES, true);
  importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, false);
  const aiScene* scene = importer.ReadFile(file, aiProcess_ValidateDataStructure);
  if (!scene || !scene->mRootNode) throw InputError(file, "Assimp cannot read it: " + one_line(importer.GetErrorString()));
  const int count = static_cast<int>(scene->mNumAnimations);
  if (count == 0) throw InputError(file, "no animation in the file (nothing to fix)");
  int index = 0;
  if (options.take) {
    index = -1;
    for (int a = 0; a < count; ++a)
      if (*options.take == scene->mAnimations[a]->mName.C_Str()) index = a;
    if (index < 0) {
      int n = -1;
      const auto r = std::from_chars(options.take->data(), options.take->data() + options.take->size(), n);
      if (r.ec == std::errc() && r.ptr == options.take->data() + options.take->size() && n >= 0 && n < count) index = n;
    }
    if (index < 0) throw InputError(file, "no take '" + *options.take + "' (the file has " + std::to_string(count) + ")");
  }
  const aiAnimation* anim = scene->mAnimations[index];

  // Joints: animated nodes, bone nodes, and their ancestors.
  std::set<std::string> wanted;
  for (unsigned c = 0; c < anim->mNumChannels; ++c) wanted.insert(anim->mChannels[c]->mNodeName.C_Str());
  for (unsigned m = 0; m < scene->mNumMeshes; ++m)
    for (unsigned b = 0; b < scene->mMeshes[m]->mNumBones; ++b) wanted.insert(scene->mMeshes[m]->mBones[b]->mName.C_Str());
  std::map<const aiNode*, bool> keep;
  std::function<bool(const aiNode*)> mark = [&](const aiNode* n) {
    bool k = wanted.count(n->mName.C_Str()) > 0;
    for (unsigned c = 0; c < n->mNumChildren; ++c) k = mark(n->mChildren[c]) || k;
    keep[n] = k;
    return k;
  };
  mark(scene->mRootNode);
  LoadedClip loaded;
  loaded.path = path;
  loaded.format = lower_extension(path).substr(1);
  loaded.take_name = anim->mName.C_Str();
  loaded.take_index = index;
  loaded.take_count = count;
  std::vector<const aiNode*> nodes;
  core::Skeleton& sk = loaded.skeleton;
  std::function<void(const aiNode*, int)> add = [&](const aiNode* n, int parent) {
    if (!keep[n]) return;
    const int j = static_cast<int>(nodes.size());
    nodes.push_back(n);
    sk.names.push_back(n->mName.C_Str());
    sk.parents.push_back(parent);
    sk.rest.push_back(decompose(n->mTransformation));
    sk.end_sites.emplace_back(std::nullopt);
    for (unsigned c = 0; c < n->mNumChildren; ++c) add(n->mChildren[c], j);
  };
  add(scene->mRootNode, -1);
  if (nodes.empty()) throw InputError(file, "the animation moves no node");

  // Sampling.
  const double tps = anim->mTicksPerSecond > 0 ? anim->mTicksPerSecond : 25.0;
  const double fps = frame_rate(anim, tps);
  const int joints = static_cast<int>(nodes.size());
  std::vector<const aiNodeAnim*> channel(joints, nullptr);
  for (unsigned c = 0; c < anim->mNumChannels; ++c)
    for (int j = 0; j < joints; ++j)
      if (sk.names[j] == anim->mChannels[c]->mNodeName.C_Str()) channel[j] = anim->mChannels[c];
  core::Clip& clip = loaded.clip;
  clip.fps = fps;
  clip.joint_count = joints;
  clip.frame_count = static_cast<int>(std::floor(anim->mDuration / tps * fps + 1e-6)) + 1;
  clip.locals.resize(static_cast<std::size_t>(joints) * clip.frame_count);
  std::vector<std::array<unsigned, 3>> cursors(joints, {0, 0, 0});
  for (int f = 0; f < clip.frame_count; ++f) {
    const double time = f * tps / fps;
    for (int j = 0; j < joints; ++j) {
      Transform t = sk.rest[j];
      if (const aiNodeAnim* ch = channel[j]) {
        t.translation = sample_vector(ch->mPositionKeys, ch->mNumPositionKeys, time, cursors[j][0], t.translation);
        t.rotation = sample_rotation(ch->mRotationKeys, ch->mNumRotationKeys, time, cursors[j][1], t.rotation);
        t.scale = sample_vector(ch->mScalingKeys, ch->mNumScalingKeys, time, cursors[j][2], t.scale);
      }
      clip.at(f, j) = t;
    }
  }

  // Axes: Assimp already turned the scene Y up; units: the user's, else guessed from the height.
  loaded.up_axis = options.up_axis.value_or('y');
  if (loaded.up_axis == 'z') loaded.space.to_world_rotation = core::axis_angle(Vec3(1, 0, 0), -core::kPi / 2);
  if (options.metres_per_unit) {
    loaded.space.metres_per_unit = *options.metres_per_unit;
    loaded.unit_source = "user";
    loaded.unit_name = "custom";
  } else {
    std::vector<Transform> world(joints);
    core::Transform top;
    top.rotation = loaded.space.to_world_rotation;
    core::forward_kinematics(sk, sk.rest, top, world);
    std::vector<Vec3> points;
    for (const Transform& w : world) points.push_back(w.translation);
    double lo = 1e300, hi = -1e300;
    for (const Vec3& p : points) lo = std::min(lo, p.y), hi = std::max(hi, p.y);
    core::UnitGuess guess;
    if (hi - lo > 1e-6) {
      guess = core::guess_unit_from_height(points);
    } else {
      guess.metres_per_unit = 1.0;
      guess.unit = "m";
      guess.reason = "rest pose has no height; assumed metres";
    }
    loaded.space.metres_per_unit = guess.metres_per_unit;
    loaded.unit_source = "guessed";
    loaded.unit_name = guess.unit;
    loaded.unit_reason = guess.reason;
  }
  loaded.warnings.push_back("read through Assimp: " + loaded.format + " files are read-only in ikfix (writing them back is refused)");
  return loaded;
}

}  // namespace ikfix::io::assimp
