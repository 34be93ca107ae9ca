#pragma once
// Forward kinematics: local transforms -> world transforms.
#include <span>

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

}  // namespace ikfix::core
