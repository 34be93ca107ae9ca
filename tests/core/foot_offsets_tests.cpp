#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/fix/foot_offsets.hpp"
#include "core/fix/smooth.hpp"

namespace ikfix::core {
namespace {

struct Plan {
  std::vector<char> planted = std::vector<char>(80, 0);
  std::vector<double> need = std::vector<double>(80, 0.0);
  std::vector<double> ground_rel = std::vector<double>(80, 0.0);
  std::vector<char> keep_constant = std::vector<char>(80, 0);
  Plan() {
    // Two plants: frames 10..25 on the floor, 50..70 on a 0.15 m step (the need varies inside).
    for (int f = 10; f <= 25; ++f) planted[f] = 1, need[f] = 0.01 * (f % 3);
    for (int f = 50; f <= 70; ++f) planted[f] = 1, need[f] = 0.15 + 0.01 * (f % 2);
    for (int f = 26; f < 50; ++f) need[f] = f > 40 ? 0.16 : 0.0;  // the step edge ahead
  }
  std::vector<double> offsets(bool follow_need) const {
    return foot_offsets(planted, need, ground_rel, plant_ease_weight(planted, 4), 2.0, 5.0, 0.02,
                        follow_need, keep_constant);
  }
};

TEST(FootOffsets, ConstantInEachPlantAtItsHighestNeedAndNeverBelowTheNeed) {
  const Plan p;
  const auto off = p.offsets(false);
  ASSERT_EQ(off.size(), 80u);
  for (int f = 10; f <= 25; ++f) EXPECT_EQ(off[f], 0.02) << f;
  for (int f = 50; f <= 70; ++f) EXPECT_EQ(off[f], 0.16) << f;
  for (int f = 0; f < 80; ++f) EXPECT_GE(off[f], p.need[f] - 1e-12) << f;
}

TEST(FootOffsets, FollowingTheNeedTracksItInsideAPlantUnlessKeptConstant) {
  Plan p;
  const auto off = p.offsets(true);
  for (int f = 10; f <= 25; ++f) EXPECT_EQ(off[f], p.need[f]) << f;
  p.keep_constant[60] = 1;  // one frame keeps its plant constant
  const auto kept = p.offsets(true);
  for (int f = 50; f <= 70; ++f) EXPECT_EQ(kept[f], 0.16) << f;
  for (int f = 10; f <= 25; ++f) EXPECT_EQ(kept[f], p.need[f]) << f;
}

TEST(FootOffsets, SwingRisesWithinTheRateLimitWhereTheFloorLifts) {
  const Plan p;
  const auto off = p.offsets(false);
  // The 0.16 m the step edge needs is reached by a ramp over several frames, not in one jump.
  double largest_step = 0;
  for (int f = 27; f < 50; ++f) largest_step = std::max(largest_step, off[f] - off[f - 1]);
  EXPECT_LT(largest_step, 0.16 / 4);
  EXPECT_GT(off[45], 0.1);  // already up before the step
}

TEST(FootOffsets, WithoutPlantsTheOffsetFollowsTheSmoothedGround) {
  Plan p;
  std::fill(p.planted.begin(), p.planted.end(), 0);
  std::fill(p.need.begin(), p.need.end(), -1.0);
  std::fill(p.ground_rel.begin(), p.ground_rel.end(), 0.3);
  const auto off = p.offsets(false);
  for (int f = 0; f < 80; ++f) EXPECT_NEAR(off[f], 0.3, 1e-12) << f;
}

}  // namespace
}  // namespace ikfix::core
