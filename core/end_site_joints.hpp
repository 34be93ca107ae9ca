#pragma once
// Virtual joints at end sites, so 2-bone legs whose ankle is only a bone tail (no ankle joint,
// e.g. Blender rigs exported without a foot bone) can go through code that needs an ankle joint
// (leg detection, the foot fix, retarget leg rigs) unchanged, then be stripped before writing.
//
// A virtual joint is a leaf appended after the original joints (original indices stay valid):
// parent = the joint that owns the end site, rest = identity rotation, unit scale, translation =
// the end site offset (the parent's local space, clip units). So FK puts it exactly on the end
// site, and FK of every original joint is unchanged. The owner keeps its end site.
#include <span>
#include <string>
#include <vector>

#include "core/clip.hpp"
#include "core/legs.hpp"
#include "core/skeleton.hpp"

namespace ikfix::core {

struct EndSiteJoints {
  Skeleton skeleton;        // the original joints (same indices), then the virtual ones
  int original_count = 0;   // joints of the original skeleton
  std::vector<int> owners;  // per virtual joint (index original_count + i): its parent

  bool is_virtual(int joint) const { return joint >= original_count; }
};

// Adds one virtual joint under each of `owners` (joints with an end site; others are skipped),
// named "<owner>_ankle" (suffixed with a number if that name is taken).
EndSiteJoints add_end_site_joints(const Skeleton& skeleton, std::span<const int> owners);

// Every leaf joint with an end site, in index order (the candidates for leg detection).
std::vector<int> leaves_with_end_sites(const Skeleton& skeleton);

// The leaves of leaves_with_end_sites whose bone hangs down in the rest pose (its tail below its
// head by more than half its length): where a 2-bone leg's ankle can be. `rest_world` is FK of
// Skeleton::rest (world, Y up), one per joint. Rig helpers lying flat (IK targets) are left out.
std::vector<int> hanging_end_sites(const Skeleton& skeleton, std::span<const Transform> rest_world);

// `clip` (original joints) with the virtual joints appended at their rest transforms.
Clip with_end_site_joints(const Clip& clip, const EndSiteJoints& joints);

// `clip` (augmented) with the virtual joints dropped: the original joints' transforms as they are.
Clip without_end_site_joints(const Clip& clip, const EndSiteJoints& joints);

// Per-joint flags of the augmented skeleton cut to the original joints.
std::vector<char> without_end_site_joints(std::span<const char> flags, const EndSiteJoints& joints);

// Legs found on an augmented skeleton, with only the virtual joints they use kept: returns the
// reduced augmentation and rewrites `rig` to its indices (original joints keep theirs).
EndSiteJoints keep_leg_end_site_joints(const EndSiteJoints& joints, LegRig& rig);

}  // namespace ikfix::core
