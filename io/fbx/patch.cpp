#include "io/fbx/patch.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <string_view>
#include <unordered_set>

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
// A new take's scale this close (relative) to the Model's Lcl Scaling writes no scale curve.
constexpr double kSameScale = 1e-6;

// bvh::euler_from_quat_deg composes R = R_a0 * R_a1 * R_a2; FBX order "XYZ" is Rz * Ry * Rx.
std::array<int, 3> composition_axes(RotationOrder order) {
  switch (order) {
    case RotationOrder::xyz:
      return {2, 1, 0};
    case RotationOrder::xzy:
      return {1, 2, 0};
    case RotationOrder::yzx:
      return {0, 2, 1};
    case RotationOrder::yxz:
      return {2, 0, 1};
    case RotationOrder::zxy:
      return {1, 0, 2};
    case RotationOrder::zyx:
      return {0, 1, 2};
    case RotationOrder::spheric_xyz:
      return {2, 1, 0};
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
      throw InputError(file, "edited clip does not match take '" + scene_.takes[take_].name +
                                 "' (" + std::to_string(edited.frame_count) + " frames x " +
                                 std::to_string(edited.joint_count) + " joints, the take has " +
                                 std::to_string(out.timing.frame_count) + " x " +
                                 std::to_string(joints) + ")");
    const int frames = out.timing.frame_count;
    times_.resize(frames);
    for (int f = 0; f < frames; ++f) times_[f] = out.timing.time_of(f);
    shared_ = {};

    for (int j = 0; j < joints; ++j) {
      if (!changed[j]) continue;
      out.joints.push_back(j);
      write_joint(j, edited, false);
    }
    update_definitions();
    return out;
  }

 private:
  // Rotation keys (and translation keys when the translation changed, or `always_translation`)
  // of joint j from `edited`, at times_, in layer_. A scale that differs from the Model's is
  // refused, or with `write_scale` written as Lcl Scaling keys.
  void write_joint(int j, const core::Clip& edited, bool always_translation,
                   bool write_scale = false) {
    const std::string& file = doc_.source_name;
    const int frames = static_cast<int>(times_.size());
    const int model = cd_.joint_models[j];
    const Model& m = scene_.models[model];
    const ModelTransform& mt = m.transform;
    if (const auto it = cd_.inexact.find(take_); it != cd_.inexact.end())
      for (int a = j; a >= 0; a = cd_.skeleton.parents[a])
        if (!it->second[a].empty())
          throw InputError(file, it->second[a] + "; joint '" + m.name + "' cannot be fixed");
    if (mt.rotation_order == RotationOrder::spheric_xyz)
      throw InputError(file, "joint '" + m.name +
                                 "' uses the spherical rotation order, which ikfix cannot write");
    const Quat pre_inv = glm::conjugate(euler_to_quat(mt.pre_rotation, RotationOrder::xyz));
    const Quat post = euler_to_quat(mt.post_rotation, RotationOrder::xyz);

    std::array<std::vector<float>, 3> rot, trans, scl;
    for (auto& v : rot) v.resize(frames);
    for (auto& v : trans) v.resize(frames);
    for (auto& v : scl) v.resize(frames);
    bool translation_changed = false, scale_changed = false;
    Vec3 previous = channel_value(cd_, model, Channel::rotation, layer_, times_[0]);
    const std::vector<Vec3> scales = track(model, Channel::scaling);
    const std::vector<Vec3> stored_translations = track(model, Channel::translation);
    const int parent = cd_.skeleton.parents[j];
    std::vector<Vec3> parent_scales;
    if (mt.inherit_type == InheritType::rrs && parent >= 0)
      parent_scales = track(cd_.joint_models[parent], Channel::scaling);
    for (int f = 0; f < frames; ++f) {
      const core::Transform& local = edited.at(f, j);
      Vec3 s = scales[f];
      const Vec3* parent_scale = parent_scales.empty() ? nullptr : &parent_scales[f];
      if (!write_scale) {
        check_scale(m, f, local, s, parent_scale);
      } else {
        // Lcl Scaling that gives the core's scale (Rrs: the parent's own scale divided out).
        Vec3 wanted = local.scale;
        if (parent_scale && parent_scale->x != 0.0) wanted *= parent_scale->x;
        // (A bind-pose rest decomposes to scales a few 1e-7 off the Models' own: not a change.)
        bool differs = false;
        for (int a = 0; a < 3; ++a)
          differs = differs || std::abs(wanted[a] - s[a]) > kSameScale * (1.0 + std::abs(s[a]));
        if (differs) {
          scale_changed = true;
          s = wanted;
        }
      }
      const Quat q = glm::normalize(local.rotation);
      const Vec3 r = quat_to_euler(pre_inv * q * post, mt.rotation_order, previous);
      previous = r;
      // Translation that puts the joint where the core has it, given its pivots and offsets.
      const Vec3 inner =
          mt.scaling_offset + mt.scaling_pivot - s * mt.scaling_pivot - mt.rotation_pivot;
      const Vec3 t = local.translation - mt.rotation_offset - mt.rotation_pivot - q * inner;
      const Vec3& stored = stored_translations[f];
      for (int a = 0; a < 3; ++a)
        if (std::abs(t[a] - stored[a]) > kSameTranslation * (1.0 + std::abs(stored[a])))
          translation_changed = true;
      for (int a = 0; a < 3; ++a) {
        rot[a][f] = static_cast<float>(r[a]);
        trans[a][f] = static_cast<float>(t[a]);
        scl[a][f] = static_cast<float>(s[a]);
        if (!std::isfinite(rot[a][f]) || !std::isfinite(trans[a][f]) || !std::isfinite(scl[a][f]))
          throw InputError(file, "joint '" + m.name + "' has a non-finite edited value at frame " +
                                     std::to_string(f));
      }
    }
    write_channel(model, Channel::rotation, rot);
    if (translation_changed || always_translation)
      write_channel(model, Channel::translation, trans);
    if (scale_changed) write_channel(model, Channel::scaling, scl);
  }

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
      if (curve.keys->times == times_) {
        // A key at every frame time and nowhere else (baked clips): the values are the keys'
        // (what evaluate_curve returns at a key's own time), without evaluating segments.
        for (std::size_t f = 0; f < times_.size(); ++f) out[f][a] = curve.keys->values[f];
        continue;
      }
      std::size_t cursor = 0;
      for (std::size_t f = 0; f < times_.size(); ++f)
        out[f][a] = evaluate_curve(curve, times_[f], cursor);
    }
    return out;
  }

  // `parent_scale`: the parent's Lcl Scaling when the joint does not inherit it (Rrs).
  void check_scale(const Model& m, int f, const core::Transform& local, const Vec3& fbx_scale,
                   const Vec3* parent_scale) {
    Vec3 expected = fbx_scale;
    if (parent_scale && parent_scale->x != 0.0) expected /= parent_scale->x;
    for (int a = 0; a < 3; ++a)
      if (std::abs(local.scale[a] - expected[a]) > 1e-9 * (1.0 + std::abs(expected[a])))
        throw InputError(doc_.source_name, "joint '" + m.name + "' has a changed scale at frame " +
                                               std::to_string(f) +
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
    if (doc_.encoding == Encoding::ascii)
      return std::vector<std::int32_t>{0, 0, kDefaultWeightsPacked, 0};
    return std::vector<float>{0.0f, 0.0f, std::bit_cast<float>(kDefaultWeightsPacked), 0.0f};
  }

  void set_child(Node& curve, const char* name, std::shared_ptr<const Value> value) {
    if (Node* c = curve.child(name)) {
      if (!c->props.empty()) {
        set_value(c->props[0], std::move(value));
        return;
      }
    }
    Node child = make_node(name);
    child.props.emplace_back();
    set_value(child.props.back(), std::move(value));
    curve.children.push_back(std::move(child));
  }
  void set_child(Node& curve, const char* name, Value value) {
    set_child(curve, name, std::make_shared<const Value>(std::move(value)));
  }

  // The key arrays every curve written at times_ has in common (times, one linear attribute for
  // all keys), made once and shared: the writer then also encodes each once (zlib set-up alone
  // costs more than a small array's compression).
  struct SharedKeys {
    std::shared_ptr<const Value> times, flags, data, ref_count;
  };
  const SharedKeys& shared_keys() {
    if (!shared_.times) {
      shared_.times = std::make_shared<const Value>(times_);
      shared_.flags = std::make_shared<const Value>(
          std::vector<std::int32_t>{static_cast<std::int32_t>(kLinearKey)});
      shared_.data = std::make_shared<const Value>(attr_data());
      shared_.ref_count = std::make_shared<const Value>(
          std::vector<std::int32_t>{static_cast<std::int32_t>(times_.size())});
    }
    return shared_;
  }

  void fill_curve(Node& curve, const std::vector<float>& values) {
    const SharedKeys& keys = shared_keys();
    set_child(curve, "KeyTime", keys.times);
    if (Node* d = curve.child("KeyValueDouble");
        d && !d->props.empty() && !curve.child("KeyValueFloat"))
      set_value(d->props[0], std::vector<double>(values.begin(), values.end()));
    else
      set_child(curve, "KeyValueFloat", values);
    set_child(curve, "KeyAttrFlags", keys.flags);
    set_child(curve, "KeyAttrDataFloat", keys.data);
    set_child(curve, "KeyAttrRefCount", keys.ref_count);
  }

  int create_curve(const std::vector<float>& values) {
    const std::int64_t id = new_id();
    Node curve =
        make_node("AnimationCurve", {id, stored_name(doc_, "", "AnimCurve"), std::string()});
    curve.children.push_back(
        make_node("Default", {static_cast<double>(values.empty() ? 0.0f : values[0])}));
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
      Node node = make_node("AnimationCurveNode",
                            {id, stored_name(doc_, kNodeName[ch], "AnimCurveNode"), std::string()});
      Node props = make_node("Properties70");
      for (int a = 0; a < 3; ++a)
        props.children.push_back(
            make_node("P", {std::string(kAxisNames[a]), std::string("Number"), std::string(),
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
      throw InputError(doc_.source_name,
                       "the " + std::string(kProperty[ch]) + " animation of joint '" +
                           scene_.models[model].name +
                           "' is shared with other objects; ikfix cannot rewrite it alone");
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

  // Object counts in Definitions follow the objects created (and removed).
  void update_definitions() {
    count_definition("AnimationCurve", created_curves_);
    count_definition("AnimationCurveNode", created_curve_nodes_);
    created_curves_ = created_curve_nodes_ = 0;
  }

  // Adds `by` (may be negative) to the Count of ObjectType `type` and to the total Count; a type
  // the file does not list yet gets an ObjectType node (without a property template: readers
  // fall back to the FBX defaults).
  void count_definition(const std::string& type_name, int by) {
    Node* defs = doc_.root.child("Definitions");
    if (!defs || by == 0) return;
    auto bump = [&](Node* count_node) {
      if (!count_node || count_node->props.empty()) return;
      set_value(count_node->props[0],
                static_cast<std::int32_t>(as_int(doc_, count_node->props[0]) + by));
    };
    bump(defs->child("Count"));
    for (Node& type : defs->children)
      if (type.name == "ObjectType" && !type.props.empty() &&
          as_string(doc_, type.props[0]) == type_name) {
        bump(type.child("Count"));
        return;
      }
    if (by < 0) return;
    Node type = make_node("ObjectType", {type_name});
    type.children.push_back(make_node("Count", {static_cast<std::int32_t>(by)}));
    defs->children.push_back(std::move(type));
  }

  // Refuses a clip that does not fit the character, or a take name already taken (without
  // `replace`).
  void check_new_take(const std::string& name, const core::Clip& clip,
                      std::span<const char> animated, bool replace) const {
    const std::string& file = doc_.source_name;
    const int joints = static_cast<int>(cd_.joint_models.size());
    if (clip.joint_count != joints || animated.size() != static_cast<std::size_t>(joints) ||
        clip.locals.size() != static_cast<std::size_t>(joints) * clip.frame_count)
      throw InputError(file, "the clip for the new take has " + std::to_string(clip.joint_count) +
                                 " joints; the character " + std::to_string(joints));
    if (clip.frame_count < 1) throw InputError(file, "the clip for the new take has no frames");
    if (!(clip.fps > 0) || !std::isfinite(clip.fps))
      throw InputError(file, "the clip for the new take has no frame rate");
    if (name.empty()) throw InputError(file, "the new take needs a name");
    if (!replace)
      for (const Take& t : scene_.takes)
        if (t.name == name) throw InputError(file, "the file already has a take '" + name + "'");
  }

  // The animation objects `replace` removes (found before anything is appended, as removal
  // shifts the Objects indices the scene refers to).
  struct AnimationObjects {
    std::vector<char> remove;  // per Objects child
    std::unordered_set<std::int64_t> ids;
    std::map<std::string, int> count;  // per object type
  };

  AnimationObjects animation_objects() {
    AnimationObjects found;
    found.remove.assign(objects().children.size(), 0);
    for (std::size_t k = 0; k < objects().children.size(); ++k) {
      const Node& o = objects().children[k];
      if (o.name != "AnimationStack" && o.name != "AnimationLayer" &&
          o.name != "AnimationCurveNode" && o.name != "AnimationCurve")
        continue;
      if (o.props.empty()) continue;
      found.remove[k] = 1;
      found.ids.insert(as_int(doc_, o.props[0]));
      ++found.count[o.name];
    }
    return found;
  }

  // The new take's stack object with its Local/Reference Start/Stop; returns its id.
  std::int64_t append_stack(const std::string& name, const TakeTiming& timing) {
    const std::int64_t stack_id = new_id();
    Node stack = make_node("AnimationStack",
                           {stack_id, stored_name(doc_, name, "AnimStack"), std::string()});
    Node stack_props = make_node("Properties70");
    for (const char* p : {"LocalStart", "LocalStop", "ReferenceStart", "ReferenceStop"}) {
      const bool start = std::string_view(p).find("Start") != std::string_view::npos;
      stack_props.children.push_back(
          make_node("P", {std::string(p), std::string("KTime"), std::string("Time"), std::string(),
                          start ? timing.start : timing.stop}));
    }
    stack.children.push_back(std::move(stack_props));
    objects().children.push_back(std::move(stack));
    return stack_id;
  }

  // The new take's layer object; returns its id. A layer with a property block: Assimp skips an
  // AnimationLayer without one.
  std::int64_t append_layer() {
    const std::int64_t layer_id = new_id();
    Node layer_node = make_node(
        "AnimationLayer", {layer_id, stored_name(doc_, "BaseLayer", "AnimLayer"), std::string()});
    Node layer_props = make_node("Properties70");
    layer_props.children.push_back(make_node("P", {std::string("Weight"), std::string("Number"),
                                                   std::string(), std::string("A"), 100.0}));
    layer_node.children.push_back(std::move(layer_props));
    objects().children.push_back(std::move(layer_node));
    return layer_id;
  }

  // The stack and its layer, in the document and the scene; they become the take written to.
  void add_stack_and_layer(const std::string& name, const TakeTiming& timing) {
    const std::int64_t stack_id = append_stack(name, timing);
    Take take;
    take.id = stack_id;
    take.object = static_cast<std::uint32_t>(objects().children.size() - 1);
    take.name = name;
    take.local_start = take.reference_start = timing.start;
    take.local_stop = take.reference_stop = timing.stop;
    const std::int64_t layer_id = append_layer();
    Layer layer;
    layer.id = layer_id;
    layer.object = static_cast<std::uint32_t>(objects().children.size() - 1);
    layer.name = "BaseLayer";
    layer.stack = static_cast<int>(scene_.takes.size());
    take.layers.push_back(static_cast<int>(scene_.layers.size()));
    scene_.layers.push_back(layer);
    scene_.takes.push_back(take);
    take_ = static_cast<int>(scene_.takes.size()) - 1;
    layer_ = take.layers[0];
    connect("OO", layer_id, stack_id, nullptr);
    count_definition("AnimationStack", 1);
    count_definition("AnimationLayer", 1);
  }

  // Removes the objects `found` lists, their connections and their Definitions counts. The
  // objects kept move up past the removed ones: the scene's indices follow them (the writer's
  // self-check finds the edited Models by theirs). Removed objects' entries keep stale indices;
  // nothing looks them up.
  void remove_objects(const AnimationObjects& found) {
    const std::vector<char>& remove = found.remove;
    std::vector<Node>& children = objects().children;
    std::vector<std::uint32_t> new_index(children.size());
    std::size_t kept = 0;
    for (std::size_t k = 0; k < children.size(); ++k) {
      new_index[k] = static_cast<std::uint32_t>(kept);
      if (k < remove.size() && remove[k]) continue;
      if (kept != k) children[kept] = std::move(children[k]);  // never self-move: it empties a Node
      ++kept;
    }
    children.resize(kept);
    auto follow = [&](std::uint32_t& object) {
      if (object < new_index.size() && !(object < remove.size() && remove[object]))
        object = new_index[object];
    };
    for (Model& m : scene_.models) follow(m.object);
    for (Take& t : scene_.takes) follow(t.object);
    for (Layer& l : scene_.layers) follow(l.object);
    for (CurveNode& c : scene_.curve_nodes) follow(c.object);
    for (Curve& c : scene_.curves) follow(c.object);
    std::vector<Node>& links = connections().children;
    links.erase(std::remove_if(links.begin(), links.end(),
                               [&](const Node& c) {
                                 return c.name == "C" && c.props.size() >= 3 &&
                                        (found.ids.count(as_int(doc_, c.props[1])) ||
                                         found.ids.count(as_int(doc_, c.props[2])));
                               }),
                links.end());
    for (const auto& [type, count] : found.count) count_definition(type, -count);
  }

 public:
  // A new take `name` (AnimationStack + one AnimationLayer) animating the joints flagged in
  // `animated` from `clip`, keys at the clip's own frame times from 0; with `replace`, every
  // other take and all its animation objects go. See add_take in patch.hpp.
  PatchedTake add(const std::string& name, const core::Clip& clip, std::span<const char> animated,
                  bool replace) {
    check_new_take(name, clip, animated, replace);
    const AnimationObjects removed = replace ? animation_objects() : AnimationObjects{};
    PatchedTake out;
    out.edited = &clip;
    out.timing.fps = clip.fps;
    out.timing.start = 0;
    out.timing.frame_count = clip.frame_count;
    out.timing.stop = out.timing.time_of(clip.frame_count - 1);
    times_.resize(clip.frame_count);
    for (int f = 0; f < clip.frame_count; ++f) times_[f] = out.timing.time_of(f);
    shared_ = {};
    add_stack_and_layer(name, out.timing);
    out.take = take_;
    for (int j = 0; j < static_cast<int>(cd_.joint_models.size()); ++j) {
      if (!animated[j]) continue;
      out.joints.push_back(j);
      write_joint(j, clip, true, true);
    }
    update_definitions();
    add_take_entry(name, out.timing, replace);
    if (replace) remove_objects(removed);
    return out;
  }

 private:
  // The top-level Takes list (when the file has one): an entry for the new take, which becomes
  // Current when it replaces the others.
  void add_take_entry(const std::string& name, const TakeTiming& timing, bool replace) {
    Node* takes = doc_.root.child("Takes");
    if (!takes) return;
    if (replace) {
      auto& list = takes->children;
      list.erase(
          std::remove_if(list.begin(), list.end(), [](const Node& n) { return n.name == "Take"; }),
          list.end());
      if (Node* current = takes->child("Current"); current && !current->props.empty())
        set_value(current->props[0], name);
    }
    Node entry = make_node("Take", {name});
    entry.children.push_back(make_node("FileName", {name + ".tak"}));
    entry.children.push_back(make_node("LocalTime", {timing.start, timing.stop}));
    entry.children.push_back(make_node("ReferenceTime", {timing.start, timing.stop}));
    takes->children.push_back(std::move(entry));
  }

  ClipDocument& cd_;
  Document& doc_;
  Scene& scene_;
  int take_;
  int layer_ = -1;
  std::vector<std::int64_t> times_;
  SharedKeys shared_;  // of times_, made on first use
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

namespace {

// `n` as a deferred node: its name and extent only.
Node stand_in(const Node& n) {
  if (n.begin == kNoSource) return n;  // a created node has no bytes to stand for
  Node out;
  out.name = n.name;
  out.begin = n.begin;
  out.end = n.end;
  out.tail = n.tail;
  out.deferred = true;
  return out;
}

}  // namespace

ClipDocument copy_for_patch(const ClipDocument& cd, std::span<const TakeJoints> takes) {
  const Scene& scene = cd.scene;
  const Node& objects = cd.doc.root.children[scene.objects_index];
  // Objects the patch reads or rewrites are built in the copy.
  std::vector<char> build(objects.children.size(), 0);
  auto build_curves_of = [&](int curve_node) {
    for (int c : scene.curve_nodes[curve_node].curves)
      if (c >= 0) build[scene.curves[c].object] = 1;
  };
  for (const TakeJoints& t : takes) {
    if (t.take < 0 || t.take >= static_cast<int>(scene.takes.size()))
      continue;  // patch_take refuses it
    const Take& take = scene.takes[t.take];
    // take_timing reads the keys of a take that stores no time range.
    if (take.local_stop <= take.local_start && take.reference_stop <= take.reference_start)
      for (int l : take.layers)
        for (int cn : scene.layers[l].curve_nodes) build_curves_of(cn);
    // Every curve of an edited joint's Model, any channel and layer (rewritten, or sampled).
    for (std::size_t j = 0; j < t.changed.size() && j < cd.joint_models.size(); ++j) {
      if (!t.changed[j]) continue;
      for (int ch = 0; ch < 3; ++ch)
        if (auto it = scene.curve_nodes_of.find((std::int64_t{cd.joint_models[j]} << 2) | ch);
            it != scene.curve_nodes_of.end())
          for (int cn : it->second) build_curves_of(cn);
    }
  }
  // Curves still to be decoded (a parent's scale track, say), and the first curve with a KeyVer
  // (created curves copy it).
  bool key_version = false;
  for (const Curve& c : scene.curves) {
    if (!c.keys) build[c.object] = 1;
    if (key_version) continue;
    const Node* kv = objects.children[c.object].child("KeyVer");
    if (kv && !kv->props.empty())
      build[c.object] = 1, key_version = true;  // as Patcher::key_version looks
  }

  ClipDocument out;
  out.doc.source_name = cd.doc.source_name;
  out.doc.encoding = cd.doc.encoding;
  out.doc.version = cd.doc.version;
  out.doc.data = cd.doc.data;
  const Node& root = cd.doc.root;
  out.doc.root.name = root.name;
  out.doc.root.props = root.props;
  out.doc.root.begin = root.begin;
  out.doc.root.end = root.end;
  out.doc.root.tail = root.tail;
  out.doc.root.children.reserve(root.children.size());
  for (std::size_t k = 0; k < root.children.size(); ++k) {
    const Node& top = root.children[k];
    if (k != scene.objects_index && k != scene.connections_index) {
      out.doc.root.children.push_back(top);
      continue;
    }
    // Objects and Connections: the patch appends to them; of their children it changes only
    // the curves built above.
    Node shallow;
    shallow.name = top.name;
    shallow.props = top.props;
    shallow.begin = top.begin;
    shallow.end = top.end;
    shallow.tail = top.tail;
    shallow.children.reserve(top.children.size() + 64);
    for (std::size_t i = 0; i < top.children.size(); ++i)
      shallow.children.push_back(k == scene.objects_index && build[i] ? top.children[i]
                                                                      : stand_in(top.children[i]));
    out.doc.root.children.push_back(std::move(shallow));
  }
  out.scene = cd.scene;
  out.joint_models = cd.joint_models;
  out.model_joints = cd.model_joints;
  out.skeleton = cd.skeleton;
  out.inexact = cd.inexact;
  return out;
}

PatchedTake patch_take(ClipDocument& cd, int take, const core::Clip& edited,
                       std::span<const char> changed) {
  return Patcher(cd, take).run(edited, changed);
}

PatchedTake add_take(ClipDocument& cd, const std::string& name, const core::Clip& clip,
                     std::span<const char> animated, bool replace_takes) {
  return Patcher(cd, -1).add(name, clip, animated, replace_takes);
}

}  // namespace ikfix::io::fbx
