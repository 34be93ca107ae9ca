#include "io/fbx/clip.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <sstream>

#include "io/end_leaves.hpp"
#include "io/error.hpp"
#include "io/fbx/reader.hpp"
#include "io/matrix_trs.hpp"
#include "io/memory_budget.hpp"

namespace ikfix::io::fbx {
namespace {

using core::Transform;
using core::Vec3;

// Scales this close to uniform (relative) count as uniform: the shear a parent's non-uniform
// scale would add moves children by at most this fraction of their offset (0.1 mm per metre).
constexpr double kUniformScale = 1e-4;

bool is_bone_type(const std::string& type) {
  return type == "LimbNode" || type == "Limb" || type == "Root";
}

bool uniform(const Vec3& s) {
  const double m = std::max({std::abs(s.x), std::abs(s.y), std::abs(s.z)});
  return std::abs(s.x - s.y) <= kUniformScale * m && std::abs(s.x - s.z) <= kUniformScale * m;
}

const char* inherit_name(InheritType t) {
  switch (t) {
    case InheritType::rrss:
      return "RrSs";
    case InheritType::rsrs:
      return "RSrs";
    case InheritType::rrs:
      return "Rrs";
  }
  return "?";
}

// World matrices (file units and axes) of the Models a BindPose lists: the pose the skin was
// bound in, i.e. the character's rest pose. The first BindPose that lists a Model wins.
std::unordered_map<std::int64_t, glm::dmat4> bind_pose(const Document& doc, const Scene& scene) {
  std::unordered_map<std::int64_t, glm::dmat4> out;
  const Node& objects = doc.root.children[scene.objects_index];
  for (const Node& o : objects.children) {
    if (o.name != "Pose" || o.props.size() < 3 || as_string(doc, o.props[2]) != "BindPose")
      continue;
    for (const Node& pn : o.children) {
      if (pn.name != "PoseNode") continue;
      const Node* id = pn.child("Node");
      const Node* matrix = pn.child("Matrix");
      if (!id || !matrix || id->props.empty() || matrix->props.empty()) continue;
      const std::vector<double> m = as_doubles(doc, matrix->props[0]);
      if (m.size() != 16) continue;
      glm::dmat4 g;
      for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) g[c][r] = m[static_cast<std::size_t>(4 * c + r)];
      out.emplace(as_int(doc, id->props[0]), g);
    }
  }
  return out;
}

// Rest locals from the bind pose: a listed joint's rest is its bind world matrix relative to its
// parent's; an unlisted joint keeps its Model's own transform (below a listed parent's bind
// pose). Joints whose bind pose has shear or a non-finite value keep theirs too.
void apply_bind_pose(ClipDocument& cd) {
  const auto bind = bind_pose(cd.doc, cd.scene);
  if (bind.empty()) return;
  core::Skeleton& sk = cd.skeleton;
  std::vector<glm::dmat4> world(sk.names.size());
  for (std::size_t j = 0; j < sk.names.size(); ++j) {
    const int p = sk.parents[j];
    const glm::dmat4 parent = p >= 0 ? world[static_cast<std::size_t>(p)] : glm::dmat4(1.0);
    const auto it = bind.find(cd.scene.models[cd.joint_models[j]].id);
    if (it == bind.end()) {
      world[j] = parent * trs_matrix(sk.rest[j]);
      continue;
    }
    Transform local;
    const double shear = decompose_trs(glm::inverse(parent) * it->second, local);
    if (shear > 1e-4 || !core::is_finite(local.translation) || !core::is_finite(local.rotation) ||
        !core::is_finite(local.scale)) {
      world[j] = parent * trs_matrix(sk.rest[j]);
      continue;
    }
    sk.rest[j] = local;
    world[j] = it->second;
  }
}

std::shared_ptr<ClipDocument> build(Document doc, JointSet joint_set) {
  auto cd = std::make_shared<ClipDocument>();
  cd->doc = std::move(doc);
  cd->scene = read_scene(cd->doc);
  const Scene& scene = cd->scene;
  const int n = static_cast<int>(scene.models.size());
  // With skins, the bones that deform them (rig controls and Blender's "_end" leaf bones are
  // left out: they move no mesh and would only mislead leg detection); without, every bone.
  // A character (JointSet::armature) keeps every bone and folds the "_end" leaves into end sites.
  bool skinned = false;
  for (const Model& m : scene.models) skinned = skinned || m.deforms;
  const bool armature = joint_set == JointSet::armature;
  std::vector<char> is_joint(n, 0);
  for (int m = 0; m < n; ++m)
    if ((armature && (scene.models[m].deforms || is_bone_type(scene.models[m].type))) ||
        (!armature && (skinned ? scene.models[m].deforms : is_bone_type(scene.models[m].type))))
      for (int a = m; a >= 0 && !is_joint[a]; a = scene.models[a].parent) is_joint[a] = 1;
  // Parents before children: depth-first from the roots, children in file order.
  std::vector<std::vector<int>> children(n);
  std::vector<int> roots;
  for (int m = 0; m < n; ++m) {
    if (!is_joint[m]) continue;
    const int p = scene.models[m].parent;
    if (p >= 0)
      children[p].push_back(m);
    else
      roots.push_back(m);
  }
  cd->model_joints.assign(n, -1);
  // Depth first without recursion (a hierarchy may be as deep as it has joints).
  std::vector<int> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    const int m = stack.back();
    stack.pop_back();
    cd->model_joints[m] = static_cast<int>(cd->joint_models.size());
    cd->joint_models.push_back(m);
    stack.insert(stack.end(), children[m].rbegin(), children[m].rend());
  }
  if (cd->joint_models.empty())
    throw InputError(cd->doc.source_name,
                     "no skeleton: the file has no bones (Models of type LimbNode, Limb or Root)");

