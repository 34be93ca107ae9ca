#include "io/fbx/patch.hpp"

#include <bit>
#include <cmath>

#include "io/bvh/euler.hpp"
#include "io/error.hpp"

namespace ikfix::io::fbx {
namespace {

using core::Quat;
using core::Vec3;

constexpr std::uint32_t kLinearKey = 0x00000004;  // KFCURVE_INTERPOLATION_LINEAR
// KeyAttrDataFloat of a linear key: slopes 0, default weights 0.3333 packed as 3333 | 3333 << 16.
constexpr std::int32_t kDefaultWeightsPacked = 3333 | (3333 << 16);
// A translation differing from the stored one by less than this (relative to 1 + |t|) is kept.
constexpr double kSameTranslation = 1e-9;

// bvh::euler_from_quat_deg composes R = R_a0 * R_a1 * R_a2; FBX order "XYZ" is Rz * Ry * Rx.
std::array<int, 3> composition_axes(RotationOrder order) {
  switch (order) {
    case RotationOrder::xyz: return {2, 1, 0};
    case RotationOrder::xzy: return {1, 2, 0};
    case RotationOrder::yzx: return {0, 2, 1};
    case RotationOrder::yxz: return {2, 0, 1};
    case RotationOrder::zxy: return {1, 0, 2};
    case RotationOrder::zyx: return {0, 1, 2};
    case RotationOrder::spheric_xyz: return {2, 1, 0};
  }
  return {2, 1, 0};
}

class Patcher {
 public:
  Patcher(ClipDocument& cd, int take) : cd_(cd), doc_(cd.doc), scene_(cd.scene), take_(take) {}

  PatchedTake run(const core::Clip& edited, std::span<const char> changed) {
    const std::string& file = doc_.source_name;
    PatchedTake out;
    out.take = take_;
    out.timing = take_timing(cd_, take_);
    out.edited = &edited;
    layer_ = take_layer(cd_, take_);
    const int joints = static_cast<int>(cd_.joint_models.size());
    if (edited.joint_count != joints || edited.frame_count != out.timing.frame_count ||
        changed.size() != static_cast<std::size_t>(joints))
      throw InputError(file, "edited clip does not match take '" + scene_.takes[take_].name + "' (" +
                                 std::to_string(edited.frame_count) + " frames x " + std::to_string(edited.joint_count) +
                                 " joints, the take has " + std::to_string(out.timing.frame_count) + " x " +
                                 std::to_string(joints) + ")");
    const int frames = out.timing.frame_count;
    times_.resize(frames);
    for (int f = 0; f < frames; ++f) times_[f] = out.timing.time_of(f);

    for (int j = 0; j < joints; ++j) {
      if (!changed[j]) continue;
      out.joints.push_back(j);
      const int model = cd_.joint_models[j];
      const Model& m = scene_.models[model];
      const ModelTransform& mt = m.transform;
      if (const auto it = cd_.inexact.find(take_); it != cd_.inexact.end())
        for (int a = j; a >= 0; a = cd_.skeleton.parents[a])
          if (!it->second[a].empty()) throw InputError(file, it->second[a] + "; joint '" + m.name + "' cannot be fixed");
      if (mt.rotation_order == RotationOrder::spheric_xyz)
        throw InputError(file, "joint '" + m.name + "' uses the spherical rotation order, which ikfix cannot write");
      const Quat pre_inv = glm::conjugate(euler_to_quat(mt.pre_rotation, RotationOrder::xyz));
      const Quat post = euler_to_quat(mt.post_rotation, RotationOrder::xyz);

      std::array<std::vector<float>, 3> rot, trans;
      for (auto& v : rot) v.resize(frames);
      for (auto& v : trans) v.resize(frames);
      bool translation_changed = false;
      Vec3 previous = channel_value(cd_, model, Channel::rotation, layer_, times_[0]);
      const std::vector<Vec3> scales = track(model, Channel::scaling);
      const std::vector<Vec3> stored_translations = track(model, Channel::translation);
      const int parent = cd_.skeleton.parents[j];
      std::vector<Vec3> parent_scales;
      if (mt.inherit_type == InheritType::rrs && parent >= 0) parent_scales = track(cd_.joint_models[parent], Channel::scaling);
      for (int f = 0; f < frames; ++f) {
        const core::Transform& local = edited.at(f, j);
        const Vec3& s = scales[f];
        check_scale(m, f, local, s, parent_scales.empty() ? nullptr : &parent_scales[f]);
        const Quat q = glm::normalize(local.rotation);
        const Vec3 r = quat_to_euler(pre_inv * q * post, mt.rotation_order, previous);
        previous = r;
        // Translation that puts the joint where the core has it, given its pivots and offsets.
        const Vec3 inner = mt.scaling_offset + mt.scaling_pivot - s * mt.scaling_pivot - mt.rotation_pivot;
        const Vec3 t = local.translation - mt.rotation_offset - mt.rotation_pivot - q * inner;
        const Vec3& stored = stored_translations[f];
        for (int a = 0; a < 3; ++a)
          if (std::abs(t[a] - stored[a]) > kSameTranslation * (1.0 + std::abs(stored[a]))) translation_changed = true;
        for (int a = 0; a < 3; ++a) {
          rot[a][f] = static_cast<float>(r[a]);
          trans[a][f] = static_cast<float>(t[a]);
          if (!std::isfinite(rot[a][f]) || !std::isfinite(trans[a][f]))
            throw InputError(file, "joint '" + m.name + "' has a non-finite edited value at frame " + std::to_string(f));
        }
      }
      write_channel(model, Channel::rotation, rot);
      if (translation_changed) write_channel(model, Channel::translation, trans);
    }
    update_definitions();
    return out;
  }

