#include "core/metrics_world.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/lanes.hpp"

namespace ikfix::core {
namespace {

// Frames of forward kinematics a thread is worth starting for.
constexpr int kFramesPerRange = 256;

// What the pass makes of one joint (per joint of the skeleton).
struct JointJob {
  int parent = -1;
  bool turns =
      false;  // its world rotation and scale are made: a child, the kept or the visitor read them
  int slot = -1;                   // its slot among the kept joints, or -1
  int bone = -1;                   // the measured bone ending at it, or -1
  double rest_m = 0, scale_m = 0;  // that bone's
};

std::vector<JointJob> joint_jobs(const Skeleton& sk, std::span<const int> kept_joints,
                                 std::span<const MeasuredBone> bones, bool every_joint) {
  const int n = sk.joint_count();
  std::vector<JointJob> jobs(n);
  for (int j = 0; j < n; ++j) {
    jobs[j].parent = sk.parents[j];
    jobs[j].turns = every_joint;
    if (sk.parents[j] >= 0) jobs[sk.parents[j]].turns = true;
  }
  for (std::size_t k = 0; k < kept_joints.size(); ++k) {
    jobs[kept_joints[k]].slot = static_cast<int>(k);
    jobs[kept_joints[k]].turns = true;
  }
  for (std::size_t b = 0; b < bones.size(); ++b) {
    JointJob& job = jobs[bones[b].joint];
    job.bone = static_cast<int>(b);
    job.rest_m = bones[b].rest_m;
    job.scale_m = bones[b].scale_m;
  }
  return jobs;
}

// Two frames' world transforms (lane 0 `a`, lane 1 `b`) into `w`, one per joint: compose() of
// every joint's, in skeleton order, each lane the bits of one frame's forward_kinematics. A joint
// whose job does not turn gets its translation only.
void pair_world(std::span<const JointJob> jobs, const Transform* a, const Transform* b,
                const LaneTransform& root, LaneTransform* w) {
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const JointJob& job = jobs[j];
    const LaneTransform& p = job.parent < 0 ? root : w[job.parent];
    w[j].translation =
        p.translation + p.rotation * (p.scale * lanes_of(a[j].translation, b[j].translation));
    if (!job.turns) continue;
    w[j].rotation = p.rotation * lanes_of(a[j].rotation, b[j].rotation);
    w[j].scale = p.scale * lanes_of(a[j].scale, b[j].scale);
  }
}

// |glm::length(t - parent t) - rest| / scale in each lane: the same operations in glm's order
// (dot as (x x + y y) + z z, then the square root).
Lanes bone_change_lanes(const LaneVec3& t, const LaneVec3& parent_t, const JointJob& job) {
  const LaneVec3 d{t.x - parent_t.x, t.y - parent_t.y, t.z - parent_t.z};
  const Lanes sq = (d.x * d.x + d.y * d.y) + d.z * d.z;
  Lanes change;
  for (int i = 0; i < 2; ++i) change[i] = std::abs(std::sqrt(sq[i]) - job.rest_m) / job.scale_m;
  return change;
}

}  // namespace

