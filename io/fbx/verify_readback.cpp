#include "io/fbx/verify_readback.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <unordered_map>

#include "core/fk.hpp"
#include "io/error.hpp"
#include "io/fbx/reader.hpp"
#include "io/fbx/scene.hpp"

namespace ikfix::io::fbx {
namespace {

using core::Quat;
using core::Transform;
using core::Vec3;

// The angle between two rotations is 2 asin(|v|) of the (normalised) relative quaternion v + w:
// comparing |v| with sin(tolerance / 2) is the same test as comparing the angle with the
// tolerance, without a trigonometric call per joint and frame; only maxima become degrees.
double half_angle_sine(const Quat& a, const Quat& b) {
  const Quat r = glm::conjugate(a) * b;
  const double v2 = r.x * r.x + r.y * r.y + r.z * r.z;
  return std::min(1.0, std::sqrt(v2 / (v2 + r.w * r.w)));
}

double degrees_of(double half_sine) { return 2.0 * std::asin(half_sine) * 180.0 / core::kPi; }

std::string format(const char* fmt, double a, double b = 0) {
  char buf[128];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
}

// The take of the written scene that patched take `p` is: the same name (a take added by
// add_take with replace_takes moves), else the same index.
int find_take(const Scene& written, const Scene& intended, int take) {
  const std::string& name = intended.takes[take].name;
  for (std::size_t t = 0; t < written.takes.size(); ++t)
    if (written.takes[t].name == name) return static_cast<int>(t);
  return take < static_cast<int>(written.takes.size()) ? take : -1;
}

// One channel (T, R or S) of an edited joint as the written file gives it.
struct ChannelSource {
  Vec3 fixed{0.0};
  std::array<int, 3> curves{-1, -1, -1};
  std::array<std::size_t, 3> cursor{0, 0, 0};
  std::array<std::size_t, 3> key{0, 0, 0};  // next key to match a frame time
  bool used = true;  // false: the channel cannot change what is compared (scale without pivots)
};

// Decodes curve `c` of the written scene, or - when its node is one the patch left alone and its
// bytes in the written file equal the original's - shares the keys the load already decoded
// (the same bytes decode to the same keys: a leg joint's translation curves, where the fix
// only turned it).
void decode_or_share(Document& doc, Scene& scene, int c, const ClipDocument& original,
                     const std::unordered_map<std::int64_t, int>& original_curve_of_id,
                     KeyTimeCache& key_times) {
  Curve& curve = scene.curves[c];
  if (auto it = original_curve_of_id.find(curve.id); it != original_curve_of_id.end()) {
    const Curve& before = original.scene.curves[it->second];
    const Node& was =
        original.doc.root.children[original.scene.objects_index].children[before.object];
    const Node& now = doc.root.children[scene.objects_index].children[curve.object];
    if (before.keys && !is_changed(was) && was.begin != kNoSource && now.begin != kNoSource &&
        was.end - was.begin == now.end - now.begin &&
        std::string_view(original.doc.data).substr(was.begin, was.end - was.begin) ==
            std::string_view(doc.data).substr(now.begin, now.end - now.begin)) {
      curve.keys = before.keys;
      return;
    }
  }
  parse_children(doc, doc.root.children[scene.objects_index].children[curve.object]);
  decode_curve(doc, scene, c, &key_times);
}

// The written bytes as a Document: only what the scene and the edited joints need is built -
// their Models' properties here, their curves in decode_or_share; every record is still checked.
// (The writer adds and removes no Model and keeps the Objects' order: the edited Models are
// where the patched document has them.)
Document parse_written(std::string bytes, const std::string& file, const ClipDocument& cd,
                       const std::vector<PatchedTake>& patched) {
  std::vector<std::uint32_t> models;
  for (const PatchedTake& p : patched)
    for (int j : p.joints) models.push_back(cd.scene.models[cd.joint_models[j]].object);
  std::sort(models.begin(), models.end());
  models.erase(std::unique(models.begin(), models.end()), models.end());
  if (models.empty()) models.push_back(~std::uint32_t{0});  // no Model to sample: build none
  try {
    return parse(std::move(bytes), file, ParseDepth::scene, models);
  } catch (const InputError& e) {
    throw InputError(file,
                     "the written FBX does not read back (" + e.cause() + "); nothing was written");
  }
}

// The scene of the written file; a scene that does not read back refuses the write.
Scene read_written_scene(const Document& doc, const std::string& file) {
  try {
    return read_scene(doc);
  } catch (const InputError& e) {
    throw InputError(file,
                     "the written FBX does not read back (" + e.cause() + "); nothing was written");
  }
}

// Refuses the write: take `take_name` does not read back as intended.
struct TakeFailure {
  const std::string& file;
  const std::string& take_name;

