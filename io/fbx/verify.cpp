#include "io/fbx/verify.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "core/fk.hpp"
#include "io/assimp/assimp_module.hpp"
#include "io/error.hpp"
#include "io/memory_budget.hpp"

namespace ikfix::io::fbx {
namespace {

using core::Quat;
using core::Transform;
using core::Vec3;

double angle_deg(const Quat& a, const Quat& b) {
  return core::rotation_angle(glm::normalize(glm::conjugate(a) * b)) * 180.0 / core::kPi;
}

// Index of the key nearest `time` (keys sorted by time), starting the search at `hint`.
template <typename Key>
unsigned nearest_key(const std::vector<Key>& keys, double time, unsigned& hint) {
  const auto count = static_cast<unsigned>(keys.size());
  if (count == 0) return 0;
  unsigned k = std::min(hint, count - 1);
  while (k + 1 < count && keys[k + 1].time <= time) ++k;
  while (k > 0 && keys[k].time > time) --k;
  if (k + 1 < count && std::abs(keys[k + 1].time - time) < std::abs(keys[k].time - time)) ++k;
  hint = k;
  return k;
}

std::string format(const char* fmt, double a, double b = 0) {
  char buf[128];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
}

const assimp::Animation* find_animation(const assimp::Scene& s, const Take& take, int take_index,
                                        int take_count) {
  for (const assimp::Animation& anim : s.animations)
    if (anim.name == take.name || anim.name == "AnimStack::" + take.name) return &anim;
  if (static_cast<int>(s.animations.size()) == take_count) return &s.animations[take_index];
  return nullptr;
}

// Refuses the write: take `take_name` does not read back through Assimp as intended.
struct TakeFailure {
  const std::string& file;
  const std::string& take_name;

