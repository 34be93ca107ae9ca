// The measures' forward kinematics (ClipWorld): the kept joints' world transforms and every
// bone's length change are those of one frame's forward_kinematics bit for bit, on every frame
// of a clip with an odd frame count, leaves included, with and without the every-joint visitor.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/fk.hpp"
#include "core/metrics_world.hpp"
#include "fk_test_skeletons.hpp"

namespace ikfix::core {
namespace {

using test_util::branching_skeleton;

Clip random_clip(const Skeleton& s, int frames, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), scale(0.5, 1.5);
  Clip clip;
  clip.fps = 30;
  clip.frame_count = frames;
  clip.joint_count = s.joint_count();
  for (int k = 0; k < frames * s.joint_count(); ++k) {
    Transform t;
    t.translation = Vec3(u(rng), u(rng), u(rng));
    t.rotation = glm::normalize(Quat(u(rng), u(rng), u(rng), u(rng)));
    t.scale = Vec3(scale(rng), scale(rng), scale(rng));
    clip.locals.push_back(t);
  }
  return clip;
}

bool same_bits(const Transform& a, const Transform& b) {
  return std::memcmp(&a, &b, sizeof(Transform)) == 0;
}

// Every bone but the root's children's, against a made-up rest length.
std::vector<MeasuredBone> bones_of(const Skeleton& s) {
  std::vector<MeasuredBone> bones;
  for (int j = 0; j < s.joint_count(); ++j)
    if (s.parents[j] > 0) bones.push_back({j, s.parents[j], 0.3 + 0.01 * j, 0.3 + 0.01 * j});
  return bones;
}

void expect_single_frame_bits(const ClipWorld& w, const Skeleton& s, const Clip& clip,
                              const Transform& to_world, std::span<const MeasuredBone> bones) {
  std::vector<Transform> world(s.joint_count());
  for (int f = 0; f < clip.frame_count; ++f) {
    forward_kinematics(s, clip.frame(f), to_world, world);
    for (int j : w.joints) EXPECT_TRUE(same_bits(w.transform(f, j), world[j])) << f << " " << j;
    for (std::size_t b = 0; b < bones.size(); ++b) {
      const MeasuredBone& bone = bones[b];
      const double change =
          std::abs(glm::length(world[bone.joint].translation - world[bone.parent].translation) -
                   bone.rest_m) /
          bone.scale_m;
      const double got = w.bone_change[b * clip.frame_count + f];
      EXPECT_EQ(std::memcmp(&got, &change, sizeof change), 0) << f << " bone " << b;
    }
  }
}

Transform some_to_world() {
  Transform t;
  t.translation = Vec3(0.1, -0.2, 0.3);
  t.rotation = glm::normalize(Quat(0.9, 0.1, -0.3, 0.2));
  t.scale = Vec3(0.01);
  return t;
}

TEST(MetricsWorld, KeptJointsAndBoneChangesAreSingleFrameFkBits) {
  const Skeleton s = branching_skeleton();
  const std::vector<MeasuredBone> bones = bones_of(s);
  const Transform to_world = some_to_world();
  for (int frames : {1, 2, 7, 300}) {
    const Clip clip = random_clip(s, frames, 5 + frames);
    // Leaves kept (5) and not (2, 8); a joint in the middle kept (4) and not (1, 7).
    const std::vector<int> kept = {0, 4, 5};
    const ClipWorld w(s, clip, to_world, kept, bones, nullptr, nullptr);
    expect_single_frame_bits(w, s, clip, to_world, bones);
  }
}

TEST(MetricsWorld, TheVisitorSeesEveryJointOfEveryFrame) {
  const Skeleton s = branching_skeleton();
  const std::vector<MeasuredBone> bones = bones_of(s);
  const Transform to_world = some_to_world();
  const Clip clip = random_clip(s, 301, 3);
  std::vector<int> seen(clip.frame_count, 0);
  std::mutex m;
  const MetricsInput::WorldVisitor visit = [&](int f, std::span<const Transform> world_ws) {
    std::vector<Transform> world(s.joint_count());
    forward_kinematics(s, clip.frame(f), to_world, world);
    const std::lock_guard lock(m);
    ++seen[f];
    ASSERT_EQ(world_ws.size(), world.size());
    for (int j = 0; j < s.joint_count(); ++j)
      EXPECT_TRUE(same_bits(world_ws[j], world[j])) << f << " " << j;
  };
  const ThreadPool pool(2);
  const std::vector<int> kept = {2, 3};
  const ClipWorld w(s, clip, to_world, kept, bones, visit, &pool);
  for (int f = 0; f < clip.frame_count; ++f) EXPECT_EQ(seen[f], 1) << f;
  expect_single_frame_bits(w, s, clip, to_world, bones);
}

// The non-finite count with joints whose rotation was not read: a NaN rotation there is not
// counted, one anywhere else is, and a flag list of the wrong size is refused, not read past.
TEST(MetricsWorld, NonFiniteCountSkipsOnlyTheFlaggedRotations) {
  const Skeleton s = branching_skeleton();
  Clip clip = random_clip(s, 130, 4);
  const int leaf = s.joint_count() - 1;
  const double nan = std::nan("");
  for (int f = 0; f < clip.frame_count; f += 2)
    clip.locals[f * clip.joint_count + leaf].rotation.w = nan;
  clip.locals[7 * clip.joint_count].translation.y = nan;
  std::vector<char> flags(s.joint_count(), 0);
  EXPECT_EQ(count_non_finite(clip), 66);
  EXPECT_EQ(count_non_finite(clip, flags), 66);
  flags[leaf] = 1;
  EXPECT_EQ(count_non_finite(clip, flags), 1);
  clip.locals[9 * clip.joint_count + leaf].scale.x = nan;  // a flagged joint's scale still counts
  EXPECT_EQ(count_non_finite(clip, flags), 2);
  flags.pop_back();
  EXPECT_THROW(count_non_finite(clip, flags), std::invalid_argument);
}

}  // namespace
}  // namespace ikfix::core
