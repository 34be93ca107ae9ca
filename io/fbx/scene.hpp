#pragma once
// What an FBX node tree means for animation: models and their hierarchy, transform properties
// (with the Definitions' property templates as defaults), takes (AnimationStack), layers,
// curve nodes and curves, all linked through Connections. Indices point into the Scene's own
// vectors; `node` paths locate each object in Document::root so the patcher can change it.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/math.hpp"
#include "io/fbx/document.hpp"

namespace ikfix::io::fbx {

// FBX time unit: 46186158000 ticks per second.
inline constexpr std::int64_t kTicksPerSecond = 46186158000;

// FBX RotationOrder enum: 0 XYZ, 1 XZY, 2 YZX, 3 YXZ, 4 ZXY, 5 ZYX, 6 spheric XYZ. "XYZ" applies
// X first: R = Rz * Ry * Rx (column vectors).
enum class RotationOrder : int { xyz = 0, xzy, yzx, yxz, zxy, zyx, spheric_xyz };
// FBX InheritType: 0 RrSs (child rotation before parent scale, no shear), 1 RSrs (plain matrix
// product), 2 Rrs (the parent's own scale is not inherited, Maya's segment scale compensate).
enum class InheritType : int { rrss = 0, rsrs = 1, rrs = 2 };

// The static transform properties of a Model (angles in degrees, file units).
struct ModelTransform {
  core::Vec3 translation{0.0};
  core::Vec3 rotation{0.0};
  core::Vec3 scaling{1.0};
  core::Vec3 pre_rotation{0.0};
  core::Vec3 post_rotation{0.0};
  core::Vec3 rotation_offset{0.0};
  core::Vec3 rotation_pivot{0.0};
  core::Vec3 scaling_offset{0.0};
  core::Vec3 scaling_pivot{0.0};
  RotationOrder rotation_order = RotationOrder::xyz;
  InheritType inherit_type = InheritType::rrss;
};

// Index path from Document::root to a node: root.children[path[0]].children[path[1]]...
using NodePath = std::vector<std::uint32_t>;

struct Model {
  std::int64_t id = 0;
  std::string name;          // without "Model::"
  std::string type;          // "LimbNode", "Limb", "Root", "Null", "Mesh", ...
  int parent = -1;           // index into Scene::models, -1 under the scene root
  bool deforms = false;      // linked to a skin Cluster with weights (a bone that moves a mesh)
  std::uint32_t object = 0;  // index into Objects' children
  ModelTransform transform;
};

// Transform channel a curve node drives.
enum class Channel : int { translation = 0, rotation = 1, scaling = 2 };

// The decoded keys of one curve (shared between copies of a Scene: decoding is the costly part).
struct CurveKeys {
  std::vector<std::int64_t> times;  // ticks, ascending
  std::vector<float> values;
  // Per key: interpolation of the segment that starts there and its tangents.
  std::vector<std::uint32_t> flags;
  std::vector<float> right_slope, next_left_slope;  // value units per second
  std::vector<float> right_weight, next_left_weight;
};

struct Curve {
  std::int64_t id = 0;
  std::uint32_t object = 0;  // index into Objects' children
  double default_value = 0.0;
  std::shared_ptr<const CurveKeys> keys;  // null until decode_curve
  int users = 0;  // curve nodes it is connected to (a shared curve is never rewritten in place)
};

struct CurveNode {
  std::int64_t id = 0;
  std::uint32_t object = 0;
  int model = -1;  // the Model it drives, -1 if none (or not a transform channel)
  Channel channel = Channel::translation;
  int layer = -1;                         // index into Scene::layers
  std::array<int, 3> curves{-1, -1, -1};  // Scene::curves per axis (d|X, d|Y, d|Z), -1 if none
  std::array<double, 3> defaults{0.0, 0.0, 0.0};
  bool has_defaults = false;
};

struct Layer {
  std::int64_t id = 0;
  std::uint32_t object = 0;
  std::string name;
  int stack = -1;
  std::vector<int> curve_nodes;
};

struct Take {
  std::int64_t id = 0;
  std::uint32_t object = 0;
  std::string name;  // without "AnimStack::"
  std::int64_t local_start = 0, local_stop = 0;
  std::int64_t reference_start = 0, reference_stop = 0;
  std::vector<int> layers;  // in connection order
};

struct Scene {
  // GlobalSettings.
  int up_axis = 1, up_axis_sign = 1, front_axis = 2, front_axis_sign = 1, coord_axis = 0,
      coord_axis_sign = 1;
  double unit_scale_factor = 1.0;  // centimetres per file unit
  int time_mode = 0;
  double custom_frame_rate = -1.0;
  double fps = 30.0;           // from time_mode (and custom_frame_rate)
  bool fps_defaulted = false;  // TimeMode 0 (default) or an unknown mode: 30 assumed

  std::vector<Model> models;  // file order
  std::vector<Take> takes;
  std::vector<Layer> layers;
  std::vector<CurveNode> curve_nodes;
  std::vector<Curve> curves;  // keys decoded on demand (decode_curve)

  std::uint32_t objects_index = 0;      // Objects in root.children
  std::uint32_t connections_index = 0;  // Connections in root.children
  std::unordered_map<std::int64_t, int> model_by_id;
  std::int64_t max_object_id = 0;
  // Per model and channel, the curve node driving it in each layer: key = (model << 2 | channel).
  std::unordered_map<std::int64_t, std::vector<int>> curve_nodes_of;
};

// Interprets `doc`. Throws InputError when GlobalSettings, Objects or Connections are missing
// or malformed (dangling ids are ignored, as other readers do).
Scene read_scene(const Document& doc);

// Decoded binary KeyTime arrays by their stored bytes (which stay in the Document): curves of one
// take usually share their times, and inflating them once saves most of a curve's decoding.
using KeyTimeCache = std::unordered_map<std::string_view, std::vector<std::int64_t>>;

// Decodes the key arrays of curve `index` (KeyTime, KeyValueFloat, KeyAttr*) if not done yet,
// binary KeyTime arrays through `key_times` when given.
void decode_curve(const Document& doc, Scene& scene, int index, KeyTimeCache* key_times = nullptr);

// Value of a decoded curve at `time` (ticks): constant, linear or cubic (Hermite/Bezier with the
// stored slopes and weights) between keys, the end values outside.
double evaluate_curve(const Curve& curve, std::int64_t time);
// Same, for times visited in increasing order: `cursor` (start at 0) remembers the last segment.
double evaluate_curve(const Curve& curve, std::int64_t time, std::size_t& cursor);

// Frames per second of an FBX TimeMode (0 when the mode is unknown or "default").
double frame_rate_of_time_mode(int time_mode, double custom_frame_rate);

// Rotation of Euler angles (degrees) applied in `order` ("XYZ": X first).
core::Quat euler_to_quat(const core::Vec3& degrees, RotationOrder order);

// A model's local transform as the core sees it (translation, rotation quaternion, scale),
// from its T/R/S values and its static pivots, offsets and pre/post rotations:
// local = T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S * Sp^-1.
core::Transform local_transform(const ModelTransform& props, const core::Vec3& t,
                                const core::Vec3& r_deg, const core::Vec3& s);
// Same, with the Lcl Rotation given as a quaternion (already in the Model's rotation order).
core::Transform local_transform(const ModelTransform& props, const core::Vec3& t,
                                const core::Quat& r, const core::Vec3& s);

}  // namespace ikfix::io::fbx
