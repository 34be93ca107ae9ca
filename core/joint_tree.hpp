#pragma once
// A skeleton's hierarchy indexed once, so passes over every joint stay linear in joints
// (Skeleton::children and Skeleton::is_ancestor cost O(joints) and O(depth) per call).
#include <span>
#include <utility>
#include <vector>

#include "core/skeleton.hpp"

namespace ikfix::core {

// Built in O(joints) from a valid Skeleton (parents before children), without recursion.
class JointTree {
 public:
  explicit JointTree(const Skeleton& skeleton);
  // Children of joint j, in index order (as Skeleton::children).
  std::span<const int> children(int j) const {
    return {child_list_.data() + first_child_[j], child_list_.data() + first_child_[j + 1]};
  }
  // As Skeleton::is_ancestor: `ancestor` is `joint` or one of its ancestors. O(1).
  bool is_ancestor(int ancestor, int joint) const {
    return enter_[ancestor] <= enter_[joint] && enter_[joint] < leave_[ancestor];
  }
  int depth(int j) const { return depth_[j]; }  // 0 for a root
  // Joint j's pre-order number, and the numbers [first, end) of the joints strictly below it.
  int order(int j) const { return enter_[j]; }
  std::pair<int, int> below(int j) const { return {enter_[j] + 1, leave_[j]}; }

 private:
  std::vector<int> first_child_;  // joint_count + 1 offsets into child_list_
  std::vector<int> child_list_;
  std::vector<int> enter_, leave_;  // depth-first numbering: j's subtree is [enter_, leave_)
  std::vector<int> depth_;
};

}  // namespace ikfix::core
