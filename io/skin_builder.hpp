#pragma once
// The format-independent half of reading a skinned mesh into core::Skin: where each of the
// file's nodes lands in the returned skeleton (itself, or its nearest ancestor that is a joint,
// through the static transforms in between), and each vertex's influences merged per joint, the
// heaviest four kept and renormalised. The FBX and glTF readers (io/fbx/skin, io/gltf/skin)
// decode their files into calls to these.
#include <glm/glm.hpp>
#include <memory>
#include <span>
#include <vector>

#include "core/skin.hpp"

namespace ikfix::io {

// Where a file node's frame is in the skeleton: `joint` (-1: neither the node nor any ancestor
// is a joint) and the matrix taking points from the node's frame to that joint's (identity when
// the node is the joint itself). Clip units.
struct NodeBinding {
  int joint = -1;
  glm::dmat4 node_to_joint{1.0};
};

// For every node: `parents[n]` its parent node (-1: a root; parents need not precede children),
// `rest_local[n]` its static local matrix (used only for nodes between an influence and its
// joint), `node_joint[n]` its joint in the skeleton or -1.
std::vector<NodeBinding> bind_nodes(std::span<const int> parents,
                                    std::span<const glm::dmat4> rest_local,
                                    std::span<const int> node_joint);

// Builds a Skin one vertex at a time: add() each influence of a vertex, then end_vertex().
class SkinBuilder {
 public:
  // One influence of the current vertex: `weight` (finite, >= 0) on the node bound by `binding`,
  // the vertex at bind time in that node's frame `local_node` (clip units). Influences on an
  // unbound node (joint -1) or of weight 0 are left out.
  void add(const NodeBinding& binding, double weight, const glm::dvec3& local_node);
  // The same with the point already in the joint's frame (`local_joint`, i.e.
  // binding.node_to_joint applied by the caller, once per joint instead of once per vertex).
  void add_in_joint(int joint, double weight, const glm::dvec3& local_joint);
  // Ends the current vertex: influences on the same joint merged (weights summed, local points
  // averaged by weight: the joint's transform is affine, so the posed point is the same), the
  // heaviest four kept (ties: the lower joint), weights renormalised to sum to 1. A vertex whose
  // influences weigh nothing is dropped. Returns whether it was kept.
  bool end_vertex();
  // Room for `more` vertices (a mesh's count, known before its vertices are added).
  void reserve(std::size_t more);
  // Vertices kept so far.
  std::size_t size() const { return skin_.vertices.size(); }
  // The Skin, or null when no vertex was kept.
  std::shared_ptr<const core::Skin> finish();

 private:
  struct Influence {
    int joint;
    double weight;
    glm::dvec3 weighted_local;  // sum of weight * local point, in the joint's frame
  };
  std::vector<Influence> pending_;
  core::Skin skin_;
};

}  // namespace ikfix::io
