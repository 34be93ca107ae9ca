#include <gtest/gtest.h>

#include <vector>

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
  for (int f = 3; f <= 7; ++f) EXPECT_EQ(planted_point_speed(toe, planted, plant, f, kFps), 0.0) << f;
  // Not planted: no speed of its own.
  EXPECT_EQ(planted_point_speed(toe, planted, plant, 2, kFps), -1.0);
  EXPECT_EQ(planted_point_speed(toe, planted, plant, 8, kFps), -1.0);
}

TEST(PlantedPointSpeed, RealSlidingIsMeasuredCentralInsideAndOneSidedAtTheEnds) {
  std::vector<Vec3> p;
  for (int f = 0; f <= 6; ++f) p.push_back({0.003 * f, 0.0, 0.004 * f});  // 0.5 cm per frame, horizontal
  p[6].y = 0.3;                                                              // vertical motion is not sliding
  p[6].x = p[5].x;
  p[6].z = p[5].z;
  const std::vector<char> planted(7, 1);
  const Interval plant{0, 6};
  EXPECT_NEAR(planted_point_speed(p, planted, plant, 0, kFps), 0.5, 1e-12);  // one-sided at the start
  EXPECT_NEAR(planted_point_speed(p, planted, plant, 3, kFps), 0.5, 1e-12);  // central
  EXPECT_NEAR(planted_point_speed(p, planted, plant, 5, kFps), 0.25, 1e-12); // central over 4..6
  EXPECT_NEAR(planted_point_speed(p, planted, plant, 6, kFps), 0.0, 1e-12);  // one-sided at the end
  // The plant bounds the differences even where the point is planted beyond it.
  EXPECT_NEAR(planted_point_speed(p, planted, Interval{3, 5}, 3, kFps), 0.5, 1e-12);
}

TEST(PlantedPointSpeed, APointDownForOneFrameHasNoSpeed) {
  const std::vector<Vec3> p(5, Vec3(0.0));
  const std::vector<char> planted = {0, 0, 1, 0, 0};
  EXPECT_EQ(planted_point_speed(p, planted, Interval{0, 4}, 2, kFps), -1.0);
}

}  // namespace
}  // namespace ikfix::core
