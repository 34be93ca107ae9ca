#pragma once
// Forward kinematics: local transforms -> world transforms.
#include <span>
#include <vector>

#include "core/clip.hpp"
#include "core/skeleton.hpp"

namespace ikfix::core {

// World transforms (metres, Y up) of every joint for one frame. `world_out` has joint_count
// entries. Parents precede children, so one pass suffices.
void forward_kinematics(const Skeleton& skeleton, std::span<const Transform> locals,
                        const Transform& clip_to_world, std::span<Transform> world_out);

// World transform of a single joint (walks its ancestors only).
Transform joint_world(const Skeleton& skeleton, std::span<const Transform> locals,
                      const Transform& clip_to_world, int joint);

// The joints a computation needs (some joints and all their ancestors), in skeleton order, so
// FK can skip the rest (arms, fingers, head: two thirds of a mocap skeleton for a leg fix).
struct JointSubset {
  std::vector<int> joints;       // ascending joint indices
  std::vector<int> slot_of;      // joint -> index in `joints`, or -1
  std::vector<int> parent_slot;  // per slot: the parent's slot, or -1 for a root

  JointSubset(const Skeleton& skeleton, std::span<const int> wanted);
  int size() const { return static_cast<int>(joints.size()); }
};

// World transforms of the subset's joints for one frame; `world_out` has subset.size() entries.
void forward_kinematics(const JointSubset& subset, std::span<const Transform> locals,
                        const Transform& clip_to_world, std::span<Transform> world_out);

// The same for two frames at once (`locals_a` -> `world_a`, `locals_b` -> `world_b`), bit for bit
// what two calls give. Each joint's transform waits on its parent's, so one frame's FK is a
// chain of dependent products; two frames interleaved let the CPU overlap their chains, and
// computed in the two lanes of SSE registers they take half the arithmetic instructions.
void forward_kinematics_pair(const JointSubset& subset, std::span<const Transform> locals_a,
                             std::span<const Transform> locals_b, const Transform& clip_to_world,
                             std::span<Transform> world_a, std::span<Transform> world_b);

// Kernel: world transforms of the subset's joints for frames [begin, end) of `clip`, frame-major
// into `world_out` ((end - begin) * subset.size() entries, frame `begin` first). Frames are taken
// in pairs (forward_kinematics_pair) from `begin`, an odd last frame alone: the same bits as one
// frame at a time.
void forward_kinematics_frames(const JointSubset& subset, const Clip& clip, int begin, int end,
                               const Transform& clip_to_world, std::span<Transform> world_out);

}  // namespace ikfix::core