  [[noreturn]] void operator()(const std::string& what) const {
    throw InputError(file, "written take '" + take_name + "' does not read back as intended: " +
                               what + "; nothing was written");
  }
};

// Per edited joint: its channel, or - for a Model with pivots or offsets, which Assimp 5.2.5
// animates through "<name>_$AssimpFbx$_Translation/Rotation/Scaling" channels even when pivots are
// not preserved - those three.
struct Channels {
  const assimp::NodeChannel* whole = nullptr;
  const assimp::NodeChannel* parts[3] = {nullptr, nullptr,
                                         nullptr};  // translation, rotation, scaling
};

std::vector<Channels> channels_of(const assimp::Animation& anim, const core::Skeleton& sk,
                                  const std::vector<int>& edited, const TakeFailure& fail) {
  std::unordered_map<std::string, const assimp::NodeChannel*> channels;
  for (const assimp::NodeChannel& ch : anim.channels) channels[ch.node] = &ch;
  std::vector<Channels> channel_of(sk.joint_count());
  static const char* const kParts[3] = {"_$AssimpFbx$_Translation", "_$AssimpFbx$_Rotation",
                                        "_$AssimpFbx$_Scaling"};
  for (int j : edited) {
    if (auto it = channels.find(sk.names[j]); it != channels.end()) {
      channel_of[j].whole = it->second;
      continue;
    }
    for (int k = 0; k < 3; ++k)
      if (auto it = channels.find(sk.names[j] + kParts[k]); it != channels.end())
        channel_of[j].parts[k] = it->second;
    if (!channel_of[j].parts[1]) fail("joint '" + sk.names[j] + "' has no animation channel");
  }
  return channel_of;
}

// Key search positions of one joint, kept from frame to frame.
struct KeyHints {
  unsigned rotation = 0, position = 0;
};

// Joint j's local transform as Assimp reads it at `time` (ticks) of frame f: the keys at that
// frame; a translation not animated (only possible for the split channels) is the Model's
// static value.
Transform read_joint_local(const Channels& chs, const Model& model, double time,
                           double ticks_per_frame, int f, const std::string& joint_name,
                           KeyHints& hints, const TakeFailure& fail) {
  const assimp::NodeChannel* rot_ch = chs.whole ? chs.whole : chs.parts[1];
  const assimp::NodeChannel* pos_ch = chs.whole ? chs.whole : chs.parts[0];
  if (rot_ch->rotations.empty() || (pos_ch && pos_ch->positions.empty()))
    fail("joint '" + joint_name + "' has no keys");
  const assimp::QuatKey& rk =
      rot_ch->rotations[nearest_key(rot_ch->rotations, time, hints.rotation)];
  if (std::abs(rk.time - time) > 1e-3 * ticks_per_frame)
    fail("joint '" + joint_name + "' has no rotation key at frame " + std::to_string(f));
  Transform read;
  read.rotation = Quat(rk.value.w, rk.value.x, rk.value.y, rk.value.z);
  read.translation = model.transform.translation;
  if (pos_ch) {
    const assimp::VectorKey& pk =
        pos_ch->positions[nearest_key(pos_ch->positions, time, hints.position)];
    if (pos_ch->positions.size() > 1 && std::abs(pk.time - time) > 1e-3 * ticks_per_frame)
      fail("joint '" + joint_name + "' has no translation key at frame " + std::to_string(f));
    read.translation = Vec3(pk.value.x, pk.value.y, pk.value.z);
  }
  if (!chs.whole) {
    // Split channels hold the bare Lcl values: apply the Model's pivots, offsets and
    // pre/post rotations (the scale is the intended one: ikfix never writes scale).
    const Transform local =
        local_transform(model.transform, read.translation, read.rotation, model.transform.scaling);
    read.rotation = local.rotation;
    read.translation = local.translation;
  }
  return read;
}

// Compares every frame of patched take `p` as Assimp reads it with the intended clip: local
// rotations of the edited joints, then their world positions and rotations.
void check_take_frames(const ClipDocument& cd, const PatchedTake& p, const assimp::Animation& anim,
                       const std::vector<Channels>& channel_of, const TakeFailure& fail,
                       VerifyReport& report) {
  const core::Skeleton& sk = cd.skeleton;
  const int joints = sk.joint_count();
  const double ticks_per_frame =
      anim.ticks_per_second > 0 ? anim.ticks_per_second / p.timing.fps : 1.0;
  const Transform to_world = p.space.to_world();
  std::vector<Transform> locals(joints), world_intended(joints), world_read(joints);
  std::vector<KeyHints> hints(joints);
  for (int f = 0; f < p.timing.frame_count; ++f) {
    const auto intended = p.edited->frame(f);
    core::forward_kinematics(sk, intended, to_world, world_intended);
    std::copy(intended.begin(), intended.end(), locals.begin());
    const double time = static_cast<double>(f) * ticks_per_frame;  // Assimp starts takes at 0
    for (int j : p.joints) {
      const Transform read =
          read_joint_local(channel_of[j], cd.scene.models[cd.joint_models[j]], time,
                           ticks_per_frame, f, sk.names[j], hints[j], fail);
      const double local_rot = angle_deg(intended[j].rotation, read.rotation);
      report.max_local_rotation_error_deg =
          std::max(report.max_local_rotation_error_deg, local_rot);
      if (!(local_rot <= kVerifyRotationToleranceDeg))
        fail("joint '" + sk.names[j] + "' frame " + std::to_string(f) + ": local rotation off by " +
             format("%.4g deg", local_rot));
      locals[j].rotation = read.rotation;
      locals[j].translation = read.translation;
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

std::atomic<bool> g_assimp_check{false};

}  // namespace

void set_assimp_check(bool on) { g_assimp_check.store(on); }
bool assimp_check() { return g_assimp_check.load(); }

VerifyReport verify_with_assimp(const std::string& bytes, const std::string& file,
                                const ClipDocument& cd, const std::vector<PatchedTake>& patched) {
  VerifyReport report;
  assimp::ImportRequest request;
  request.file = file;
  request.bytes = &bytes;
  request.format_hint = "fbx";
  assimp::Scene s;
  std::string assimp_error;
  if (!assimp::import_scene(request, clip_memory_budget(), s, assimp_error))
    throw InputError(file, "the written FBX does not read back through Assimp (" +
                               one_line(assimp_error) + "); nothing was written");
  for (const PatchedTake& p : patched) {
    if (p.joints.empty()) continue;
    const Take& take = cd.scene.takes[p.take];
    const TakeFailure fail{file, take.name};
    const assimp::Animation* anim =
        find_animation(s, take, p.take, static_cast<int>(cd.scene.takes.size()));
    if (!anim) fail("Assimp finds no animation for it");
    const std::vector<Channels> channel_of = channels_of(*anim, cd.skeleton, p.joints, fail);
    check_take_frames(cd, p, *anim, channel_of, fail, report);
  }
  return report;
}

}  // namespace ikfix::io::fbx
