#include "io/fbx/skin.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "io/error.hpp"
#include "io/matrix_trs.hpp"
#include "io/skin_builder.hpp"

namespace ikfix::io::fbx {
namespace {

struct Cluster {
  std::uint32_t object = 0;  // index among Objects' children
  std::int64_t id = 0;
  int bone = -1;  // Scene::models index
};

struct SkinDeformer {
  std::vector<int> clusters;  // indices into SkinObjects::clusters, in connection order
};

struct Geometry {
  std::uint32_t object = 0;
  std::int64_t id = 0;
  int mesh_model = -1;
  std::vector<int> skins;  // indices into SkinObjects::skins
};

// The objects of a file's skins, linked through its Connections.
struct SkinObjects {
  std::vector<Geometry> geometries;
  std::vector<SkinDeformer> skins;
  std::vector<Cluster> clusters;
};

enum class Kind : std::uint8_t { geometry, skin, cluster };

std::string deformer_type(const Document& doc, const Node& o) {
  return o.props.size() > 2 ? as_string(doc, o.props[2]) : std::string();
}

SkinObjects find_skin_objects(const ClipDocument& cd) {
  const Document& doc = cd.doc;
  const Node& objects = doc.root.children[cd.scene.objects_index];
  SkinObjects out;
  std::unordered_map<std::int64_t, std::pair<Kind, int>> by_id;
  for (std::uint32_t k = 0; k < objects.children.size(); ++k) {
    const Node& o = objects.children[k];
    if (o.props.empty() || (o.props[0].type != 'L' && o.props[0].type != 'I')) continue;
    if (o.name != "Geometry" && o.name != "Deformer") continue;
    const std::int64_t id = as_int(doc, o.props[0]);
    const std::string type = deformer_type(doc, o);
    if (o.name == "Geometry" && type == "Mesh") {
      by_id[id] = {Kind::geometry, static_cast<int>(out.geometries.size())};
      out.geometries.push_back({k, id, -1, {}});
    } else if (o.name == "Deformer" && type == "Skin") {
      by_id[id] = {Kind::skin, static_cast<int>(out.skins.size())};
      out.skins.push_back({});
    } else if (o.name == "Deformer" && type == "Cluster") {
      by_id[id] = {Kind::cluster, static_cast<int>(out.clusters.size())};
      out.clusters.push_back({k, id, -1});
    }
  }
  const Node& connections = doc.root.children[cd.scene.connections_index];
  for (const Node& c : connections.children) {
    if (c.name != "C" || c.props.size() < 3 || as_string(doc, c.props[0]) != "OO") continue;
    const std::int64_t child_id = as_int(doc, c.props[1]), parent_id = as_int(doc, c.props[2]);
    const auto child = by_id.find(child_id);
    const auto parent = by_id.find(parent_id);
    if (parent == by_id.end()) continue;
    const auto [pk, pi] = parent->second;
    if (child == by_id.end()) {
      // A bone Model under its cluster (the first counts).
      const auto model = cd.scene.model_by_id.find(child_id);
      if (model != cd.scene.model_by_id.end() && pk == Kind::cluster && out.clusters[pi].bone < 0)
        out.clusters[pi].bone = model->second;
      continue;
    }
    const auto [ck, ci] = child->second;
    if (ck == Kind::cluster && pk == Kind::skin) out.skins[pi].clusters.push_back(ci);
    if (ck == Kind::skin && pk == Kind::geometry) out.geometries[pi].skins.push_back(ci);
  }
  // Geometry -> mesh Model (the first Model the geometry is connected to).
  for (const Node& c : connections.children) {
    if (c.name != "C" || c.props.size() < 3 || as_string(doc, c.props[0]) != "OO") continue;
    const auto child = by_id.find(as_int(doc, c.props[1]));
    if (child == by_id.end() || child->second.first != Kind::geometry) continue;
    const auto model = cd.scene.model_by_id.find(as_int(doc, c.props[2]));
    Geometry& g = out.geometries[child->second.second];
    if (model != cd.scene.model_by_id.end() && g.mesh_model < 0) g.mesh_model = model->second;
  }
  return out;
}

// The mesh Model's geometric transform (applied to its vertices only, not to its children).
glm::dmat4 geometric_matrix(const Document& doc, const Node& model) {
  core::Vec3 t(0.0), r(0.0), s(1.0);
  if (const Node* props = model.child("Properties70"))
    for (const Node& p : props->children) {
      if (p.name != "P" || p.props.size() < 7) continue;
      const std::string name = as_string(doc, p.props[0]);
      core::Vec3* v = name == "GeometricTranslation" ? &t
                      : name == "GeometricRotation"  ? &r
                      : name == "GeometricScaling"   ? &s
                                                     : nullptr;
      if (v)
        *v = core::Vec3(as_double(doc, p.props[4]), as_double(doc, p.props[5]),
                        as_double(doc, p.props[6]));
    }
  core::Transform g;
  g.translation = t;
  g.rotation = euler_to_quat(r, RotationOrder::xyz);
  g.scale = s;
  return trs_matrix(g);
}

bool finite(const glm::dmat4& m) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      if (!std::isfinite(m[c][r])) return false;
  return true;
}

// Where each Model's frame lands in the skeleton.
std::vector<NodeBinding> bind_models(const ClipDocument& cd) {
  const Scene& scene = cd.scene;
  std::vector<int> parents;
  std::vector<glm::dmat4> locals;
  for (const Model& m : scene.models) {
    parents.push_back(m.parent);
    const ModelTransform& t = m.transform;
    locals.push_back(trs_matrix(local_transform(t, t.translation, t.rotation, t.scaling)));
  }
  return bind_nodes(parents, locals, cd.model_joints);
}

// One cluster's weights, checked against the geometry's `vertex_count` control points.
struct ClusterData {
  std::vector<std::int64_t> indexes;
  std::vector<double> weights;
  glm::dmat4 transform{1.0};
};

ClusterData read_cluster(const ClipDocument& cd, const Cluster& c, std::size_t vertex_count) {
  const Document& doc = cd.doc;
  const Node& o = doc.root.children[cd.scene.objects_index].children[c.object];
  const std::string where = "skin Cluster " + std::to_string(c.id);
  ClusterData d;
  const Node* indexes = o.child("Indexes");
  const Node* weights = o.child("Weights");
  if (indexes && !indexes->props.empty()) d.indexes = as_ints(doc, indexes->props[0]);
  if (weights && !weights->props.empty()) d.weights = as_doubles(doc, weights->props[0]);
  if (d.indexes.size() != d.weights.size())
    throw InputError(doc.source_name, where + " has " + std::to_string(d.indexes.size()) +
                                          " Indexes but " + std::to_string(d.weights.size()) +
                                          " Weights");
  for (std::size_t i = 0; i < d.indexes.size(); ++i) {
    if (d.indexes[i] < 0 || static_cast<std::uint64_t>(d.indexes[i]) >= vertex_count)
      throw InputError(doc.source_name, where + ": control point " + std::to_string(d.indexes[i]) +
                                            " out of range (the mesh has " +
                                            std::to_string(vertex_count) + ")");
    if (!std::isfinite(d.weights[i]) || d.weights[i] < 0)
      throw InputError(doc.source_name,
                       where + ": weight " + std::to_string(i) + " is negative or not finite");
  }
  if (d.indexes.empty()) return d;
  const Node* transform = o.child("Transform");
  const std::vector<double> m = transform && !transform->props.empty()
                                    ? as_doubles(doc, transform->props[0])
                                    : std::vector<double>();
  if (m.size() != 16) throw InputError(doc.source_name, where + " has no 4x4 Transform");
  for (int col = 0; col < 4; ++col)
    for (int row = 0; row < 4; ++row) d.transform[col][row] = m[4 * col + row];
  if (!finite(d.transform))
    throw InputError(doc.source_name, where + " has a non-finite Transform");
  return d;
}

// Adds the skinned control points of geometry `g` to `builder`.
void read_geometry(const ClipDocument& cd, const SkinObjects& so, const Geometry& g,
                   const std::vector<NodeBinding>& bindings, SkinBuilder& builder) {
  const Document& doc = cd.doc;
  const Node& objects = doc.root.children[cd.scene.objects_index];
  std::vector<const Cluster*> clusters;
  for (int s : g.skins)
    for (int c : so.skins[s].clusters)
      if (so.clusters[c].bone >= 0) clusters.push_back(&so.clusters[c]);
  if (clusters.empty()) return;
  const Node* vertices = objects.children[g.object].child("Vertices");
  const std::vector<double> xyz = vertices && !vertices->props.empty()
                                      ? as_doubles(doc, vertices->props[0])
                                      : std::vector<double>();
  const std::string where = "Geometry " + std::to_string(g.id);
  if (xyz.size() % 3 != 0)
    throw InputError(doc.source_name, where + ": Vertices is not a list of 3D points");
  for (double v : xyz)
    if (!std::isfinite(v)) throw InputError(doc.source_name, where + " has a non-finite vertex");
  const std::size_t count = xyz.size() / 3;
  const glm::dmat4 geometric =
      g.mesh_model >= 0
          ? geometric_matrix(doc, objects.children[cd.scene.models[g.mesh_model].object])
          : glm::dmat4(1.0);
  // Per control point: (cluster, weight) pairs.
  struct Weighted {
    int cluster;
    double weight;
  };
  std::vector<std::vector<Weighted>> influences(count);
  std::vector<glm::dmat4>
      to_joint;  // per cluster: its bone's node-to-joint * Transform * Geometric
  for (std::size_t c = 0; c < clusters.size(); ++c) {
    const ClusterData d = read_cluster(cd, *clusters[c], count);
    to_joint.push_back(bindings[clusters[c]->bone].node_to_joint * d.transform * geometric);
    for (std::size_t i = 0; i < d.indexes.size(); ++i)
      influences[static_cast<std::size_t>(d.indexes[i])].push_back(
          {static_cast<int>(c), d.weights[i]});
  }
  builder.reserve(count);
  for (std::size_t v = 0; v < count; ++v) {
    if (influences[v].empty()) continue;
    const glm::dvec4 p(xyz[3 * v], xyz[3 * v + 1], xyz[3 * v + 2], 1.0);
    for (const Weighted& w : influences[v])
      builder.add_in_joint(bindings[clusters[w.cluster]->bone].joint, w.weight,
                           glm::dvec3(to_joint[w.cluster] * p));
    builder.end_vertex();
  }
}

}  // namespace

std::shared_ptr<const core::Skin> read_skin(const ClipDocument& cd) {
  if (std::none_of(cd.scene.models.begin(), cd.scene.models.end(),
                   [](const Model& m) { return m.deforms; }))
    return nullptr;
  const SkinObjects so = find_skin_objects(cd);
  const std::vector<NodeBinding> bindings = bind_models(cd);
  SkinBuilder builder;
  for (const Geometry& g : so.geometries) read_geometry(cd, so, g, bindings, builder);
  return builder.finish();
}

}  // namespace ikfix::io::fbx
