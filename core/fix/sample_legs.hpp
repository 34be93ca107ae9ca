#pragma once
// Step 1: sample every frame of the input: world transforms (metres, Y up) of the legs and their
// ancestors, and what later steps read of each frame's legs. Every read of the input motion by
// the fix goes through this subset (FK) or names one of its joints (joints_fix_reads).
#include <algorithm>
#include <span>
#include <vector>

#include "core/clip.hpp"
#include "core/fk.hpp"
#include "core/legs.hpp"
#include "core/math.hpp"
#include "core/parallel.hpp"
#include "core/skeleton.hpp"
#include "core/unwritten_resize.hpp"

namespace ikfix::core {

// Foot points tracked per frame (world metres): the ankle joint and the toe (toe joint, else the
// ankle's end site, else the ankle itself).
struct FootTrack {
  std::vector<Vec3> ankle, toe;
};

// The pelvis, the legs and their ancestors: the only joints the fix reads (joints_fix_reads).
JointSubset fix_subset(const Skeleton& sk, const LegRig& rig);

struct LegSamples {
  explicit LegSamples(JointSubset leg_subset) : subset(std::move(leg_subset)) {}
  JointSubset subset;
  // World transforms of the subset, frame-major: world[f * subset.size() + slot].
  UnwrittenResizeVector<Transform> world;
  const Transform& at(int f, int joint) const {
    return world[static_cast<std::size_t>(f) * static_cast<std::size_t>(subset.size()) +
                 static_cast<std::size_t>(subset.slot_of[joint])];
  }
  FootTrack feet[2];                // per leg, the input's foot points
  std::vector<double> leg_span[2];  // per leg and frame: |knee - hip| + |ankle - knee|, metres
  // Per leg and frame: the inverse of the input ankle's world rotation, which carries the toe
  // with the turned foot (every plan pass, the toe bend, the write-back).
  std::vector<Quat> ankle_rotation_inverse[2];
  std::vector<double> lowest;  // per frame: the lowest of the four foot points' Y
  // The knees' bend limit (radians): the setting, or the input's own tightest knee bend where it
  // folds further. `ikfix check` measures the limit the same way: the worst over both knees,
  // held to the input's own.
  double knee_limit_angle = 0;
};

// Samples every frame of `clip` (split over `runner`; the same bits with any runner).
LegSamples sample_legs(const Skeleton& sk, const Clip& clip, const LegRig& rig,
                       const Transform& to_world, double min_knee_angle,
                       const ParallelRunner* runner);

// The input's ankle world rotation and hip height (world Y, metres) of `leg` per frame, which
// every plan pass reads: gathered once into contiguous arrays.
void gather_ankle_rotation_and_hip_height(const LegSamples& samples, const Leg& leg, int frames,
                                          std::vector<Quat>& ankle_rotation,
                                          std::vector<double>& hip_height);

// How far leg l may reach from its hip on frame f (metres, steps 5b and 6): `max_reach` times
// the longer leg's length, or times this frame's own hip-knee-ankle span where that is shorter.
inline double leg_reach(const LegSamples& samples, double max_reach, double leg_length, int l,
                        int f) {
  return std::min(max_reach * leg_length, max_reach * samples.leg_span[l][f]);
}

}  // namespace ikfix::core