  [[noreturn]] void operator()(const std::string& what) const {
    throw InputError(file, "written take '" + take_name + "' does not read back as intended: " +
                               what + "; nothing was written");
  }
};

// What the checks of one written document share.
struct Readback {
  Document& doc;
  Scene& scene;
  const ClipDocument& cd;
  const std::unordered_map<std::int64_t, int>& original_curve_of_id;
  KeyTimeCache& key_times;
};

// How the written file gives one edited joint: per channel its source, and its Model's static
// transform without Pre/PostRotation, with those two as quaternions, so they are not rebuilt
// from Euler angles at every frame (local_transform applies them in this order: Pre * R *
// Post^-1).
struct JointReadback {
  std::array<ChannelSource, 3> sources;
  ModelTransform bare;
  Quat pre = core::identity_quat(), post_inverse = core::identity_quat();
  bool has_pre = false, has_post = false;
};

// The curve node animating channel `ch` of Model m in the take's layers (at most one: the
// patcher writes single-layer takes only), or -1.
int curve_node_of(const Scene& scene, int m, int ch, const std::vector<int>& layers,
                  const std::string& joint_name, const TakeFailure& fail) {
  int found = -1;
  const auto it = scene.curve_nodes_of.find((std::int64_t{m} << 2) | ch);
  if (it == scene.curve_nodes_of.end()) return found;
  for (int cn : it->second)
    if (std::find(layers.begin(), layers.end(), scene.curve_nodes[cn].layer) != layers.end()) {
      if (found >= 0) fail("joint '" + joint_name + "' is animated by two curve nodes");
      found = cn;
    }
  return found;
}

// Channel `ch` of Model m: its curve node's defaults and (decoded) curves, else the static
// property already in `s.fixed`. A rotation must have a curve node with three curves.
void find_channel_source(const Readback& rb, int m, int ch, const std::vector<int>& layers,
                         const std::string& joint_name, const TakeFailure& fail, ChannelSource& s) {
  const int found = curve_node_of(rb.scene, m, ch, layers, joint_name, fail);
  if (found < 0) {
    if (ch == 1) fail("joint '" + joint_name + "' has no rotation curve node");
    return;
  }
  const CurveNode& node = rb.scene.curve_nodes[found];
  for (int a = 0; a < 3; ++a) {
    if (node.has_defaults) s.fixed[a] = node.defaults[a];
    s.curves[a] = node.curves[a];
    if (node.curves[a] >= 0)
      decode_or_share(rb.doc, rb.scene, node.curves[a], rb.cd, rb.original_curve_of_id,
                      rb.key_times);
    else if (ch == 1)
      fail("joint '" + joint_name + "' has no rotation curve on axis " + std::string(1, "XYZ"[a]));
  }
}

// The read-back plan of edited joint j in the take whose layers are `layers`.
JointReadback prepare_joint(const Readback& rb, int j, const std::vector<int>& layers,
                            const TakeFailure& fail) {
  const core::Skeleton& sk = rb.cd.skeleton;
  const int m = rb.cd.joint_models[j];
  const Model& model = rb.scene.models[m];
  if (model.name != sk.names[j])
    fail("model " + std::to_string(m) + " is '" + model.name + "', not joint '" + sk.names[j] +
         "'");
  JointReadback r;
  const ModelTransform& t = model.transform;
  const Vec3 statics[3] = {t.translation, t.rotation, t.scaling};
  r.bare = t;
  r.bare.pre_rotation = r.bare.post_rotation = Vec3(0.0);
  r.has_pre = t.pre_rotation != Vec3(0.0);
  r.has_post = t.post_rotation != Vec3(0.0);
  if (r.has_pre) r.pre = euler_to_quat(t.pre_rotation, RotationOrder::xyz);
  if (r.has_post)
    r.post_inverse = glm::conjugate(euler_to_quat(t.post_rotation, RotationOrder::xyz));
  // Scale moves no translation or rotation of a Model without scaling pivot and offset,
  // and the patcher never writes it: then its curves need no decoding.
  r.sources[2].used = t.scaling_offset != Vec3(0.0) || t.scaling_pivot != Vec3(0.0);
  for (int ch = 0; ch < 3; ++ch) {
    ChannelSource& s = r.sources[ch];
    s.fixed = statics[ch];
    if (s.used) find_channel_source(rb, m, ch, layers, sk.names[j], fail, s);
  }
  return r;
}

// Channel `ch` (0: T, 1: R in degrees, 2: S) of a joint at key time `time` (frame f). Written
// rotation curves hold a key at every frame: the value read is the key's, not an interpolation.
// (A translation curve is rewritten only where the core moved the joint or its pivots need it;
// either way its value is compared.)
Vec3 read_channel(const Scene& scene, ChannelSource& s, int ch, std::int64_t time, int f,
                  const std::string& joint_name, const TakeFailure& fail) {
  Vec3 v = s.fixed;
  for (int a = 0; a < 3; ++a) {
    if (s.curves[a] < 0) continue;
    const Curve& curve = scene.curves[s.curves[a]];
    if (ch == 1) {
      const auto& times = curve.keys->times;
      std::size_t& k = s.key[a];
      while (k < times.size() && times[k] < time) ++k;
      if (k == times.size() || times[k] != time)
        fail("joint '" + joint_name + "' has no rotation key at frame " + std::to_string(f));
      v[a] = curve.keys->values[k];
    } else {
      v[a] = evaluate_curve(curve, time, s.cursor[a]);
    }
  }
  return v;
}

// The joint's local transform as the written file gives it at key time `time`.
Transform read_local(const Scene& scene, JointReadback& r, std::int64_t time, int f,
                     const std::string& joint_name, const TakeFailure& fail) {
  Vec3 v[3];
  for (int ch = 0; ch < 3; ++ch)
    v[ch] = read_channel(scene, r.sources[ch], ch, time, f, joint_name, fail);
  // (Most joints have neither: multiplying by the identity would change nothing.)
  Quat q = euler_to_quat(v[1], r.bare.rotation_order);
  if (r.has_pre) q = r.pre * q;
  if (r.has_post) q = q * r.post_inverse;
  return local_transform(r.bare, v[0], q, v[2]);
}

// Largest errors seen, as sines of half angles.
struct ReadbackMaxima {
  double local = 0.0, world = 0.0;
};

// Compares every frame of patched take `p` as read back with the intended clip: each edited
// joint's local rotation, and its world position and rotation (FK over the edited joints and
// their ancestors only: a leg fix edits a third of a mocap skeleton's joints).
void check_frames(const Readback& rb, const PatchedTake& p, std::vector<JointReadback>& joints,
                  const TakeFailure& fail, double rotation_tolerance, VerifyReport& report,
                  ReadbackMaxima& maxima) {
  const core::Skeleton& sk = rb.cd.skeleton;
  const Transform to_world = p.space.to_world();
  const core::JointSubset subset(sk, p.joints);
  std::vector<Transform> locals(sk.joint_count()), world_intended(subset.size()),
      world_read(subset.size());
  for (int f = 0; f < p.timing.frame_count; ++f) {
    const std::int64_t time = p.timing.time_of(f);
    const auto intended = p.edited->frame(f);
    core::forward_kinematics(subset, intended, to_world, world_intended);
    for (int j : subset.joints) locals[j] = intended[j];
    for (int j : p.joints) {
      const Transform local = read_local(rb.scene, joints[j], time, f, sk.names[j], fail);
      const double local_rot = half_angle_sine(intended[j].rotation, local.rotation);
      maxima.local = std::max(maxima.local, local_rot);
      if (!(local_rot <= rotation_tolerance))
        fail("joint '" + sk.names[j] + "' frame " + std::to_string(f) + ": local rotation off by " +
             format("%.4g deg", degrees_of(local_rot)));
      locals[j].rotation = local.rotation;
      locals[j].translation = local.translation;
      ++report.keys_checked;
    }
    core::forward_kinematics(subset, locals, to_world, world_read);
    for (int j : p.joints) {
      const int slot = subset.slot_of[j];
      const double dp =
          glm::length(world_read[slot].translation - world_intended[slot].translation);
      const double dr = half_angle_sine(world_read[slot].rotation, world_intended[slot].rotation);
      report.max_position_error_m = std::max(report.max_position_error_m, dp);
      maxima.world = std::max(maxima.world, dr);
      if (!(dp <= kVerifyPositionTolerance) || !(dr <= rotation_tolerance))
        fail("joint '" + sk.names[j] + "' frame " + std::to_string(f) + ": world position off by " +
             format("%.3g mm", dp * 1000.0) + ", rotation by " +
             format("%.3g deg", degrees_of(dr)));
    }
  }
}

VerifyReport check(Document& doc, const std::string& file, const ClipDocument& cd,
                   const std::vector<PatchedTake>& patched) {
  VerifyReport report;
  const double rotation_tolerance = std::sin(kVerifyRotationToleranceDeg * core::kPi / 360.0);
  ReadbackMaxima maxima;
  Scene scene = read_written_scene(doc, file);
  // The writer adds and removes no Model: joints keep their Scene::models index.
  if (scene.models.size() != cd.scene.models.size())
    throw InputError(file, "the written FBX reads back with " +
                               std::to_string(scene.models.size()) + " models instead of " +
                               std::to_string(cd.scene.models.size()) + "; nothing was written");
  KeyTimeCache key_times;  // refers to doc.data: declared after doc
  std::unordered_map<std::int64_t, int> original_curve_of_id;
  for (std::size_t c = 0; c < cd.scene.curves.size(); ++c)
    original_curve_of_id[cd.scene.curves[c].id] = static_cast<int>(c);
  const Readback rb{doc, scene, cd, original_curve_of_id, key_times};
  for (const PatchedTake& p : patched) {
    if (p.joints.empty()) continue;
    const TakeFailure fail{file, cd.scene.takes[p.take].name};
    const int take = find_take(scene, cd.scene, p.take);
    if (take < 0) fail("the written file has no such take");
    const std::vector<int>& layers = scene.takes[take].layers;
    std::vector<JointReadback> joints(cd.skeleton.joint_count());
    for (int j : p.joints) joints[j] = prepare_joint(rb, j, layers, fail);
    check_frames(rb, p, joints, fail, rotation_tolerance, report, maxima);
  }
  report.max_local_rotation_error_deg = degrees_of(maxima.local);
  report.max_rotation_error_deg = degrees_of(maxima.world);
  return report;
}

}  // namespace

VerifyReport verify_readback(const std::string& bytes, const std::string& file,
                             const ClipDocument& cd, const std::vector<PatchedTake>& patched) {
  Document doc = parse_written(bytes, file, cd, patched);
  return check(doc, file, cd, patched);
}

VerifyReport verify_readback_borrowing(std::string& bytes, const std::string& file,
                                       const ClipDocument& cd,
                                       const std::vector<PatchedTake>& patched) {
  Document doc = parse_written(std::move(bytes), file, cd, patched);
  // The reader never changes Document::data: hand the bytes back however the check ends.
  struct GiveBack {
    std::string& to;
    Document& from;
    ~GiveBack() { to = std::move(from.data); }
  } give_back{bytes, doc};
  return check(doc, file, cd, patched);
}

}  // namespace ikfix::io::fbx
