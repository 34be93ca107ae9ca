#pragma once
// Sampled animation of one skeleton, and the mapping from the clip's space to the world.
#include <span>
#include <vector>

#include "core/math.hpp"
#include "core/unwritten_resize.hpp"

namespace ikfix::core {

// Local transform of every joint at every frame, frame-major and contiguous:
// locals[frame * joint_count + joint]. Units and axes are the clip's own (see ClipSpace).
// A reader may size `locals` with resize_unwritten and then write every transform itself.
struct Clip {
  double fps = 30.0;  // frames per second (> 0)
  int frame_count = 0;
  int joint_count = 0;
  UnwrittenResizeVector<Transform> locals;

  double frame_time() const { return 1.0 / fps; }  // seconds
  std::span<Transform> frame(int f) {
    return {locals.data() + static_cast<std::size_t>(f) * joint_count,
            static_cast<std::size_t>(joint_count)};
  }
  std::span<const Transform> frame(int f) const {
    return {locals.data() + static_cast<std::size_t>(f) * joint_count,
            static_cast<std::size_t>(joint_count)};
  }
  Transform& at(int f, int j) { return locals[static_cast<std::size_t>(f) * joint_count + j]; }
  const Transform& at(int f, int j) const {
    return locals[static_cast<std::size_t>(f) * joint_count + j];
  }
};

// How the clip's space maps to ikfix's world space (metres, Y up, right-handed). Applied above
// the skeleton's roots, so local rotations below the roots need no conversion and untouched
// joints stay bit-exact.
struct ClipSpace {
  double metres_per_unit = 1.0;
  Quat to_world_rotation{1.0, 0.0, 0.0, 0.0};  // e.g. Z-up -> Y-up
  Vec3 world_offset{0.0};                      // metres, added after scale and rotation

  Transform to_world() const {
    Transform t;
    t.translation = world_offset;
    t.rotation = to_world_rotation;
    t.scale = Vec3(metres_per_unit);
    return t;
  }
};

}  // namespace ikfix::core
