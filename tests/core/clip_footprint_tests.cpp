#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/clip_footprint.hpp"
#include "core/parallel.hpp"
#include "core/view/report_view.hpp"

namespace ikfix::core {
namespace {

// A pelvis 1 unit above a foot; the pelvis moves 2 units along +x over two frames; a third
// joint (a hand) 3 units out along +z that a caller may leave out.
struct Walker {
  Skeleton skeleton;
  Clip clip;
  Walker() {
    skeleton.names = {"pelvis", "foot", "hand"};
    skeleton.parents = {-1, 0, 0};
    skeleton.rest.resize(3);
    skeleton.end_sites.resize(3);
    clip.joint_count = 3;
    clip.frame_count = 2;
    clip.locals.resize(6);
    for (int f = 0; f < 2; ++f) {
      clip.at(f, 0).translation = Vec3(2.0 * f, 1.0, 0.0);
      clip.at(f, 1).translation = Vec3(0.0, -1.0, 0.0);
      clip.at(f, 2).translation = Vec3(0.0, 0.0, 3.0);
    }
  }
};

void expect_box(const XzBox& b, double min_x, double min_z, double max_x, double max_z) {
  EXPECT_DOUBLE_EQ(b.min_x, min_x);
  EXPECT_DOUBLE_EQ(b.min_z, min_z);
  EXPECT_DOUBLE_EQ(b.max_x, max_x);
  EXPECT_DOUBLE_EQ(b.max_z, max_z);
}

TEST(ClipFootprint, JointBoundsGrownByTheMarginAndHalfTheVerticalExtent) {
  const Walker w;
  const std::vector<int> legs = {0, 1};
  // Bounds x 0..2, z 0..0; vertical extent 1 m: grown by 0.25 + 0.5.
  const double m = kFootprintMargin + 0.5;
  expect_box(clip_footprint(w.skeleton, w.clip, ClipSpace{}, legs), -m, -m, 2 + m, m);
}

TEST(ClipFootprint, AViewAddsItsMarginOnly) {
  const Walker w;
  const std::vector<int> legs = {0, 1};
  const double m = kFootprintMargin + kViewTerrainMargin + 0.5;
  expect_box(clip_footprint(w.skeleton, w.clip, ClipSpace{}, legs, kViewTerrainMargin), -m, -m,
             2 + m, m);
}

TEST(ClipFootprint, EveryJointWhenNoneIsNamed) {
  const Walker w;
  // The hand widens z to 3 and stays at y 1: the vertical extent is still 1 m.
  const double m = kFootprintMargin + 0.5;
  expect_box(clip_footprint(w.skeleton, w.clip, ClipSpace{}, {}), -m, -m, 2 + m, 3 + m);
}

TEST(ClipFootprint, PlacedByTheClipSpace) {
  const Walker w;
  ClipSpace space;
  space.metres_per_unit = 0.5;
  space.world_offset = Vec3(10.0, 0.0, -4.0);
  const std::vector<int> legs = {0, 1};
  // Bounds x 10..11, z -4; vertical extent 0.5 m.
  const double m = kFootprintMargin + 0.25;
  expect_box(clip_footprint(w.skeleton, w.clip, space, legs), 10 - m, -4 - m, 11 + m, -4 + m);
}

TEST(ClipFootprint, TheRestPoseGivesTheLegsReachOfACrawl) {
  Walker w;
  w.skeleton.rest[0].translation = Vec3(0.0, 1.0, 0.0);
  w.skeleton.rest[1].translation = Vec3(0.0, -1.0, 0.0);  // standing: the foot 1 m below
  for (int f = 0; f < 2; ++f) w.clip.at(f, 1).translation = Vec3(0.0, 0.0, 0.5);  // crawling
  const std::vector<int> legs = {0, 1};
  // Bounds x 0..2, z 0..0.5, all at y 1: the rest pose's 1 m gives the margin.
  const double m = kFootprintMargin + 0.5;
  expect_box(clip_footprint(w.skeleton, w.clip, ClipSpace{}, legs), -m, -m, 2 + m, 0.5 + m);
  // A rest pose shorter than the motion changes nothing.
  w.skeleton.rest[1].translation = Vec3(0.0, -0.2, 0.0);
  w.clip.at(0, 1).translation = Vec3(0.0, -1.0, 0.0);
  expect_box(clip_footprint(w.skeleton, w.clip, ClipSpace{}, legs), -m, -m, 2 + m, 0.5 + m);
}

TEST(ClipFootprint, NonFiniteJointsSkippedAndNoneFiniteIsEmpty) {
  Walker w;
  w.clip.at(1, 0).translation.x = std::numeric_limits<double>::quiet_NaN();  // frame 1 skipped
  const std::vector<int> legs = {0, 1};
  const double m = kFootprintMargin + 0.5;
  expect_box(clip_footprint(w.skeleton, w.clip, ClipSpace{}, legs), -m, -m, m, m);
  w.clip.at(0, 0).translation.x = std::numeric_limits<double>::quiet_NaN();
  const XzBox none = clip_footprint(w.skeleton, w.clip, ClipSpace{}, legs);
  EXPECT_GT(none.min_x, none.max_x);
}

// A clip long enough to be split over threads, the pelvis wandering on a curve whose extremes
// fall in different ranges, a non-finite frame in each half: the box is the same bits on a pool.
TEST(ClipFootprint, TheSameBitsOnAPool) {
  Walker w;
  const int frames = 5000;
  w.clip.frame_count = frames;
  w.clip.locals.resize(static_cast<std::size_t>(frames) * 3);
  for (int f = 0; f < frames; ++f) {
    const double t = 0.001 * f;
    w.clip.at(f, 0).translation =
        Vec3(std::sin(7.0 * t) + 0.1 * t, 1.0 + 0.1 * std::cos(t), std::cos(5.0 * t) - 0.3 * t);
    w.clip.at(f, 1).translation = Vec3(0.0, -1.0, 0.0);
    w.clip.at(f, 2).translation = Vec3(0.0, 0.0, 3.0);
  }
  w.clip.at(1000, 0).translation.x = std::numeric_limits<double>::quiet_NaN();
  w.clip.at(4000, 1).translation.z = std::numeric_limits<double>::infinity();
  const std::vector<int> legs = {0, 1};
  const XzBox alone = clip_footprint(w.skeleton, w.clip, ClipSpace{}, legs);
  for (int threads : {2, 3, 8}) {
    const ThreadPool pool(threads);
    const XzBox split = clip_footprint(w.skeleton, w.clip, ClipSpace{}, legs, 0.0, &pool);
    EXPECT_EQ(std::memcmp(&alone, &split, sizeof(XzBox)), 0) << threads << " threads";
  }
  const double m = kFootprintMargin;
  EXPECT_LT(alone.min_x, -1.0 + 0.1 - m);  // a plausible box, not an empty one
  EXPECT_GT(alone.max_x, 1.0 + m);
}

}  // namespace
}  // namespace ikfix::core
