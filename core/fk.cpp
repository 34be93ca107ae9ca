#include "core/fk.hpp"

#include "core/lanes.hpp"

namespace ikfix::core {

void forward_kinematics(const Skeleton& skeleton, std::span<const Transform> locals,
                        const Transform& clip_to_world, std::span<Transform> world_out) {
  const int n = skeleton.joint_count();
  for (int j = 0; j < n; ++j) {
    const int p = skeleton.parents[j];
    world_out[j] = compose(p < 0 ? clip_to_world : world_out[p], locals[j]);
  }
}

Transform joint_world(const Skeleton& skeleton, std::span<const Transform> locals,
                      const Transform& clip_to_world, int joint) {
  // Collect the ancestor chain (root first) without allocating: skeletons are shallow.
  int chain[256];
  int depth = 0;
  for (int j = joint; j >= 0 && depth < 256; j = skeleton.parents[j]) chain[depth++] = j;
  Transform world = clip_to_world;
  for (int i = depth - 1; i >= 0; --i) world = compose(world, locals[chain[i]]);
  return world;
}

JointSubset::JointSubset(const Skeleton& skeleton, std::span<const int> wanted) {
  const int n = skeleton.joint_count();
  std::vector<char> keep(n, 0);
  for (int w : wanted)
    for (int j = w; j >= 0 && !keep[j]; j = skeleton.parents[j]) keep[j] = 1;
  slot_of.assign(n, -1);
  for (int j = 0; j < n; ++j)
    if (keep[j]) {
      slot_of[j] = static_cast<int>(joints.size());
      joints.push_back(j);
      const int p = skeleton.parents[j];
      parent_slot.push_back(p < 0 ? -1 : slot_of[p]);
    }
}

void forward_kinematics(const JointSubset& subset, std::span<const Transform> locals,
                        const Transform& clip_to_world, std::span<Transform> world_out) {
  const int n = subset.size();
  for (int k = 0; k < n; ++k) {
    const int p = subset.parent_slot[k];
    world_out[k] = compose(p < 0 ? clip_to_world : world_out[p], locals[subset.joints[k]]);
  }
}

namespace {

// Subsets up to this size keep their pair transforms on the stack (the fix's leg subset: 12).
constexpr int kMaxLaneJoints = 64;

}  // namespace

void forward_kinematics_pair(const JointSubset& subset, std::span<const Transform> locals_a,
                             std::span<const Transform> locals_b, const Transform& clip_to_world,
                             std::span<Transform> world_a, std::span<Transform> world_b) {
  const int n = subset.size();
  if (n > kMaxLaneJoints) {
    forward_kinematics(subset, locals_a, clip_to_world, world_a);
    forward_kinematics(subset, locals_b, clip_to_world, world_b);
    return;
  }
  LaneTransform world[kMaxLaneJoints];
  const LaneTransform root = lanes_of(clip_to_world, clip_to_world);
  for (int k = 0; k < n; ++k) {
    const int p = subset.parent_slot[k];
    const int j = subset.joints[k];
    world[k] = compose(p < 0 ? root : world[p], lanes_of(locals_a[j], locals_b[j]));
    store_lane(world[k], 0, world_a[k]);
    store_lane(world[k], 1, world_b[k]);
  }
}

void forward_kinematics_frames(const JointSubset& subset, const Clip& clip, int begin, int end,
                               const Transform& clip_to_world, std::span<Transform> world_out) {
  const auto slots = static_cast<std::size_t>(subset.size());
  auto frame_world = [&](int f) {
    return world_out.subspan(static_cast<std::size_t>(f - begin) * slots, slots);
  };
  int f = begin;
  for (; f + 1 < end; f += 2)
    forward_kinematics_pair(subset, clip.frame(f), clip.frame(f + 1), clip_to_world, frame_world(f),
                            frame_world(f + 1));
  if (f < end) forward_kinematics(subset, clip.frame(f), clip_to_world, frame_world(f));
}

}  // namespace ikfix::core
