// Step 5d (swing_ease.hpp) on a synthetic foot over flat ground: a swing whose planned height
// climbs at once from lift-off. (Its guard against a slide the check would see is exercised by
// the regression suite: boxing_toes and cmu_60_02 slid 0.15-0.2 m/s without it.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/fix/swing_ease.hpp"

namespace ikfix::core {
namespace {

constexpr int kFrames = 60;
constexpr double kFps = 30;

// Plants 0..19 (ankle at 0.1 m) and 40..59; the swing between climbs `climb` metres a frame
// from its first frame, ahead at `speed` m/s (the toe 12 cm ahead of the ankle, 6 cm lower).
struct Foot {
  std::vector<char> planted = std::vector<char>(kFrames, 0);
  std::vector<double> input_ankle = std::vector<double>(kFrames, 0.1);
  std::vector<GroundHit> ground = std::vector<GroundHit>(kFrames, GroundHit{true, 0.0});
  std::vector<Vec3> ankle, toe;
  ContactSettings contacts;
  explicit Foot(double speed = 0, double climb = 0.01) {
    for (int f = 0; f < kFrames; ++f) {
      planted[f] = f < 20 || f >= 40;
      const double y = 0.1 + climb * std::clamp(f - 19, 0, 20);
      const double z = speed / kFps * std::clamp(f - 19, 0, 20);
      ankle.push_back(Vec3(0, y, z));
      toe.push_back(Vec3(0, y - 0.06, z + 0.12));
    }
  }
  SwingEaseJob job() const {
    return SwingEaseJob{planted, input_ankle,        ground, ground, &contacts, kFps, 4,
                        18,      kSwingEaseMinChange};
  }
};

double largest_jerk(const std::vector<Vec3>& p, int from, int to) {
  double most = 0;
  for (int f = from; f <= to; ++f)
    most = std::max(most, std::abs(0.5 * p[f + 2].y - p[f + 1].y + p[f - 1].y - 0.5 * p[f - 2].y));
  return most;
}

TEST(SwingEase, ASwingThatClimbsAtOnceStartsUpBeforeItsLiftOff) {
  Foot foot(0.0);
  const std::vector<Vec3> ankle = foot.ankle, toe = foot.toe;
  const SwingEaseJob job = foot.job();
  ASSERT_TRUE(job.validate());
  EXPECT_GT(job.run(foot.ankle, foot.toe), 0);
  for (int f = 0; f < kFrames; ++f) {
    // Only raised, straight up, heel and toe together; the plants held but for the lead.
    EXPECT_GE(foot.ankle[f].y, ankle[f].y) << f;
    EXPECT_EQ(foot.ankle[f].x, ankle[f].x) << f;
    EXPECT_EQ(foot.ankle[f].z, ankle[f].z) << f;
    EXPECT_NEAR(foot.toe[f].y - toe[f].y, foot.ankle[f].y - ankle[f].y, 1e-12) << f;
    if (f < 16 || f >= 40) {
      EXPECT_EQ(foot.ankle[f].y, ankle[f].y) << f;
    }
  }
  EXPECT_GT(foot.ankle[18].y, ankle[18].y);
  // The lift-off's kink (1 cm a frame at once) spread: its jerk at most half.
  EXPECT_LT(largest_jerk(foot.ankle, 14, 27), 0.5 * largest_jerk(ankle, 14, 27));
}

// The same climb, the foot moving ahead from lift-off at 0.15 m/s: eased, it would rise slowly
// enough there for the check to count its first swing frames planted, sliding. That half of
// the swing (the first max_frames / 2 frames from the lead) is left as it was; the landing
// half is eased as on the spot.
TEST(SwingEase, AnEaseTheCheckWouldSeeSlideIsLeft) {
  Foot still(0.0), ahead(0.15);
  const std::vector<Vec3> ankle = ahead.ankle;
  const int eased = still.job().run(still.ankle, still.toe);
  const int kept = ahead.job().run(ahead.ankle, ahead.toe);
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, eased);
  for (int f = 16; f < 25; ++f) EXPECT_EQ(ahead.ankle[f].y, ankle[f].y) << f;
}

TEST(SwingEase, ASwingTheFixDidNotChangeIsLeft) {
  Foot foot(0.0);
  for (int f = 0; f < kFrames; ++f) foot.input_ankle[f] = foot.ankle[f].y;  // the animation's own
  const std::vector<Vec3> ankle = foot.ankle;
  EXPECT_EQ(foot.job().run(foot.ankle, foot.toe), 0);
  EXPECT_EQ(foot.ankle, ankle);
}

}  // namespace
}  // namespace ikfix::core