 private:
  // A Model's Lcl Translation / Rotation / Scaling at every frame of the take.
  std::vector<Vec3> track(int model, Channel channel) {
    const int cn = curve_node_of(scene_, model, channel, layer_);
    std::vector<Vec3> out(times_.size(), channel_value(cd_, model, channel, layer_, times_[0]));
    if (cn < 0) return out;
    const CurveNode& node = scene_.curve_nodes[cn];
    for (int a = 0; a < 3; ++a) {
      if (node.curves[a] < 0) continue;
      decode_curve(doc_, scene_, node.curves[a]);
      const Curve& curve = scene_.curves[node.curves[a]];
      std::size_t cursor = 0;
      for (std::size_t f = 0; f < times_.size(); ++f) out[f][a] = evaluate_curve(curve, times_[f], cursor);
    }
    return out;
  }

  // `parent_scale`: the parent's Lcl Scaling when the joint does not inherit it (Rrs).
  void check_scale(const Model& m, int f, const core::Transform& local, const Vec3& fbx_scale, const Vec3* parent_scale) {
    Vec3 expected = fbx_scale;
    if (parent_scale && parent_scale->x != 0.0) expected /= parent_scale->x;
    for (int a = 0; a < 3; ++a)
      if (std::abs(local.scale[a] - expected[a]) > 1e-9 * (1.0 + std::abs(expected[a])))
        throw InputError(doc_.source_name, "joint '" + m.name + "' has a changed scale at frame " + std::to_string(f) +
                                               "; ikfix writes rotations and translations only");
  }

  Node& objects() { return doc_.root.children[scene_.objects_index]; }
  Node& connections() { return doc_.root.children[scene_.connections_index]; }

  std::int64_t new_id() { return ++scene_.max_object_id; }

  // KeyVer as the file's other curves have it.
  std::int32_t key_version() {
    for (const Curve& c : scene_.curves)
      if (const Node* kv = objects().children[c.object].child("KeyVer"); kv && !kv->props.empty())
        return static_cast<std::int32_t>(as_int(doc_, kv->props[0]));
    return 4008;
  }

  Value attr_data() const {
    if (doc_.encoding == Encoding::ascii) return std::vector<std::int32_t>{0, 0, kDefaultWeightsPacked, 0};
    return std::vector<float>{0.0f, 0.0f, std::bit_cast<float>(kDefaultWeightsPacked), 0.0f};
  }

  void set_child(Node& curve, const char* name, Value value) {
    if (Node* c = curve.child(name)) {
      if (!c->props.empty()) {
        set_value(c->props[0], std::move(value));
        return;
      }
    }
    curve.children.push_back(make_node(name, {std::move(value)}));
  }

  void fill_curve(Node& curve, const std::vector<float>& values) {
    const int n = static_cast<int>(values.size());
    set_child(curve, "KeyTime", times_);
    if (Node* d = curve.child("KeyValueDouble"); d && !d->props.empty() && !curve.child("KeyValueFloat"))
      set_value(d->props[0], std::vector<double>(values.begin(), values.end()));
    else
      set_child(curve, "KeyValueFloat", values);
    set_child(curve, "KeyAttrFlags", std::vector<std::int32_t>{static_cast<std::int32_t>(kLinearKey)});
    set_child(curve, "KeyAttrDataFloat", attr_data());
    set_child(curve, "KeyAttrRefCount", std::vector<std::int32_t>{n});
  }

  int create_curve(const std::vector<float>& values) {
    const std::int64_t id = new_id();
    Node curve = make_node("AnimationCurve", {id, stored_name(doc_, "", "AnimCurve"), std::string()});
    curve.children.push_back(make_node("Default", {static_cast<double>(values.empty() ? 0.0f : values[0])}));
    curve.children.push_back(make_node("KeyVer", {key_version()}));
    fill_curve(curve, values);
    objects().children.push_back(std::move(curve));
    Curve c;
    c.id = id;
    c.object = static_cast<std::uint32_t>(objects().children.size() - 1);
    c.users = 1;
    scene_.curves.push_back(std::move(c));
    ++created_curves_;
    return static_cast<int>(scene_.curves.size() - 1);
  }

