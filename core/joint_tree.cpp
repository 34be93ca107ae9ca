#include "core/joint_tree.hpp"

namespace ikfix::core {

JointTree::JointTree(const Skeleton& s) {
  const int n = s.joint_count();
  first_child_.assign(n + 1, 0);
  for (int j = 0; j < n; ++j)
    if (s.parents[j] >= 0) ++first_child_[s.parents[j] + 1];
  for (int j = 0; j < n; ++j) first_child_[j + 1] += first_child_[j];
  child_list_.resize(first_child_[n]);
  std::vector<int> next(first_child_.begin(), first_child_.end() - 1);
  for (int j = 0; j < n; ++j)
    if (s.parents[j] >= 0) child_list_[next[s.parents[j]]++] = j;
  // Parents come before children, so depths and subtree sizes need no recursion.
  depth_.assign(n, 0);
  for (int j = 0; j < n; ++j)
    if (s.parents[j] >= 0) depth_[j] = depth_[s.parents[j]] + 1;
  std::vector<int> size(n, 1);
  for (int j = n - 1; j >= 0; --j)
    if (s.parents[j] >= 0) size[s.parents[j]] += size[j];
  // Pre-order numbers: a root starts after the earlier roots' subtrees, a child after its
  // parent and its earlier siblings' subtrees.
  enter_.assign(n, 0);
  leave_.assign(n, 0);
  int next_root = 0;
  for (int j = 0; j < n; ++j) {
    if (s.parents[j] < 0) {
      enter_[j] = next_root;
      next_root += size[j];
    }
    int at = enter_[j] + 1;
    for (int c : children(j)) {
      enter_[c] = at;
      at += size[c];
    }
    leave_[j] = enter_[j] + size[j];
  }
}

}  // namespace ikfix::core
