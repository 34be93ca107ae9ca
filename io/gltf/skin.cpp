#include "io/gltf/skin.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <utility>

#include "io/error.hpp"
#include "io/gltf/sampling.hpp"
#include "io/matrix_trs.hpp"
#include "io/skin_builder.hpp"

namespace ikfix::io::gltf {
namespace {

[[noreturn]] void fail(const Document& doc, const std::string& cause) {
  throw InputError(doc.source_name, cause);
}

// A non-negative integer member of `obj`, or -1 when absent.
int index_member(const Json& obj, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0) return -1;
  return it->get<int>();
}

// One skin: its joints' nodes and inverse bind matrices.
struct SkinJoints {
  std::vector<int> nodes;
  std::vector<glm::dmat4> inverse_bind;
};

SkinJoints read_skin_joints(const Document& doc, int skin) {
  const Json& skins = array_member(doc.json, "skins");
  const std::string where = "skin " + std::to_string(skin);
  if (skin >= static_cast<int>(skins.size())) fail(doc, where + " does not exist");
  const Json& js = skins[skin];
  SkinJoints out;
  for (const Json& j : array_member(js, "joints")) {
    if (!j.is_number_integer() || j.get<std::int64_t>() < 0 ||
        j.get<std::int64_t>() >= static_cast<std::int64_t>(doc.nodes.size()))
      fail(doc, where + ": joint " + j.dump() + " is not a node");
    out.nodes.push_back(j.get<int>());
  }
  out.inverse_bind.assign(out.nodes.size(), glm::dmat4(1.0));
  const int ibm = index_member(js, "inverseBindMatrices");
  if (ibm < 0) return out;
  const AccessorData m = read_accessor(doc, ibm);
  if (m.components != 16 || m.count < static_cast<int>(out.nodes.size()))
    fail(doc, where + ": inverseBindMatrices holds " + std::to_string(m.count) + " values of " +
                  std::to_string(m.components) + " components for " +
                  std::to_string(out.nodes.size()) + " joints");
  for (std::size_t k = 0; k < out.nodes.size(); ++k)
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) out.inverse_bind[k][c][r] = m.values[16 * k + 4 * c + r];
  return out;
}

// The JOINTS_n / WEIGHTS_n sets of a primitive, decoded and checked against `count` vertices.
std::vector<std::pair<AccessorData, AccessorData>> influence_sets(const Document& doc,
                                                                  const Json& attributes, int count,
                                                                  const std::string& where) {
  std::vector<std::pair<AccessorData, AccessorData>> sets;
  for (int n = 0;; ++n) {
    const int joints = index_member(attributes, ("JOINTS_" + std::to_string(n)).c_str());
    const int weights = index_member(attributes, ("WEIGHTS_" + std::to_string(n)).c_str());
    if (joints < 0 || weights < 0) break;
    AccessorData j = read_accessor(doc, joints), w = read_accessor(doc, weights);
    if (j.components != 4 || w.components != 4 || j.count != count || w.count != count)
      fail(doc, where + ": JOINTS_" + std::to_string(n) + " / WEIGHTS_" + std::to_string(n) +
                    " do not hold 4 values for each of the " + std::to_string(count) + " vertices");
    sets.emplace_back(std::move(j), std::move(w));
  }
  return sets;
}

// Per skin joint: the skeleton joint it binds to and the matrix from mesh space at bind time to
// that joint's frame (the joint's node-to-joint matrix times its inverse bind matrix).
struct JointFrames {
  std::vector<int> joint;
  std::vector<glm::dmat4> mesh_to_joint;
};

JointFrames joint_frames(const SkinJoints& skin, const std::vector<NodeBinding>& bindings) {
  JointFrames out;
  for (std::size_t k = 0; k < skin.nodes.size(); ++k) {
    const NodeBinding& b = bindings[skin.nodes[k]];
    out.joint.push_back(b.joint);
    out.mesh_to_joint.push_back(b.node_to_joint * skin.inverse_bind[k]);
  }
  return out;
}