  core::Skeleton& sk = cd->skeleton;
  for (int m : cd->joint_models) {
    const Model& model = scene.models[m];
    sk.names.push_back(model.name);
    sk.parents.push_back(model.parent >= 0 ? cd->model_joints[model.parent] : -1);
    Transform rest = local_transform(model.transform, model.transform.translation,
                                     model.transform.rotation, model.transform.scaling);
    if (model.transform.inherit_type == InheritType::rrs && model.parent >= 0) {
      const Vec3 ps = scene.models[model.parent].transform.scaling;
      if (uniform(ps) && ps.x != 0.0) rest.scale /= ps.x;
    }
    sk.rest.push_back(rest);
    sk.end_sites.emplace_back(std::nullopt);
  }
  if (!armature) {
    // A kept leaf whose only child bone is a left-out "_end" leaf gets that tip as its end site,
    // as the armature's folding does: a 2-bone leg's ankle is only known from its shin's tip.
    std::vector<int> bone_children(n, 0), only_child(n, -1);
    for (int m = 0; m < n; ++m) {
      const int p = scene.models[m].parent;
      if (p < 0 || !(scene.models[m].deforms || is_bone_type(scene.models[m].type))) continue;
      ++bone_children[p];
      only_child[p] = m;
    }
    for (int j = 0; j < sk.joint_count(); ++j) {
      const int m = cd->joint_models[j];
      const int leaf = only_child[m];
      if (bone_children[m] != 1 || is_joint[leaf] || bone_children[leaf] != 0 ||
          !is_end_leaf_name(scene.models[leaf].name))
        continue;
      const ModelTransform& t = scene.models[leaf].transform;
      sk.end_sites[j] = local_transform(t, t.translation, t.rotation, t.scaling).translation;
    }
  }
  if (armature) {
    apply_bind_pose(*cd);
    const std::vector<int> kept = fold_end_leaves(sk);
    std::vector<int> models;
    for (int j : kept) models.push_back(cd->joint_models[j]);
    cd->joint_models = std::move(models);
    cd->model_joints.assign(n, -1);
    for (std::size_t j = 0; j < cd->joint_models.size(); ++j)
      cd->model_joints[cd->joint_models[j]] = static_cast<int>(j);
  }
  return cd;
}

}  // namespace

std::int64_t TakeTiming::time_of(int frame) const {
  return start +
         std::llround(static_cast<double>(frame) * static_cast<double>(kTicksPerSecond) / fps);
}

std::shared_ptr<ClipDocument> read_clip_document(const std::filesystem::path& path,
                                                 JointSet joint_set) {
  return build(read_file(path), joint_set);
}

std::shared_ptr<ClipDocument> parse_clip_document(std::string data, const std::string& source_name,
                                                  JointSet joint_set) {
  return build(parse(std::move(data), source_name), joint_set);
}

int curve_node_of(const Scene& scene, int model, Channel channel, int layer) {
  const auto it = scene.curve_nodes_of.find((std::int64_t{model} << 2) | static_cast<int>(channel));
  if (it == scene.curve_nodes_of.end()) return -1;
  for (int cn : it->second)
    if (scene.curve_nodes[cn].layer == layer) return cn;
  return -1;
}

