#include "io/fbx/scene.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>

#include "io/error.hpp"

namespace ikfix::io::fbx {
namespace {

using core::Quat;
using core::Vec3;

// Key attribute flags (FBX KFCURVE_*).
constexpr std::uint32_t kInterpolationConstant = 0x00000002;
constexpr std::uint32_t kInterpolationLinear = 0x00000004;
constexpr std::uint32_t kInterpolationCubic = 0x00000008;
constexpr std::uint32_t kConstantNext = 0x00000100;
constexpr std::uint32_t kWeightedRight = 0x01000000;
constexpr std::uint32_t kWeightedNextLeft = 0x02000000;
constexpr double kDefaultWeight = 1.0 / 3.0;

// Name -> P node of one Properties70 block.
using PropertyMap = std::unordered_map<std::string, const Node*>;

void collect_properties(const Document& doc, const Node* props70, PropertyMap& out) {
  if (!props70) return;
  for (const Node& p : props70->children)
    if (p.name == "P" && !p.props.empty()) out.emplace(as_string(doc, p.props[0]), &p);
}

class PropertyLookup {
 public:
  PropertyLookup(const Document& doc, const Node& object, const PropertyMap* template_props)
      : doc_(doc), template_(template_props) {
    collect_properties(doc, object.child("Properties70"), own_);
  }
  const Node* find(const std::string& name) const {
    if (auto it = own_.find(name); it != own_.end()) return it->second;
    if (template_)
      if (auto it = template_->find(name); it != template_->end()) return it->second;
    return nullptr;
  }
  double number(const std::string& name, double fallback) const {
    const Node* p = find(name);
    if (!p || p->props.size() < 5) return fallback;
    return as_double(doc_, p->props[4]);
  }
  std::int64_t integer(const std::string& name, std::int64_t fallback) const {
    const Node* p = find(name);
    if (!p || p->props.size() < 5) return fallback;
    return static_cast<std::int64_t>(std::llround(as_double(doc_, p->props[4])));
  }
  Vec3 vector(const std::string& name, const Vec3& fallback) const {
    const Node* p = find(name);
    if (!p || p->props.size() < 7) return fallback;
    return Vec3(as_double(doc_, p->props[4]), as_double(doc_, p->props[5]),
                as_double(doc_, p->props[6]));
  }

