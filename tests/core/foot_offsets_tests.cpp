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

// Lifting off toward a plant 45 cm higher whose step edges the foot must clear at once (the
// bundled walk up the stairs): the frames after lift-off take the least jerk that stays at the
// need, instead of rising at the rate the need asks a few frames later and braking hard.
TEST(FootOffsets, LiftOffTowardAHigherPlantEasesOutWithLittleJerk) {
  const int n = 60;
  std::vector<char> planted(n, 0), keep(n, 0);
  std::vector<double> need(n, 0.0), ground(n, 0.0);
  for (int f = 5; f <= 25; ++f) planted[f] = 1;
  for (int f = 40; f < n; ++f) planted[f] = 1, need[f] = 0.45;
  const double steps[] = {0.0, 0.06, 0.11, 0.10, 0.25, 0.25, 0.39, 0.39, 0.39, 0.41};
  for (int f = 26; f < 40; ++f) need[f] = f - 26 < 10 ? steps[f - 26] : 0.43;
  auto offsets = [&](int rise_in_frames) {
    return foot_offsets(planted, need, ground, plant_ease_weight(planted, 2), 0.6, 1.5, 0.033,
                        false, keep, rise_in_frames);
  };
  // The largest jerk (central third difference, as metrics measure it) around lift-off.
  auto largest_jerk = [](const std::vector<double>& x) {
    double out = 0;
    for (int f = 22; f < 38; ++f)
      out = std::max(out, std::abs(x[f + 2] - 2 * x[f + 1] + 2 * x[f - 1] - x[f - 2]) / 2);
    return out;
  };
  const auto eased = offsets(9), sharp = offsets(0);
  for (int f = 0; f < n; ++f) EXPECT_GE(eased[f], need[f] - 1e-12) << f;
  for (int f = 0; f <= 25; ++f) EXPECT_EQ(eased[f], sharp[f]) << f;  // the plant is not moved
  for (int f = 36; f < n; ++f) EXPECT_EQ(eased[f], sharp[f]) << f;   // nor the swing's end
  EXPECT_LT(largest_jerk(eased), 0.5 * largest_jerk(sharp));
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
