#pragma once
// Bone tips stored as joints. Blender, Maya and Mixamo rigs end each chain with a leaf node that
// only marks where the last bone ends ("Head_end", "LeftToes_end", "HeadTop_End"); it moves
// nothing and is not a joint a retargeter or a solver should drive. Folded into its parent's
// end site (core::Skeleton::end_sites), the skeleton is the one a BVH of the same rig has.
#include <span>
#include <string_view>
#include <vector>

#include "core/clip.hpp"
#include "core/skeleton.hpp"

namespace ikfix::io {

// True for names ending in "_end" / "_End" / "_END" (the exporters' convention).
bool is_end_leaf_name(std::string_view name);

// Folds every leaf joint with an end-leaf name that is the only child of its parent into the
// parent's end site (its rest translation, in the parent's local space) and removes it. Returns,
// for each joint of the new skeleton, its index in the old one (parents still precede children).
// A parent that already has an end site keeps it. Roots are never folded.
std::vector<int> fold_end_leaves(core::Skeleton& skeleton);

// `clip` restricted to the joints `kept` (old indices, as fold_end_leaves returns), in that order.
core::Clip select_joints(const core::Clip& clip, std::span<const int> kept);

}  // namespace ikfix::io