 private:
  const Document& doc_;
  const PropertyMap* template_;
  PropertyMap own_;
};

Quat axis_quat(int axis, double degrees) {
  const double half = degrees * core::kPi / 360.0;
  const double s = std::sin(half);
  return Quat(std::cos(half), axis == 0 ? s : 0.0, axis == 1 ? s : 0.0, axis == 2 ? s : 0.0);
}

}  // namespace

double frame_rate_of_time_mode(int time_mode, double custom_frame_rate) {
  switch (time_mode) {
    case 1:
      return 120.0;
    case 2:
      return 100.0;
    case 3:
      return 60.0;
    case 4:
      return 50.0;
    case 5:
      return 48.0;
    case 6:
      return 30.0;
    case 7:
      return 30.0;  // 30 drop-frame
    case 8:
      return 30000.0 / 1001.0;  // NTSC drop-frame
    case 9:
      return 30000.0 / 1001.0;  // NTSC full frame
    case 10:
      return 25.0;  // PAL
    case 11:
      return 24.0;
    case 12:
      return 1000.0;
    case 13:
      return 24000.0 / 1001.0;  // film full frame
    case 14:
      return custom_frame_rate > 0 ? custom_frame_rate : 0.0;
    case 15:
      return 96.0;
    case 16:
      return 72.0;
    case 17:
      return 60000.0 / 1001.0;
    case 18:
      return 120000.0 / 1001.0;
    default:
      return 0.0;
  }
}

Quat euler_to_quat(const Vec3& deg, RotationOrder order) {
  const Quat x = axis_quat(0, deg.x), y = axis_quat(1, deg.y), z = axis_quat(2, deg.z);
  switch (order) {
    case RotationOrder::xyz:
      return z * y * x;
    case RotationOrder::xzy:
      return y * z * x;
    case RotationOrder::yzx:
      return x * z * y;
    case RotationOrder::yxz:
      return z * x * y;
    case RotationOrder::zxy:
      return y * x * z;
    case RotationOrder::zyx:
      return x * y * z;
    case RotationOrder::spheric_xyz:
      return z * y * x;
  }
  return z * y * x;
}

core::Transform local_transform(const ModelTransform& m, const Vec3& t, const Vec3& r_deg,
                                const Vec3& s) {
  return local_transform(m, t, euler_to_quat(r_deg, m.rotation_order), s);
}

core::Transform local_transform(const ModelTransform& m, const Vec3& t, const Quat& r,
                                const Vec3& s) {
  core::Transform out;
  const bool has_pre = m.pre_rotation != Vec3(0.0);
  const bool has_post = m.post_rotation != Vec3(0.0);
  Quat q = r;
  if (has_pre) q = euler_to_quat(m.pre_rotation, RotationOrder::xyz) * q;
  if (has_post) q = q * glm::conjugate(euler_to_quat(m.post_rotation, RotationOrder::xyz));
  out.rotation = q;
  out.scale = s;
  // x -> T + Roff + Rp + Q (Soff + Sp - S Sp - Rp + S x)
  const Vec3 inner = m.scaling_offset + m.scaling_pivot - s * m.scaling_pivot - m.rotation_pivot;
  out.translation = t + m.rotation_offset + m.rotation_pivot;
  if (inner != Vec3(0.0)) out.translation += q * inner;
  return out;
}

namespace {

// The top-level sections read_scene reads (the first of each name).
struct Sections {
  const Node* global = nullptr;
  const Node* definitions = nullptr;
  const Node* objects = nullptr;
  const Node* connections = nullptr;
};

// Finds the sections and records the Objects and Connections indices in `scene`; throws when
// either is missing.
Sections find_sections(const Document& doc, Scene& scene) {
  Sections s;
  for (std::uint32_t k = 0; k < doc.root.children.size(); ++k) {
    const Node& n = doc.root.children[k];
    if (n.name == "GlobalSettings" && !s.global)
      s.global = &n;
    else if (n.name == "Definitions" && !s.definitions)
      s.definitions = &n;
    else if (n.name == "Objects" && !s.objects)
      s.objects = &n, scene.objects_index = k;
    else if (n.name == "Connections" && !s.connections)
      s.connections = &n, scene.connections_index = k;
  }
  if (!s.objects) throw InputError(doc.source_name, "no Objects section (not a scene file?)");
  if (!s.connections)
    throw InputError(doc.source_name, "no Connections section (not a scene file?)");
  return s;
}

// Property templates of the object types whose properties are read here (a mesh file's
// Geometry and Material templates hold hundreds more).
struct Templates {
  PropertyMap model, stack;
  bool has_model = false, has_stack = false;
};

Templates read_templates(const Document& doc, const Node* definitions) {
  Templates templates;
  if (!definitions) return templates;
  for (const Node& type : definitions->children) {
    if (type.name != "ObjectType" || type.props.empty()) continue;
    const std::string type_name = as_string(doc, type.props[0]);
    if (type_name != "Model" && type_name != "AnimationStack") continue;
    const bool model = type_name == "Model";
    (model ? templates.has_model : templates.has_stack) = true;
    for (const Node& t : type.children)
      if (t.name == "PropertyTemplate")
        collect_properties(doc, t.child("Properties70"), model ? templates.model : templates.stack);
  }
  return templates;
}

// Axes, unit and frame rate from GlobalSettings (FBX defaults when absent); 30 fps, flagged,
// when the time mode names no rate.
void read_global_settings(const Document& doc, const Node* global, Scene& scene) {
  if (global) {
    const PropertyLookup g(doc, *global, nullptr);
    scene.up_axis = static_cast<int>(g.integer("UpAxis", 1));
    scene.up_axis_sign = static_cast<int>(g.integer("UpAxisSign", 1));
    scene.front_axis = static_cast<int>(g.integer("FrontAxis", 2));
    scene.front_axis_sign = static_cast<int>(g.integer("FrontAxisSign", 1));
    scene.coord_axis = static_cast<int>(g.integer("CoordAxis", 0));
    scene.coord_axis_sign = static_cast<int>(g.integer("CoordAxisSign", 1));
    scene.unit_scale_factor = g.number("UnitScaleFactor", 1.0);
    scene.time_mode = static_cast<int>(g.integer("TimeMode", 0));
    scene.custom_frame_rate = g.number("CustomFrameRate", -1.0);
  }
  scene.fps = frame_rate_of_time_mode(scene.time_mode, scene.custom_frame_rate);
  if (!(scene.fps > 0)) {
    scene.fps = 30.0;
    scene.fps_defaulted = true;
  }
}

// What an object id names: its kind and its index in the scene's list of that kind.
enum class Kind : std::uint8_t { model, stack, layer, curve_node, curve, cluster };
using ObjectIndex = std::unordered_map<std::int64_t, std::pair<Kind, int>>;

std::string object_name_of(const Document& doc, const Node& o) {
  return o.props.size() > 1 ? object_name(as_string(doc, o.props[1])) : std::string();
}

// The model's transform properties (FBX defaults where neither it nor the template has one).
ModelTransform read_model_transform(const PropertyLookup& p) {
  ModelTransform t;
  t.translation = p.vector("Lcl Translation", Vec3(0.0));
  t.rotation = p.vector("Lcl Rotation", Vec3(0.0));
  t.scaling = p.vector("Lcl Scaling", Vec3(1.0));
  t.pre_rotation = p.vector("PreRotation", Vec3(0.0));
  t.post_rotation = p.vector("PostRotation", Vec3(0.0));
  t.rotation_offset = p.vector("RotationOffset", Vec3(0.0));
  t.rotation_pivot = p.vector("RotationPivot", Vec3(0.0));
  t.scaling_offset = p.vector("ScalingOffset", Vec3(0.0));
  t.scaling_pivot = p.vector("ScalingPivot", Vec3(0.0));
  const std::int64_t order = p.integer("RotationOrder", 0);
  t.rotation_order =
      order >= 0 && order <= 6 ? static_cast<RotationOrder>(order) : RotationOrder::xyz;
  const std::int64_t inherit = p.integer("InheritType", 0);
  t.inherit_type =
      inherit >= 0 && inherit <= 2 ? static_cast<InheritType>(inherit) : InheritType::rrss;
  return t;
}

Model read_model(const Document& doc, const Node& o, std::uint32_t k, std::int64_t id,
                 const PropertyMap* model_template) {
  Model m;
  m.id = id;
  m.object = k;
  m.name = object_name_of(doc, o);
  m.type = o.props.size() > 2 ? as_string(doc, o.props[2]) : std::string();
  m.transform = read_model_transform(PropertyLookup(doc, o, model_template));
  return m;
}

Take read_take(const Document& doc, const Node& o, std::uint32_t k, std::int64_t id,
               const PropertyMap* stack_template) {
  Take t;
  t.id = id;
  t.object = k;
  t.name = object_name_of(doc, o);
  const PropertyLookup p(doc, o, stack_template);
  t.local_start = p.integer("LocalStart", 0);
  t.local_stop = p.integer("LocalStop", 0);
  t.reference_start = p.integer("ReferenceStart", 0);
  t.reference_stop = p.integer("ReferenceStop", 0);
  return t;
}

CurveNode read_curve_node(const Document& doc, const Node& o, std::uint32_t k, std::int64_t id) {
  CurveNode c;
  c.id = id;
  c.object = k;
  // d|X, d|Y, d|Z: scanned directly (the first of each counts, as in a PropertyLookup),
  // without building a lookup table for three properties.
  const Node* props70 = o.child("Properties70");
  if (!props70) return c;
  bool seen[3] = {false, false, false};
  for (const Node& prop : props70->children) {
    if (prop.name != "P" || prop.props.empty()) continue;
    const std::string name = as_string(doc, prop.props[0]);
    const int a = name == "d|X" ? 0 : name == "d|Y" ? 1 : name == "d|Z" ? 2 : -1;
    if (a < 0 || seen[a]) continue;
    seen[a] = true;
    c.defaults[a] = prop.props.size() < 5 ? 0.0 : as_double(doc, prop.props[4]);
    c.has_defaults = true;
  }
  return c;
}

// Adds object `o` (the k-th of Objects, id `id`) to the scene when it is of a kind read here.
void read_object(const Document& doc, const Node& o, std::uint32_t k, std::int64_t id,
                 const Templates& templates, Scene& scene, ObjectIndex& by_id) {
  if (o.name == "Model") {
    by_id[id] = {Kind::model, static_cast<int>(scene.models.size())};
    scene.model_by_id[id] = static_cast<int>(scene.models.size());
    scene.models.push_back(
        read_model(doc, o, k, id, templates.has_model ? &templates.model : nullptr));
  } else if (o.name == "AnimationStack") {
    by_id[id] = {Kind::stack, static_cast<int>(scene.takes.size())};
    scene.takes.push_back(
        read_take(doc, o, k, id, templates.has_stack ? &templates.stack : nullptr));
  } else if (o.name == "AnimationLayer") {
    Layer l;
    l.id = id;
    l.object = k;
    l.name = object_name_of(doc, o);
    by_id[id] = {Kind::layer, static_cast<int>(scene.layers.size())};
    scene.layers.push_back(std::move(l));
  } else if (o.name == "AnimationCurveNode") {
    by_id[id] = {Kind::curve_node, static_cast<int>(scene.curve_nodes.size())};
    scene.curve_nodes.push_back(read_curve_node(doc, o, k, id));
  } else if (o.name == "Deformer" && o.props.size() > 2 &&
             as_string(doc, o.props[2]) == "Cluster") {
    // Only a cluster with weights moves vertices (Maya exports empty ones for every joint).
    const Node* indexes = o.child("Indexes");
    if (indexes && !indexes->props.empty() && array_size(doc, indexes->props[0]) > 0)
      by_id[id] = {Kind::cluster, -1};
  } else if (o.name == "AnimationCurve") {
    Curve c;
    c.id = id;
    c.object = k;
    by_id[id] = {Kind::curve, static_cast<int>(scene.curves.size())};
    scene.curves.push_back(std::move(c));
  }
}

// The objects with an integer id, indexed by id; `scene.max_object_id` is the largest id seen.
ObjectIndex read_objects(const Document& doc, const Node& objects, const Templates& templates,
                         Scene& scene) {
  ObjectIndex by_id;
  by_id.reserve(objects.children.size());
  for (std::uint32_t k = 0; k < objects.children.size(); ++k) {
    const Node& o = objects.children[k];
    if (o.props.empty() || (o.props[0].type != 'L' && o.props[0].type != 'I')) continue;
    const std::int64_t id = as_int(doc, o.props[0]);
    scene.max_object_id = std::max(scene.max_object_id, id);
    read_object(doc, o, k, id, templates, scene, by_id);
  }
  return by_id;
}

using Ref = std::pair<Kind, int>;

// An object-object connection: cluster deforms model, model parent, curve node in layer, layer
// in stack (the first of each counts).
void connect_objects(Scene& scene, Ref child, Ref parent) {
  const auto [ck, ci] = child;
  const auto [pk, pi] = parent;
  if (ck == Kind::model && pk == Kind::cluster) {
    scene.models[ci].deforms = true;
  } else if (ck == Kind::model && pk == Kind::model) {
    if (scene.models[ci].parent < 0) scene.models[ci].parent = pi;
  } else if (ck == Kind::curve_node && pk == Kind::layer) {
    if (scene.curve_nodes[ci].layer < 0) {
      scene.curve_nodes[ci].layer = pi;
      scene.layers[pi].curve_nodes.push_back(ci);
    }
  } else if (ck == Kind::layer && pk == Kind::stack) {
    if (scene.layers[ci].stack < 0) {
      scene.layers[ci].stack = pi;
      scene.takes[pi].layers.push_back(ci);
    }
  }
}

// An object-property connection: a curve node animating a model's Lcl property, or a curve
// driving one axis (d|X, d|Y, d|Z) of a curve node.
void connect_property(Scene& scene, Ref child, Ref parent, const std::string& prop) {
  const auto [ck, ci] = child;
  const auto [pk, pi] = parent;
  if (ck == Kind::curve_node && pk == Kind::model) {
    CurveNode& cn = scene.curve_nodes[ci];
    if (prop == "Lcl Translation")
      cn.channel = Channel::translation;
    else if (prop == "Lcl Rotation")
      cn.channel = Channel::rotation;
    else if (prop == "Lcl Scaling")
      cn.channel = Channel::scaling;
    else
      return;
    cn.model = pi;
  } else if (ck == Kind::curve && pk == Kind::curve_node) {
    const int axis = prop == "d|X" ? 0 : prop == "d|Y" ? 1 : prop == "d|Z" ? 2 : -1;
    if (axis >= 0) scene.curve_nodes[pi].curves[axis] = ci;
    ++scene.curves[ci].users;
  }
}

// Applies the connections between objects both read here.
void read_connections(const Document& doc, const Node& connections, const ObjectIndex& by_id,
                      Scene& scene) {
  for (const Node& c : connections.children) {
    if (c.name != "C" || c.props.size() < 3) continue;
    const std::string kind = as_string(doc, c.props[0]);
    const auto child = by_id.find(as_int(doc, c.props[1]));
    const auto parent = by_id.find(as_int(doc, c.props[2]));
    if (child == by_id.end() || parent == by_id.end()) continue;
    if (kind == "OO")
      connect_objects(scene, child->second, parent->second);
    else if (kind == "OP" && c.props.size() >= 4)
      connect_property(scene, child->second, parent->second, as_string(doc, c.props[3]));
  }
}

// A model cycle would hang forward kinematics: refuse it.
void refuse_model_cycles(const Document& doc, const Scene& scene) {
  for (std::size_t m = 0; m < scene.models.size(); ++m) {
    int p = scene.models[m].parent;
    for (std::size_t steps = 0; p >= 0; ++steps) {
      if (steps > scene.models.size())
        throw InputError(doc.source_name,
                         "the Model hierarchy has a cycle through '" + scene.models[m].name + "'");
      p = scene.models[p].parent;
    }
  }
}

void index_curve_nodes(Scene& scene) {
  for (std::size_t k = 0; k < scene.curve_nodes.size(); ++k) {
    const CurveNode& cn = scene.curve_nodes[k];
    if (cn.model >= 0)
      scene.curve_nodes_of[(std::int64_t{cn.model} << 2) | static_cast<int>(cn.channel)].push_back(
          static_cast<int>(k));
  }
}

}  // namespace

Scene read_scene(const Document& doc) {
  Scene scene;
  const Sections sections = find_sections(doc, scene);
  const Templates templates = read_templates(doc, sections.definitions);
  read_global_settings(doc, sections.global, scene);
  const ObjectIndex by_id = read_objects(doc, *sections.objects, templates, scene);
  read_connections(doc, *sections.connections, by_id, scene);
  refuse_model_cycles(doc, scene);
  index_curve_nodes(scene);
  return scene;
}

void decode_curve(const Document& doc, Scene& scene, int index, KeyTimeCache* key_times) {
  Curve& c = scene.curves[index];
  if (c.keys) return;
  auto keys = std::make_shared<CurveKeys>();
  CurveKeys& k_ = *keys;
  const Node& o = doc.root.children[scene.objects_index].children[c.object];
  const std::string where = "AnimationCurve " + std::to_string(c.id);
  std::vector<double> attr_data;
  std::vector<std::int64_t> attr_flags, attr_refs;
  bool ascii_data = doc.encoding == Encoding::ascii;
  for (const Node& k : o.children) {
    if (k.props.empty()) continue;
    if (k.name == "Default")
      c.default_value = as_double(doc, k.props[0]);
    else if (k.name == "KeyTime") {
      const Property& p = k.props[0];
      if (key_times && !p.value && p.offset != kNoSource && doc.encoding == Encoding::binary) {
        // Binary arrays as stored (header and zlib stream): equal bytes, equal times.
        const std::string_view stored = std::string_view(doc.data).substr(p.offset, p.size);
        auto [it, added] = key_times->try_emplace(stored);
        if (added) it->second = as_ints(doc, p);
        k_.times = it->second;
      } else {
        k_.times = as_ints(doc, p);
      }
    } else if (k.name == "KeyValueFloat" || k.name == "KeyValueDouble") {
      const auto v = as_doubles(doc, k.props[0]);
      k_.values.assign(v.begin(), v.end());
    } else if (k.name == "KeyAttrFlags")
      attr_flags = as_ints(doc, k.props[0]);
    else if (k.name == "KeyAttrRefCount")
      attr_refs = as_ints(doc, k.props[0]);
    else if (k.name == "KeyAttrDataFloat") {
      if (!ascii_data && !k.props[0].value && k.props[0].type == 'f') {
        // Binary: weights and velocities are packed integers stored in the float's bits.
        const Value v = decode(doc, k.props[0]);
        const auto& f = std::get<std::vector<float>>(v);
        attr_data.resize(f.size());
        for (std::size_t n = 0; n < f.size(); ++n)
          attr_data[n] =
              (n % 4 >= 2) ? static_cast<double>(std::bit_cast<std::int32_t>(f[n])) : f[n];
      } else {
        attr_data = as_doubles(doc, k.props[0]);
      }
    }
  }
  const std::size_t n = k_.times.size();
  if (k_.values.size() != n)
    throw InputError(doc.source_name, where + " has " + std::to_string(n) + " key times but " +
                                          std::to_string(k_.values.size()) + " values");
  for (std::size_t k = 1; k < n; ++k)
    if (k_.times[k] < k_.times[k - 1])
      throw InputError(doc.source_name, where + " has key times out of order");
  k_.flags.assign(n, kInterpolationLinear);
  k_.right_slope.assign(n, 0.0f);
  k_.next_left_slope.assign(n, 0.0f);
  k_.right_weight.assign(n, static_cast<float>(kDefaultWeight));
  k_.next_left_weight.assign(n, static_cast<float>(kDefaultWeight));
  std::size_t key = 0;
  for (std::size_t a = 0; a < attr_flags.size() && key < n; ++a) {
    const std::int64_t count =
        a < attr_refs.size() ? attr_refs[a] : static_cast<std::int64_t>(n - key);
    const std::uint32_t flags = static_cast<std::uint32_t>(attr_flags[a]);
    double data[4] = {0, 0, 0, 0};
    for (int d = 0; d < 4; ++d)
      if (4 * a + d < attr_data.size()) data[d] = attr_data[4 * a + d];
    const std::uint32_t packed = static_cast<std::uint32_t>(static_cast<std::int64_t>(data[2]));
    const double w_right = (flags & kWeightedRight) ? (packed & 0xffffu) / 9999.0 : kDefaultWeight;
    const double w_left =
        (flags & kWeightedNextLeft) ? ((packed >> 16) & 0xffffu) / 9999.0 : kDefaultWeight;
    for (std::int64_t r = 0; r < count && key < n; ++r, ++key) {
      k_.flags[key] = flags;
      k_.right_slope[key] = static_cast<float>(data[0]);
      k_.next_left_slope[key] = static_cast<float>(data[1]);
      k_.right_weight[key] = static_cast<float>(w_right);
      k_.next_left_weight[key] = static_cast<float>(w_left);
    }
  }
  c.keys = std::move(keys);
}

namespace {

double evaluate_segment(const CurveKeys& c, std::size_t lo, std::int64_t time);

}  // namespace

double evaluate_curve(const Curve& curve, std::int64_t time) {
  if (!curve.keys) return curve.default_value;
  const CurveKeys& c = *curve.keys;
  const std::size_t n = c.times.size();
  if (n == 0) return curve.default_value;
  if (time <= c.times.front()) return c.values.front();
  if (time >= c.times.back()) return c.values.back();
  const std::size_t hi = static_cast<std::size_t>(
      std::upper_bound(c.times.begin(), c.times.end(), time) - c.times.begin());
  return evaluate_segment(c, hi - 1, time);
}

double evaluate_curve(const Curve& curve, std::int64_t time, std::size_t& cursor) {
  if (!curve.keys) return curve.default_value;
  const CurveKeys& c = *curve.keys;
  const std::size_t n = c.times.size();
  if (n == 0) return curve.default_value;
  if (time <= c.times.front()) return c.values.front();
  if (time >= c.times.back()) return c.values.back();
  std::size_t lo = cursor < n - 1 ? cursor : 0;
  if (c.times[lo] > time) lo = 0;
  while (lo + 1 < n && c.times[lo + 1] <= time) ++lo;
  cursor = lo;
  return evaluate_segment(c, lo, time);
}

namespace {

double evaluate_segment(const CurveKeys& c, std::size_t lo, std::int64_t time) {
  const std::size_t hi = lo + 1;
  const double v0 = c.values[lo], v1 = c.values[hi];
  if (time == c.times[lo]) return v0;
  const std::uint32_t flags = c.flags[lo];
  // Differences of ascending ticks taken unsigned: exact wherever they fit in 64 bits, where a
  // signed difference of keys at -2^63 and 2^63-1 overflows.
  const auto ticks_after = [](std::int64_t later, std::int64_t earlier) {
    return static_cast<double>(static_cast<std::uint64_t>(later) -
                               static_cast<std::uint64_t>(earlier));
  };
  const double span = ticks_after(c.times[hi], c.times[lo]);
  const double s = ticks_after(time, c.times[lo]) / span;
  if (flags & kInterpolationConstant) return (flags & kConstantNext) ? v1 : v0;
  if (!(flags & kInterpolationCubic)) return v0 + (v1 - v0) * s;
  // Cubic Bezier through (t0, v0), (t0 + a dt, v0 + m0 a dt), (t1 - b dt, v1 - m1 b dt), (t1, v1).
  const double dt = span / static_cast<double>(kTicksPerSecond);
  const double a = std::clamp<double>(c.right_weight[lo], 0.0, 1.0);
  const double b = std::clamp<double>(c.next_left_weight[lo], 0.0, 1.0);
  const double p1 = v0 + c.right_slope[lo] * a * dt;
  const double p2 = v1 - c.next_left_slope[lo] * b * dt;
  double u = s;
  if (std::abs(a - kDefaultWeight) > 1e-6 || std::abs(b - kDefaultWeight) > 1e-6) {
    // Solve x(u) = s for the Bezier parameter (x is monotonic for weights in [0, 1]).
    double lo_u = 0.0, hi_u = 1.0;
    for (int it = 0; it < 60; ++it) {
      u = 0.5 * (lo_u + hi_u);
      const double iu = 1.0 - u;
      const double x = 3 * iu * iu * u * a + 3 * iu * u * u * (1.0 - b) + u * u * u;
      if (x < s)
        lo_u = u;
      else
        hi_u = u;
    }
  }
  const double iu = 1.0 - u;
  return iu * iu * iu * v0 + 3 * iu * iu * u * p1 + 3 * iu * u * u * p2 + u * u * u * v1;
}

}  // namespace

}  // namespace ikfix::io::fbx