ClipWorld::ClipWorld(const Skeleton& sk, const Clip& clip, const Transform& to_world,
                     std::span<const int> kept_joints, std::span<const MeasuredBone> bones,
                     const MetricsInput::WorldVisitor& with_world, const ParallelRunner* runner)
    : joints(kept_joints.begin(), kept_joints.end()),
      slot_of(sk.joint_count(), -1),
      kept(static_cast<int>(kept_joints.size())),
      frame_count(static_cast<std::size_t>(clip.frame_count)) {
  for (int k = 0; k < kept; ++k) slot_of[kept_joints[k]] = k;
  resize_unwritten(world, frame_count * kept);                // every slot written below
  resize_unwritten(bone_change, bones.size() * frame_count);  // every bone and frame too
  const std::vector<JointJob> jobs = joint_jobs(sk, kept_joints, bones, bool(with_world));
  const int n = sk.joint_count();
  const LaneTransform root = lanes_of(to_world, to_world);
  parallel_ranges(runner, clip.frame_count, kFramesPerRange, [&](int begin, int end) {
    std::vector<LaneTransform> w(n);
    std::vector<Transform> every(with_world ? 2 * static_cast<std::size_t>(n) : 0);
    for (int f = begin; f < end; f += 2) {
      // An odd last frame takes both lanes (the lanes do not mix), only lane 0 is kept.
      const int lanes = f + 1 < end ? 2 : 1;
      pair_world(jobs, clip.frame(f).data(), clip.frame(f + lanes - 1).data(), root, w.data());
      for (int j = 0; j < n; ++j) {
        const JointJob& job = jobs[j];
        if (job.slot >= 0)
          for (int i = 0; i < lanes; ++i)
            store_lane(w[j], i, world[(f + i) * static_cast<std::size_t>(kept) + job.slot]);
        if (job.bone >= 0) {
          const Lanes change = bone_change_lanes(w[j].translation, w[job.parent].translation, job);
          for (int i = 0; i < lanes; ++i) bone_change[job.bone * frame_count + f + i] = change[i];
        }
      }
      if (!with_world) continue;
      for (int i = 0; i < lanes; ++i) {
        const std::span<Transform> frame_world(every.data() + i * static_cast<std::size_t>(n), n);
        for (int j = 0; j < n; ++j) store_lane(w[j], i, frame_world[j]);
        with_world(f + i, frame_world);
      }
    }
  });
}

namespace {

// 0 when the ten numbers of `t` are all finite, else NaN (see count_non_finite).
inline double non_finite_sum(const Transform& t) {
  const char* bytes = reinterpret_cast<const char*>(&t);
  const auto part = [bytes](int i) {
    Lanes v;  // loaded where it is used: no copy of the transform is kept
    std::memcpy(&v, bytes + i * sizeof(Lanes), sizeof v);
    return v - v;
  };
  const Lanes zero = ((part(0) + part(1)) + (part(2) + part(3))) + part(4);
  return zero[0] + zero[1];
}

// The same for the translation and scale of `t` only.
inline double non_finite_sum_without_rotation(const Transform& t) {
  const Vec3 a = t.translation - t.translation, b = t.scale - t.scale;
  return (a.x + a.y + a.z) + (b.x + b.y + b.z);
}

}  // namespace

int count_non_finite(const Clip& clip, std::span<const char> rotation_not_read) {
  static_assert(sizeof(Transform) == 5 * sizeof(Lanes), "a Transform is ten doubles");
  int n = 0;
  if (rotation_not_read.empty()) {
    for (const Transform& t : clip.locals)
      if (!(non_finite_sum(t) == 0.0)) ++n;
    return n;
  }
  if (rotation_not_read.size() != static_cast<std::size_t>(clip.joint_count))
    throw std::invalid_argument("count_non_finite: " + std::to_string(rotation_not_read.size()) +
                                " rotation flags for " + std::to_string(clip.joint_count) +
                                " joints");
  // Joint by joint in blocks of frames (no test of the flags per transform; a block's
  // transforms stay in the cache while its joints are gone through).
  constexpr int kFramesPerBlock = 64;
  const std::size_t stride = static_cast<std::size_t>(clip.joint_count);
  for (int first = 0; first < clip.frame_count; first += kFramesPerBlock) {
    const int frames = std::min(kFramesPerBlock, clip.frame_count - first);
    for (int j = 0; j < clip.joint_count; ++j) {
      const Transform* t = clip.locals.data() + first * stride + j;
      const Transform* const end = t + frames * stride;
      if (rotation_not_read[j]) {
        for (; t < end; t += stride)
          if (!(non_finite_sum_without_rotation(*t) == 0.0)) ++n;
      } else {
        for (; t < end; t += stride)
          if (!(non_finite_sum(*t) == 0.0)) ++n;
      }
    }
  }
  return n;
}

}  // namespace ikfix::core