core::Vec3 channel_value(ClipDocument& cd, int model, Channel channel, int layer,
                         std::int64_t time) {
  Scene& scene = cd.scene;
  const ModelTransform& mt = scene.models[model].transform;
  Vec3 v = channel == Channel::translation ? mt.translation
           : channel == Channel::rotation  ? mt.rotation
                                           : mt.scaling;
  const int cn = curve_node_of(scene, model, channel, layer);
  if (cn < 0) return v;
  const CurveNode& node = scene.curve_nodes[cn];
  for (int a = 0; a < 3; ++a) {
    if (node.has_defaults) v[a] = node.defaults[a];
    if (node.curves[a] >= 0) {
      decode_curve(cd.doc, scene, node.curves[a]);
      v[a] = evaluate_curve(scene.curves[node.curves[a]], time);
    }
  }
  return v;
}

int take_layer(const ClipDocument& cd, int take) {
  const Scene& scene = cd.scene;
  const Take& t = scene.takes[take];
  int found = -1;
  for (int l : t.layers) {
    bool animates = false;
    for (int cn : scene.layers[l].curve_nodes) {
      const CurveNode& node = scene.curve_nodes[cn];
      const bool has_curve = node.curves[0] >= 0 || node.curves[1] >= 0 || node.curves[2] >= 0;
      if (has_curve && node.model >= 0 && cd.model_joints[node.model] >= 0) animates = true;
    }
    if (!animates) continue;
    if (found >= 0)
      throw InputError(cd.doc.source_name,
                       "take '" + t.name + "' blends several animation layers ('" +
                           scene.layers[found].name + "', '" + scene.layers[l].name +
                           "'); ikfix reads and writes single-layer takes only");
    found = l;
  }
  if (found < 0)
    throw InputError(cd.doc.source_name, "take '" + t.name + "' does not animate the skeleton");
  return found;
}

namespace {

// The first and last key times of a take (over every curve of its layers), as stored; false
// when it has no key.
bool key_range(const ClipDocument& cd, const Take& t, std::int64_t& lo, std::int64_t& hi) {
  const Scene& scene = cd.scene;
  lo = INT64_MAX;
  hi = INT64_MIN;
  for (int l : t.layers)
    for (int cn : scene.layers[l].curve_nodes)
      for (int c : scene.curve_nodes[cn].curves) {
        if (c < 0) continue;
        if (const auto& keys = scene.curves[c].keys) {  // decoded: its times are ascending
          if (!keys->times.empty()) {
            lo = std::min(lo, keys->times.front());
            hi = std::max(hi, keys->times.back());
          }
          continue;
        }
        const Node& o = cd.doc.root.children[scene.objects_index].children[scene.curves[c].object];
        if (const Node* kt = o.child("KeyTime"); kt && !kt->props.empty()) {
          const auto times = as_ints(cd.doc, kt->props[0]);
          for (std::int64_t time : times) {
            lo = std::min(lo, time);
            hi = std::max(hi, time);
          }
        }
      }
  return lo <= hi;
}

std::string seconds_text(std::int64_t ticks) {
  std::ostringstream out;
  out << static_cast<double>(ticks) / static_cast<double>(kTicksPerSecond) << " s";
  return out.str();
}

}  // namespace

TakeTiming take_timing(const ClipDocument& cd, int take) {
  const Scene& scene = cd.scene;
  const Take& t = scene.takes[take];
  TakeTiming timing;
  timing.fps = scene.fps;
  timing.start = t.local_start;
  timing.stop = t.local_stop;
  if (timing.stop <= timing.start) {
    timing.start = t.reference_start;
    timing.stop = t.reference_stop;
  }
  // The frames come from the keys: a stored range (LocalStop, ReferenceStop) past the last key
  // adds only copies of it, and is a number that costs nothing to write. Exporters hold the last
  // pose for a while (Maya's Kenney take ends after its last key), so a stored end up
  // to the keys' own span or one second past the last key is kept; a later one ends there.
  std::int64_t lo = 0, hi = 0;
  const bool keyed = key_range(cd, t, lo, hi);
  if (timing.stop <= timing.start) {
    // No range stored: the keys' range.
    timing.start = keyed ? lo : 0;
    timing.stop = keyed ? hi : 0;
  } else if (const std::int64_t last = std::max(keyed ? hi : timing.start, timing.start);
             static_cast<double>(timing.stop) - static_cast<double>(last) >
             std::max(keyed ? static_cast<double>(hi) - static_cast<double>(lo) : 0.0,
                      static_cast<double>(kTicksPerSecond))) {
    timing.stop = last;
  }
  const double frames = (static_cast<double>(timing.stop) - static_cast<double>(timing.start)) *
                        timing.fps / static_cast<double>(kTicksPerSecond);
  if (!(frames < static_cast<double>(std::numeric_limits<int>::max() - 1)))
    throw InputError(cd.doc.source_name, "take '" + t.name + "' runs from " +
                                             seconds_text(timing.start) + " to " +
                                             seconds_text(timing.stop) + ": too many frames");
  timing.frame_count = static_cast<int>(std::floor(frames + 1e-6)) + 1;
  return timing;
}

