#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "core/fix/ground_memo.hpp"
#include "core/parallel.hpp"
#include "core/terrain.hpp"
#include "core/terrain_gen.hpp"

namespace ikfix::core {
namespace {

// A foot track wandering over bumps (and off the terrain at the end).
std::vector<Vec3> track(int frames) {
  std::vector<Vec3> points;
  for (int f = 0; f < frames; ++f)
    points.push_back({-9.5 + 0.37 * f, 0.1, 0.2 * std::sin(0.3 * f)});
  return points;
}

void expect_same_hits(std::span<const GroundHit> got, const std::vector<Vec3>& points,
                      const Terrain& terrain) {
  std::vector<std::array<double, 2>> xz;
  for (const Vec3& p : points) xz.push_back({p.x, p.z});
  std::vector<GroundHit> want(points.size());
  terrain.ground_at(xz, want);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].hit, want[i].hit) << i;
    EXPECT_EQ(got[i].height, want[i].height) << i;  // bit for bit, not nearly
    EXPECT_EQ(got[i].normal, want[i].normal) << i;
    EXPECT_EQ(got[i].triangle, want[i].triangle) << i;
  }
}

TEST(GroundMemo, AnswersAsTheTerrainDoesAndCastsOnlyMovedPoints) {
  BumpsParams bumps;
  bumps.cell = 0.25;
  const Terrain terrain(make_bumps_terrain(bumps));
  std::vector<Vec3> points = track(60);
  ASSERT_FALSE(
      terrain.ground_at(points.back().x, points.back().z).hit);  // a miss is remembered too

  GroundMemo memo;
  expect_same_hits(memo.query(terrain, points), points, terrain);
  EXPECT_EQ(memo.last_cast_count(), points.size());

  // Height changes alone cast nothing; horizontal moves cast just those points.
  for (Vec3& p : points) p.y += 0.3;
  expect_same_hits(memo.query(terrain, points), points, terrain);
  EXPECT_EQ(memo.last_cast_count(), 0u);
  points[3].x += 0.05;
  points[40].z -= 1e-9;
  for (int f = 20; f < 30; ++f) points[f].x += 0.5;
  expect_same_hits(memo.query(terrain, points), points, terrain);
  EXPECT_EQ(memo.last_cast_count(), 12u);

  // -0.0 is not the same bits as 0.0: cast again rather than assume the same answer.
  points[5].z = 0.0;
  memo.query(terrain, points);
  points[5].z = -0.0;
  expect_same_hits(memo.query(terrain, points), points, terrain);
  EXPECT_EQ(memo.last_cast_count(), 1u);

  // Points not where this memo last looked but where another memo of the same track length
  // did reuse its answers.
  GroundMemo other;
  std::vector<Vec3> moved = points;
  for (int f = 0; f < 15; ++f) moved[f].x += 0.2;
  other.query(terrain, moved);
  expect_same_hits(memo.query(terrain, moved, &other), moved, terrain);
  EXPECT_EQ(memo.last_cast_count(), 0u);

  // Another track length starts afresh.
  points.resize(10);
  expect_same_hits(memo.query(terrain, points), points, terrain);
  EXPECT_EQ(memo.last_cast_count(), 10u);
}

// Runs loops on `pool`, noting each range it hands out.
class RecordingRunner final : public ParallelRunner {
 public:
  RecordingRunner(const ThreadPool& pool, std::mutex& mutex,
                  std::vector<std::pair<int, int>>& ranges)
      : pool_(pool), mutex_(mutex), ranges_(ranges) {}
  int threads() const override { return pool_.threads(); }
  void for_ranges(int count, const std::function<void(int, int)>& body) const override {
    pool_.for_ranges(count, [&](int begin, int end) {
      {
        std::lock_guard lock(mutex_);
        ranges_.emplace_back(begin, end);
      }
      body(begin, end);
    });
  }

 private:
  const ThreadPool& pool_;
  std::mutex& mutex_;
  std::vector<std::pair<int, int>>& ranges_;
};

// Rays split over threads in runs of whole packets: each answer is the one a single call gives,
// for every packet width, on stairs (rays on step edges take the nudged path) and off the
// terrain; and a memo with a runner answers as one without.
TEST(GroundAtParallel, SameAnswersAsOneCallAtAnyThreadCount) {
  StairsParams stairs;
  stairs.size = 8.0;
  std::vector<std::array<double, 2>> xz;
  for (int i = 0; i < 6001; ++i) {           // enough for 3 threads, not a multiple of 2 or 3
    const double along = -4.5 + 0.0015 * i;  // past the border at both ends, across every riser
    xz.push_back({0.7 * std::sin(0.05 * i), i % 7 == 0 ? 0.5 + 0.3 * (i % 10) : along});
  }
  {
    const Terrain terrain(make_stairs_terrain(stairs));
    std::vector<GroundHit> want(xz.size());
    terrain.ground_at(xz, want);
    for (int threads : {2, 3}) {
      const ThreadPool pool(threads);
      std::vector<GroundHit> got(xz.size());
      // The ranges the pool ran, in block indices: the points really were split.
      std::mutex mutex;
      std::vector<std::pair<int, int>> ranges;
      const RecordingRunner recording(pool, mutex, ranges);
      ground_at_parallel(terrain, xz, got, &recording);
      ASSERT_EQ(ranges.size(), static_cast<std::size_t>(threads));
      for (std::size_t i = 0; i < xz.size(); ++i) {
        ASSERT_EQ(got[i].hit, want[i].hit) << "threads " << threads << " point " << i;
        ASSERT_EQ(std::memcmp(&got[i].height, &want[i].height, sizeof(double)), 0) << i;
        ASSERT_EQ(std::memcmp(&got[i].normal, &want[i].normal, sizeof(Vec3)), 0) << i;
        ASSERT_EQ(got[i].triangle, want[i].triangle) << i;
      }
    }
  }
  const Terrain terrain(make_stairs_terrain(stairs));
  std::vector<Vec3> points;
  for (const auto& p : xz) points.push_back({p[0], 0.0, p[1]});
  const ThreadPool pool(2);
  GroundMemo memo;
  memo.use_runner(&pool);
  expect_same_hits(memo.query(terrain, points), points, terrain);
  EXPECT_EQ(memo.last_cast_count(), points.size());
}

}  // namespace
}  // namespace ikfix::core
