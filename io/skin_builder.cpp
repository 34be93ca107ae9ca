#include "io/skin_builder.hpp"

#include <algorithm>
#include <utility>

namespace ikfix::io {

std::vector<NodeBinding> bind_nodes(std::span<const int> parents,
                                    std::span<const glm::dmat4> rest_local,
                                    std::span<const int> node_joint) {
  const std::size_t n = parents.size();
  std::vector<NodeBinding> out(n);
  std::vector<char> done(n, 0);
  std::vector<std::size_t> chain;
  for (std::size_t start = 0; start < n; ++start) {
    // Walk up to a joint or a node already bound, then bind the chain back down.
    chain.clear();
    std::size_t m = start;
    while (!done[m] && node_joint[m] < 0 && parents[m] >= 0 && chain.size() <= n) {
      chain.push_back(m);
      m = static_cast<std::size_t>(parents[m]);
    }
    if (!done[m]) {
      if (node_joint[m] >= 0) out[m].joint = node_joint[m];
      done[m] = 1;  // a joint, or a root that is none (unbound)
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const NodeBinding& up = out[m];
      out[*it].joint = up.joint;
      if (up.joint >= 0) out[*it].node_to_joint = up.node_to_joint * rest_local[*it];
      done[*it] = 1;
      m = *it;
    }
  }
  return out;
}

void SkinBuilder::add(const NodeBinding& binding, double weight, const glm::dvec3& local_node) {
  if (binding.joint < 0 || !(weight > 0)) return;
  add_in_joint(binding.joint, weight,
               glm::dvec3(binding.node_to_joint * glm::dvec4(local_node, 1.0)));
}

void SkinBuilder::add_in_joint(int joint, double weight, const glm::dvec3& local_joint) {
  if (joint < 0 || !(weight > 0)) return;
  for (Influence& i : pending_)
    if (i.joint == joint) {
      i.weight += weight;
      i.weighted_local += weight * local_joint;
      return;
    }
  pending_.push_back({joint, weight, weight * local_joint});
}

bool SkinBuilder::end_vertex() {
  // Heaviest first (ties: the lower joint); a vertex has a handful of influences, so an
  // insertion sort.
  for (std::size_t i = 1; i < pending_.size(); ++i)
    for (std::size_t k = i; k > 0; --k) {
      const Influence& a = pending_[k];
      const Influence& b = pending_[k - 1];
      if (!(a.weight > b.weight || (a.weight == b.weight && a.joint < b.joint))) break;
      std::swap(pending_[k], pending_[k - 1]);
    }
  const std::size_t kept = std::min<std::size_t>(pending_.size(), 4);
  double total = 0;
  for (std::size_t i = 0; i < kept; ++i) total += pending_[i].weight;
  const bool keep = total > 0;
  if (keep) {
    core::SkinnedVertex v;
    for (std::size_t i = 0; i < kept; ++i) {
      v.joint[i] = pending_[i].joint;
      v.weight[i] = pending_[i].weight / total;
      v.local[i] = pending_[i].weighted_local / pending_[i].weight;
    }
    skin_.vertices.push_back(v);
  }
  pending_.clear();
  return keep;
}

void SkinBuilder::reserve(std::size_t more) {
  skin_.vertices.reserve(skin_.vertices.size() + more);
}

std::shared_ptr<const core::Skin> SkinBuilder::finish() {
  if (skin_.vertices.empty()) return nullptr;
  return std::make_shared<const core::Skin>(std::move(skin_));
}

}  // namespace ikfix::io
