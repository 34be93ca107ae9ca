#pragma once
// The joint hierarchy of a character, independent of any file format.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/math.hpp"

namespace ikfix::core {

// Joint names, parent indices and rest local transforms, in the clip's own units and axes
// (see ClipSpace for the conversion to world metres). Parents always come before children,
// so a single forward pass computes world transforms. Immutable after load.
struct Skeleton {
  std::vector<std::string> names;
  std::vector<int> parents;     // -1 for a root
  std::vector<Transform> rest;  // rest local transform of each joint
  // Optional end points ("End Site" in BVH): tip of a joint with no child joint, in that joint's
  // local space. Used for the standing-height estimate and the toe tip. Zero when absent.
  std::vector<std::optional<Vec3>> end_sites;

  int joint_count() const { return static_cast<int>(names.size()); }
  // Index of the joint called `name`, or -1.
  int find(std::string_view name) const;
  // Children of joint j, in index order.
  std::vector<int> children(int j) const;
  // True when `ancestor` is `joint` or one of its ancestors.
  bool is_ancestor(int ancestor, int joint) const;
  // Empty when the hierarchy is well formed; otherwise a readable reason.
  std::string validate() const;
};

}  // namespace ikfix::core