core::Clip sample_take(ClipDocument& cd, int take, const TakeTiming& timing) {
  Scene& scene = cd.scene;
  const Document& doc = cd.doc;
  const int layer = take_layer(cd, take);
  const int joints = static_cast<int>(cd.joint_models.size());
  core::Clip clip;
  clip.fps = timing.fps;
  clip.frame_count = timing.frame_count;
  clip.joint_count = joints;
  std::error_code size_error;
  const std::uintmax_t file_bytes = std::filesystem::file_size(doc.source_name, size_error);
  // The node tree takes about 6x the file (measured on the CMU skeleton FBX files).
  io::check_clip_memory(doc.source_name, {size_error ? 0 : 6 * file_bytes,
                                          static_cast<std::uint64_t>(timing.frame_count),
                                          static_cast<std::uint64_t>(joints), 0});
  clip.locals.resize(static_cast<std::size_t>(joints) * timing.frame_count);

  // Per joint and channel: the curve node in this take's layer (or none).
  struct Source {
    int curve_node = -1;
    Vec3 fixed{0.0};
    std::array<std::size_t, 3> cursor{0, 0, 0};
  };
  std::vector<std::array<Source, 3>> sources(joints);
  for (int j = 0; j < joints; ++j) {
    const Model& m = scene.models[cd.joint_models[j]];
    const Vec3 statics[3] = {m.transform.translation, m.transform.rotation, m.transform.scaling};
    for (int ch = 0; ch < 3; ++ch) {
      Source& s = sources[j][ch];
      s.fixed = statics[ch];
      s.curve_node = curve_node_of(scene, cd.joint_models[j], static_cast<Channel>(ch), layer);
      if (s.curve_node >= 0) {
        const CurveNode& cn = scene.curve_nodes[s.curve_node];
        for (int a = 0; a < 3; ++a) {
          if (cn.has_defaults) s.fixed[a] = cn.defaults[a];
          if (cn.curves[a] >= 0) decode_curve(doc, scene, cn.curves[a]);
        }
      }
    }
  }

  std::vector<Vec3> local_scale(joints);
  std::vector<char> chain_uniform(joints, 1);  // the joint and all its ancestors scale uniformly
  std::vector<std::string>& inexact = cd.inexact[take];
  inexact.assign(joints, std::string());
  for (int f = 0; f < timing.frame_count; ++f) {
    const std::int64_t t = timing.time_of(f);
    for (int j = 0; j < joints; ++j) {
      Vec3 v[3];
      for (int ch = 0; ch < 3; ++ch) {
        Source& s = sources[j][ch];
        v[ch] = s.fixed;
        if (s.curve_node < 0) continue;
        const CurveNode& cn = scene.curve_nodes[s.curve_node];
        for (int a = 0; a < 3; ++a)
          if (cn.curves[a] >= 0)
            v[ch][a] = evaluate_curve(scene.curves[cn.curves[a]], t, s.cursor[a]);
      }
      const Model& m = scene.models[cd.joint_models[j]];
      local_scale[j] = v[2];
      chain_uniform[j] =
          uniform(v[2]) && (cd.skeleton.parents[j] < 0 || chain_uniform[cd.skeleton.parents[j]]);
      Transform local = local_transform(m.transform, v[0], v[1], v[2]);
      const int parent = cd.skeleton.parents[j];
      if (parent >= 0 && m.transform.inherit_type != InheritType::rrss) {
        // RSrs: exact while every ancestor's scale is uniform. Rrs: the parent's own scale is
        // divided out of the child's, which needs it uniform too.
        if (!chain_uniform[parent] && inexact[j].empty()) {
          int a = parent;
          while (uniform(local_scale[a])) a = cd.skeleton.parents[a];
          inexact[j] = "joint '" + m.name + "' inherits a non-uniform scale from '" +
                       cd.skeleton.names[a] + "' (InheritType " +
                       inherit_name(m.transform.inherit_type) + ", frame " + std::to_string(f) +
                       "), which ikfix cannot represent exactly";
        }
        if (m.transform.inherit_type == InheritType::rrs && local_scale[parent].x != 0.0)
          local.scale /= local_scale[parent].x;
      }
      if (!core::is_finite(local.translation) || !core::is_finite(local.rotation) ||
          !core::is_finite(local.scale))
        throw InputError(
            doc.source_name,
            "joint '" + m.name + "' has a non-finite transform at frame " + std::to_string(f));
      clip.at(f, j) = local;
    }
  }
  return clip;
}

}  // namespace ikfix::io::fbx