  void connect(const char* kind, std::int64_t child, std::int64_t parent, const char* property) {
    std::vector<Value> props{std::string(kind), child, parent};
    if (property) props.emplace_back(std::string(property));
    connections().children.push_back(make_node("C", std::move(props)));
  }

  void write_channel(int model, Channel channel, const std::array<std::vector<float>, 3>& values) {
    static const char* const kAxisNames[3] = {"d|X", "d|Y", "d|Z"};
    static const char* const kProperty[3] = {"Lcl Translation", "Lcl Rotation", "Lcl Scaling"};
    static const char* const kNodeName[3] = {"T", "R", "S"};
    const int ch = static_cast<int>(channel);
    int cn = curve_node_of(scene_, model, channel, layer_);
    if (cn < 0) {
      // A new curve node on the Model, in the take's layer.
      const std::int64_t id = new_id();
      Node node = make_node("AnimationCurveNode", {id, stored_name(doc_, kNodeName[ch], "AnimCurveNode"), std::string()});
      Node props = make_node("Properties70");
      for (int a = 0; a < 3; ++a)
        props.children.push_back(make_node("P", {std::string(kAxisNames[a]), std::string("Number"), std::string(),
                                                 std::string("A"), static_cast<double>(values[a][0])}));
      node.children.push_back(std::move(props));
      objects().children.push_back(std::move(node));
      CurveNode c;
      c.id = id;
      c.object = static_cast<std::uint32_t>(objects().children.size() - 1);
      c.model = model;
      c.channel = channel;
      c.layer = layer_;
      scene_.curve_nodes.push_back(c);
      cn = static_cast<int>(scene_.curve_nodes.size() - 1);
      scene_.layers[layer_].curve_nodes.push_back(cn);
      scene_.curve_nodes_of[(std::int64_t{model} << 2) | ch].push_back(cn);
      connect("OO", id, scene_.layers[layer_].id, nullptr);
      connect("OP", id, scene_.models[model].id, kProperty[ch]);
      ++created_curve_nodes_;
    }
    // A curve node shared with another Model or take cannot be rewritten for this one alone.
    int users = 0;
    for (const auto& [key, list] : scene_.curve_nodes_of)
      for (int other : list) users += other == cn;
    if (users > 1)
      throw InputError(doc_.source_name, "the " + std::string(kProperty[ch]) + " animation of joint '" +
                                             scene_.models[model].name + "' is shared with other objects; ikfix cannot rewrite it alone");
    for (int a = 0; a < 3; ++a) {
      const int c = scene_.curve_nodes[cn].curves[a];
      if (c >= 0 && scene_.curves[c].users <= 1) {
        fill_curve(objects().children[scene_.curves[c].object], values[a]);
        scene_.curves[c].keys.reset();
        continue;
      }
      const int created = create_curve(values[a]);
      scene_.curve_nodes[cn].curves[a] = created;
      if (c >= 0) --scene_.curves[c].users;
      connect("OP", scene_.curves[created].id, scene_.curve_nodes[cn].id, kAxisNames[a]);
    }
  }

  // Object counts in Definitions follow the objects created.
  void update_definitions() {
    if (created_curves_ == 0 && created_curve_nodes_ == 0) return;
    Node* defs = doc_.root.child("Definitions");
    if (!defs) return;
    auto bump = [&](Node* count_node, int by) {
      if (!count_node || count_node->props.empty() || by == 0) return;
      set_value(count_node->props[0], static_cast<std::int32_t>(as_int(doc_, count_node->props[0]) + by));
    };
    bump(defs->child("Count"), created_curves_ + created_curve_nodes_);
    for (Node& type : defs->children) {
      if (type.name != "ObjectType" || type.props.empty()) continue;
      const std::string name = as_string(doc_, type.props[0]);
      if (name == "AnimationCurve") bump(type.child("Count"), created_curves_);
      if (name == "AnimationCurveNode") bump(type.child("Count"), created_curve_nodes_);
    }
    created_curves_ = created_curve_nodes_ = 0;
  }

  ClipDocument& cd_;
  Document& doc_;
  Scene& scene_;
  int take_;
  int layer_ = -1;
  std::vector<std::int64_t> times_;
  int created_curves_ = 0;
  int created_curve_nodes_ = 0;
};

}  // namespace

core::Vec3 quat_to_euler(const core::Quat& q, RotationOrder order, const core::Vec3& reference) {
  const std::array<int, 3> axes = composition_axes(order);
  const std::array<double, 3> ref{reference[axes[0]], reference[axes[1]], reference[axes[2]]};
  const std::array<double, 3> deg = bvh::euler_from_quat_deg(q, axes, ref);
  Vec3 out(0.0);
  for (int k = 0; k < 3; ++k) out[axes[k]] = deg[k];
  return out;
}

PatchedTake patch_take(ClipDocument& cd, int take, const core::Clip& edited, std::span<const char> changed) {
  return Patcher(cd, take).run(edited, changed);
}

}  // namespace ikfix::io::fbx
