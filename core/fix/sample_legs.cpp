#include "core/fix/sample_legs.hpp"

#include <algorithm>
#include <cmath>

#include "core/fix/fix_parallel.hpp"
#include "core/fix/leg_solve.hpp"

namespace ikfix::core {

JointSubset fix_subset(const Skeleton& sk, const LegRig& rig) {
  std::vector<int> leg_joints = {rig.pelvis};
  for (const Leg& leg : rig.legs)
    for (int j : {leg.hip, leg.knee, leg.ankle, leg.toe})
      if (j >= 0) leg_joints.push_back(j);
  return JointSubset(sk, leg_joints);
}

namespace {

// Frame f's foot points, span and ankle inverse into `out`; returns the frame's tightest knee
// bend where a knee folds past `limit_cos` (else `knee_limit`).
double sample_frame_legs(const Skeleton& sk, const LegRig& rig, int f, double limit_cos,
                         double knee_limit, LegSamples& out) {
  auto W = [&](int j) -> const Transform& { return out.at(f, j); };
  for (int l = 0; l < 2; ++l) {
    const Leg& leg = rig.legs[l];
    const auto& end_site = sk.end_sites[leg.ankle];
    FootTrack& feet = out.feet[l];
    feet.ankle[f] = W(leg.ankle).translation;
    feet.toe[f] = leg.toe >= 0 ? W(leg.toe).translation
                  : end_site   ? transform_point(W(leg.ankle), *end_site)
                               : feet.ankle[f];
    const Vec3& hip = W(leg.hip).translation;
    const Vec3& knee = W(leg.knee).translation;
    const Vec3& ankle = W(leg.ankle).translation;
    out.leg_span[l][f] = glm::length(knee - hip) + glm::length(ankle - knee);
    out.ankle_rotation_inverse[l][f] = glm::inverse(W(leg.ankle).rotation);
    // Only frames folded past the setting need the angle itself (a dot product tells them).
    if (glm::dot(hip - knee, ankle - knee) >
        limit_cos * glm::length(hip - knee) * glm::length(ankle - knee))
      knee_limit = std::min(knee_limit, knee_angle(hip, knee, ankle));
  }
  out.lowest[f] = std::min(
      {out.feet[0].ankle[f].y, out.feet[0].toe[f].y, out.feet[1].ankle[f].y, out.feet[1].toe[f].y});
  return knee_limit;
}

}  // namespace

LegSamples sample_legs(const Skeleton& sk, const Clip& clip, const LegRig& rig,
                       const Transform& to_world, double min_knee_angle,
                       const ParallelRunner* runner) {
  const int frames = clip.frame_count;
  LegSamples out(fix_subset(sk, rig));
  const int slots = out.subset.size();
  // Not zero-filled first: FK writes every element, and so its pages are first touched on the
  // threads of the loop below.
  resize_unwritten(out.world, static_cast<std::size_t>(frames) * slots);
  for (int l = 0; l < 2; ++l) {
    out.ankle_rotation_inverse[l].resize(frames);
    out.feet[l].ankle.resize(frames);
    out.feet[l].toe.resize(frames);
    out.leg_span[l].resize(frames);
  }
  out.lowest.resize(frames);
  const double limit_cos = std::cos(min_knee_angle);
  // A minimum is the same whatever order the ranges are combined in.
  out.knee_limit_angle = parallel_reduce_ordered(
      runner, frames, kMinLightFramesPerRange, min_knee_angle,
      [&](int begin, int end, double& range_knee_limit) {
        for (int f = begin; f < end; ++f) {
          // Each pair's FK on its first frame, while the frames' transforms are in cache for
          // what is read of them.
          if ((f - begin) % 2 == 0) {
            const int pair_end = std::min(f + 2, end);
            forward_kinematics_frames(
                out.subset, clip, f, pair_end, to_world,
                std::span<Transform>(out.world.data() + static_cast<std::size_t>(f) * slots,
                                     static_cast<std::size_t>(slots) * (pair_end - f)));
          }
          range_knee_limit = sample_frame_legs(sk, rig, f, limit_cos, range_knee_limit, out);
        }
      },
      [](double& total, double range) { total = std::min(total, range); });
  return out;
}

void gather_ankle_rotation_and_hip_height(const LegSamples& samples, const Leg& leg, int frames,
                                          std::vector<Quat>& ankle_rotation,
                                          std::vector<double>& hip_height) {
  ankle_rotation.resize(frames);
  hip_height.resize(frames);
  for (int f = 0; f < frames; ++f) {
    ankle_rotation[f] = samples.at(f, leg.ankle).rotation;
    hip_height[f] = samples.at(f, leg.hip).translation.y;
  }
}

}  // namespace ikfix::core
