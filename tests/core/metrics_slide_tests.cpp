#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/fix/contacts.hpp"
#include "core/metrics.hpp"

namespace ikfix::core {
namespace {

constexpr double kFps = 100.0;

// A toe that comes down moving forward 1 cm per frame, is planted and still on frames 3-7
// (the foot's plant is 0-10: the heel is down around it), then rolls off moving again.
std::vector<Vec3> toe_track() {
  std::vector<Vec3> p;
  for (int f = 0; f <= 10; ++f) {
    const double z = f < 3 ? 0.01 * (f - 3) : f > 7 ? 0.01 * (f - 7) : 0.0;
    p.push_back({0.2, 0.02, 1.0 + z});
  }
  return p;
}

TEST(PlantedPointSpeed, TouchdownAndLiftOffAreNotSliding) {
  const auto toe = toe_track();
  std::vector<char> planted(11, 0);
  for (int f = 3; f <= 7; ++f) planted[f] = 1;
  const Interval plant{0, 10};
  // Still over every pair of its own planted frames, first and last included (a central
  // difference at 3 or 7 would span the swing and report 50 cm/s).
  for (int f = 3; f <= 7; ++f)
    EXPECT_EQ(planted_point_speed(toe, planted, plant, f, kFps), 0.0) << f;
  // Not planted: no speed of its own.
  EXPECT_EQ(planted_point_speed(toe, planted, plant, 2, kFps), -1.0);
  EXPECT_EQ(planted_point_speed(toe, planted, plant, 8, kFps), -1.0);
}

TEST(PlantedPointSpeed, RealSlidingIsMeasuredCentralInsideAndOneSidedAtTheEnds) {
  std::vector<Vec3> p;
  for (int f = 0; f <= 6; ++f)
    p.push_back({0.003 * f, 0.0, 0.004 * f});  // 0.5 cm per frame, horizontal
  p[6].y = 0.3;                                // vertical motion is not sliding
  p[6].x = p[5].x;
  p[6].z = p[5].z;
  const std::vector<char> planted(7, 1);
  const Interval plant{0, 6};
  EXPECT_NEAR(planted_point_speed(p, planted, plant, 0, kFps), 0.5,
              1e-12);  // one-sided at the start
  EXPECT_NEAR(planted_point_speed(p, planted, plant, 3, kFps), 0.5, 1e-12);   // central
  EXPECT_NEAR(planted_point_speed(p, planted, plant, 5, kFps), 0.25, 1e-12);  // central over 4..6
  EXPECT_NEAR(planted_point_speed(p, planted, plant, 6, kFps), 0.0, 1e-12);  // one-sided at the end
  // The plant bounds the differences even where the point is planted beyond it.
  EXPECT_NEAR(planted_point_speed(p, planted, Interval{3, 5}, 3, kFps), 0.5, 1e-12);
}

TEST(PlantedPointSpeed, APointDownForOneFrameHasNoSpeed) {
  const std::vector<Vec3> p(5, Vec3(0.0));
  const std::vector<char> planted = {0, 0, 1, 0, 0};
  EXPECT_EQ(planted_point_speed(p, planted, Interval{0, 4}, 2, kFps), -1.0);
}

// A foot rolling from heel to toe: the heel is held still on frames 0-5 while the toe comes
// down moving; from frame 4 the toe is held and the heel lifts and moves away.
struct RollingFoot {
  std::vector<Vec3> points[2];
  std::vector<char> point_planted[2];
  std::vector<char> planted;
};

RollingFoot rolling_foot() {
  RollingFoot foot;
  for (int f = 0; f <= 9; ++f) {
    foot.points[0].push_back(
        {0.0, 0.0, f <= 5 ? 0.0 : 0.02 * (f - 5)});  // heel: 2 cm per frame after 5
    foot.points[1].push_back(
        {0.0, 0.0, 0.2 + (f < 4 ? 0.01 * (f - 4) : 0.0)});  // toe: 1 cm per frame until 4
    foot.point_planted[0].push_back(f <= 6 ? 1 : 0);
    foot.point_planted[1].push_back(f >= 2 && f <= 8 ? 1 : 0);
    foot.planted.push_back(f <= 8 ? 1 : 0);
  }
  return foot;
}

TEST(PlantSlide, IsTheSpeedOfThePlantedPointThatMovesLeast) {
  const RollingFoot foot = rolling_foot();
  const Interval plant{0, 8};
  int pivot = -1;
  // Heel alone down and still.
  EXPECT_EQ(plant_slide(foot.points[0], foot.points[1], foot.point_planted, plant, 1, kFps, pivot),
            0.0);
  EXPECT_EQ(pivot, 0);
  // Both down: the still heel is the pivot, not the toe coming down at 1 m/s.
  EXPECT_EQ(plant_slide(foot.points[0], foot.points[1], foot.point_planted, plant, 3, kFps, pivot),
            0.0);
  EXPECT_EQ(pivot, 0);
  // Both down, the heel moving off (one-sided 5..6, its last planted frame: 2 m/s): the held
  // toe is the pivot.
  EXPECT_EQ(plant_slide(foot.points[0], foot.points[1], foot.point_planted, plant, 6, kFps, pivot),
            0.0);
  EXPECT_EQ(pivot, 1);
  // Neither down: no sliding, pivot unchanged.
  EXPECT_EQ(plant_slide(foot.points[0], foot.points[1], foot.point_planted, Interval{9, 9}, 9, kFps,
                        pivot),
            -1.0);
  EXPECT_EQ(pivot, 1);
}

TEST(WorstPlantSlide, IsZeroWhenTheHeldPointIsAlwaysOneThatIsDown) {
  const RollingFoot foot = rolling_foot();
  EXPECT_EQ(
      worst_plant_slide(foot.points[0], foot.points[1], foot.planted, foot.point_planted, kFps),
      0.0);
}

TEST(WorstPlantSlide, FindsAFrameWhereOnlyAMovingPointIsDown) {
  RollingFoot foot = rolling_foot();
  // The heel is seen down on frames 0-1 only: on frames 2 and 3 the toe, still coming down
  // 1 cm per frame (1 m/s at 100 fps), is the only point down.
  for (int f = 2; f <= 9; ++f) foot.point_planted[0][f] = 0;
  EXPECT_NEAR(
      worst_plant_slide(foot.points[0], foot.points[1], foot.planted, foot.point_planted, kFps),
      1.0, 1e-12);
  // Frames outside every plant are not measured (the toe is still from frame 4 on).
  std::vector<char> planted(10, 0);
  for (int f = 5; f <= 8; ++f) planted[f] = 1;
  EXPECT_EQ(worst_plant_slide(foot.points[0], foot.points[1], planted, foot.point_planted, kFps),
            0.0);
}

TEST(WorstPlantSlideAt, SaysWhereAndOnWhichPoint) {
  RollingFoot foot = rolling_foot();
  for (int f = 2; f <= 9; ++f) foot.point_planted[0][f] = 0;
  const PlantSlideAt worst =
      worst_plant_slide_at(foot.points[0], foot.points[1], foot.planted, foot.point_planted, kFps);
  EXPECT_NEAR(
      worst.speed,
      worst_plant_slide(foot.points[0], foot.points[1], foot.planted, foot.point_planted, kFps),
      1e-15);
  EXPECT_EQ(worst.point, 1);  // the toe, down alone
  EXPECT_TRUE(worst.frame == 2 || worst.frame == 3) << worst.frame;
  const PlantSlideAt none = worst_plant_slide_at(
      foot.points[0], foot.points[1], rolling_foot().planted, rolling_foot().point_planted, kFps);
  EXPECT_EQ(none.speed, 0.0);
  EXPECT_EQ(none.frame, -1);
  EXPECT_EQ(none.point, -1);
}

// The worst searches skip frames whose bound shows they cannot beat the worst so far: on
// speeds that differ in the last bits, both still give plant_slide's bits at the frame (and
// point) that a measure of every frame finds.
TEST(WorstPlantSlide, TheSameBitsAsEveryFrameMeasured) {
  const int frames = 400;
  std::vector<Vec3> heel, toe;
  std::vector<char> planted(frames, 0), point_planted[2];
  point_planted[0].assign(frames, 0);
  point_planted[1].assign(frames, 0);
  double x = 0;
  for (int f = 0; f < frames; ++f) {
    // Steps that grow and shrink, some equal to the last bit, some a few ulps apart.
    const double step = 1e-3 * (1.0 + 0.5 * std::sin(0.37 * f)) + (f % 7 == 0 ? 1e-18 : 0.0);
    x += f % 11 == 0 ? step * (1 + 4e-16) : step;
    heel.push_back({x, 0.0, 0.3 * x});
    toe.push_back({x * (1 + 1e-3 * std::cos(0.21 * f)), 0.0, 0.1});
    planted[f] = f % 50 < 40 ? 1 : 0;
    point_planted[0][f] = f % 25 < 20 ? 1 : 0;
    point_planted[1][f] = f % 13 < 9 ? 1 : 0;
  }
  double every = 0;
  PlantSlideAt every_at;
  for (const Interval& iv : contact_intervals(planted))
    for (int f = iv.first; f <= iv.last; ++f) {
      int pivot = -1;
      const double slide = plant_slide(heel, toe, point_planted, iv, f, kFps, pivot);
      every = std::max(every, slide);
      if (slide > every_at.speed) every_at = {slide, f, pivot};
    }
  ASSERT_GT(every, 0.0);
  const double worst = worst_plant_slide(heel, toe, planted, point_planted, kFps);
  EXPECT_EQ(std::memcmp(&worst, &every, sizeof worst), 0) << worst << " " << every;
  const PlantSlideAt at = worst_plant_slide_at(heel, toe, planted, point_planted, kFps);
  EXPECT_EQ(std::memcmp(&at.speed, &every_at.speed, sizeof at.speed), 0);
  EXPECT_EQ(at.frame, every_at.frame);
  EXPECT_EQ(at.point, every_at.point);
}

}  // namespace
}  // namespace ikfix::core
