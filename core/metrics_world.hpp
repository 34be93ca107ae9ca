#pragma once
// The measures' one pass of forward kinematics over a clip (measure_clip): the world transforms
// of the joints they follow and every measured bone's length change per frame. Only what the
// measures read is made: a leaf joint's world rotation and scale (no child reads them) and the
// transforms of the joints not followed are not, unless a visitor asks for every joint's.
#include <cstddef>
#include <span>
#include <vector>

#include "core/clip.hpp"
#include "core/metrics.hpp"
#include "core/parallel.hpp"
#include "core/skeleton.hpp"
#include "core/unwritten_resize.hpp"

namespace ikfix::core {

// A bone whose length is measured: joint `joint` against its parent, `rest_m` long at rest, its
// change relative to `scale_m` (bone_length_scale_m).
struct MeasuredBone {
  int joint = 0;
  int parent = 0;
  double rest_m = 0;
  double scale_m = 0;
};

// The world transforms (forward_kinematics of the clip with `to_world`, bit for bit) of the
// `kept` joints, frame-major, and per frame each bone's relative length change
// |world length - rest| / scale. Each frame's transforms of every joint go to `with_world` when
// it is set (then every joint's are made).
struct ClipWorld {
  UnwrittenResizeVector<Transform> world;  // [frame * kept + slot_of[joint]]
  std::vector<int> joints;                 // the kept joints, ascending
  std::vector<int> slot_of;                // per joint: its slot in a frame of `world`, -1 if not
  int kept = 0;
  std::size_t frame_count = 0;
  UnwrittenResizeVector<double> bone_change;  // [bone * frames + frame]

  ClipWorld(const Skeleton& sk, const Clip& clip, const Transform& to_world,
            std::span<const int> kept_joints, std::span<const MeasuredBone> bones,
            const MetricsInput::WorldVisitor& with_world, const ParallelRunner* runner);

  const Transform& transform(int f, int j) const {
    return world[f * static_cast<std::size_t>(kept) + slot_of[j]];
  }
  const Vec3& at(int f, int j) const { return transform(f, j).translation; }
};

// How many of the clip's transforms have an infinite or NaN number. x - x is 0 for a finite x
// and NaN for an infinite or NaN one, so the sum of a transform's ten is 0 exactly when all ten
// are finite: one test a transform (its ten numbers taken two at a time) instead of ten.
// `rotation_not_read` (per joint, or empty): joints whose rotation is tested by the caller's word
// (MetricsInput::rotation_not_read), only their translation and scale here. Throws
// std::invalid_argument when it is neither empty nor one flag per joint.
int count_non_finite(const Clip& clip, std::span<const char> rotation_not_read = {});

}  // namespace ikfix::core