// Adds the vertices of one primitive skinned by `skin`.
void read_primitive(const Document& doc, const Json& attributes, const JointFrames& skin,
                    const std::string& where, SkinBuilder& builder) {
  const AccessorData pos = read_accessor(doc, index_member(attributes, "POSITION"));
  if (pos.components != 3) fail(doc, where + ": POSITION is not a list of 3D points");
  const auto sets = influence_sets(doc, attributes, pos.count, where);
  const auto joint_count = static_cast<double>(skin.joint.size());
  builder.reserve(static_cast<std::size_t>(pos.count));
  for (int v = 0; v < pos.count; ++v) {
    const glm::dvec4 p(pos.values[3 * v], pos.values[3 * v + 1], pos.values[3 * v + 2], 1.0);
    for (const auto& [joints, weights] : sets)
      for (int i = 0; i < 4; ++i) {
        const double k = joints.values[4 * v + i], w = weights.values[4 * v + i];
        if (w < 0) fail(doc, where + ": vertex " + std::to_string(v) + " has a negative weight");
        if (w == 0) continue;
        if (!(k >= 0 && k < joint_count) || k != std::floor(k))
          fail(doc, where + ": vertex " + std::to_string(v) + " names joint " + std::to_string(k) +
                        " of a skin with " + std::to_string(skin.joint.size()));
        const auto j = static_cast<std::size_t>(k);
        builder.add_in_joint(skin.joint[j], w, glm::dvec3(skin.mesh_to_joint[j] * p));
      }
    builder.end_vertex();
  }
}

std::vector<NodeBinding> bind_document_nodes(const Document& doc,
                                             std::span<const int> joint_nodes) {
  std::vector<int> parents, node_joint(doc.nodes.size(), -1);
  std::vector<glm::dmat4> locals;
  for (const Node& n : doc.nodes) {
    parents.push_back(n.parent);
    locals.push_back(trs_matrix(n.rest));
  }
  for (std::size_t j = 0; j < joint_nodes.size(); ++j)
    node_joint[joint_nodes[j]] = static_cast<int>(j);
  return bind_nodes(parents, locals, node_joint);
}

}  // namespace

std::shared_ptr<const core::Skin> read_skin(const Document& doc, std::span<const int> joint_nodes) {
  const Json& nodes = array_member(doc.json, "nodes");
  std::vector<std::pair<int, int>> mesh_skins;  // (mesh, skin) in node order, each once
  for (const Json& n : nodes) {
    if (!n.is_object()) continue;
    const std::pair<int, int> ms(index_member(n, "mesh"), index_member(n, "skin"));
    if (ms.first >= 0 && ms.second >= 0 &&
        std::find(mesh_skins.begin(), mesh_skins.end(), ms) == mesh_skins.end())
      mesh_skins.push_back(ms);
  }
  if (mesh_skins.empty()) return nullptr;
  const std::vector<NodeBinding> bindings = bind_document_nodes(doc, joint_nodes);
  const Json& meshes = array_member(doc.json, "meshes");
  SkinBuilder builder;
  std::set<std::tuple<int, int, int>> seen;  // (POSITION, JOINTS_0, skin)
  for (const auto& [mesh, skin] : mesh_skins) {
    const std::string where = "mesh " + std::to_string(mesh);
    if (mesh >= static_cast<int>(meshes.size())) fail(doc, where + " does not exist");
    const JointFrames joints = joint_frames(read_skin_joints(doc, skin), bindings);
    const Json& primitives = array_member(meshes[mesh], "primitives");
    for (std::size_t p = 0; p < primitives.size(); ++p) {
      const auto a = primitives[p].find("attributes");
      if (a == primitives[p].end() || !a->is_object()) continue;
      const int position = index_member(*a, "POSITION"), joints0 = index_member(*a, "JOINTS_0");
      if (position < 0 || joints0 < 0 || !seen.emplace(position, joints0, skin).second) continue;
      read_primitive(doc, *a, joints, where + " primitive " + std::to_string(p), builder);
    }
  }
  return builder.finish();
}

}  // namespace ikfix::io::gltf
