#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/fix/contacts.hpp"

namespace ikfix::core {
namespace {

// Per-frame (height, speed) of one foot point, built from runs.
struct Track {
  std::vector<double> heights, speeds;
  Track& run(int frames, double height, double speed) {
    for (int i = 0; i < frames; ++i) {
      heights.push_back(height);
      speeds.push_back(speed);
    }
    return *this;
  }
  // Typical values: planted (1 cm, 2 cm/s) and swinging (30 cm, 1.5 m/s).
  Track& plant(int frames) { return run(frames, 0.01, 0.02); }
  Track& swing(int frames) { return run(frames, 0.3, 1.5); }
};

std::vector<char> detect(const std::vector<Track>& points, double fps = 30.0,
                         const ContactSettings& settings = {}) {
  std::vector<std::vector<double>> heights, speeds;
  for (const Track& t : points) {
    heights.push_back(t.heights);
    speeds.push_back(t.speeds);
  }
  return detect_contacts(heights, speeds, fps, settings);
}

std::vector<char> detect(const Track& point, double fps = 30.0,
                         const ContactSettings& settings = {}) {
  return detect(std::vector<Track>{point}, fps, settings);
}

// "0011100" style rendering for readable failures.
std::string str(const std::vector<char>& planted) {
  std::string s;
  for (char c : planted) s.push_back(c ? '1' : '0');
  return s;
}

std::string pattern(std::initializer_list<std::pair<int, char>> runs) {
  std::string s;
  for (const auto& [n, c] : runs) s.append(static_cast<std::size_t>(n), c);
  return s;
}

TEST(ContactsDetect, ClearPlant) {
  const auto planted = detect(Track().swing(10).plant(20).swing(10));
  EXPECT_EQ(str(planted), pattern({{10, '0'}, {20, '1'}, {10, '0'}}));
  const auto intervals = contact_intervals(planted);
  ASSERT_EQ(intervals.size(), 1u);
  EXPECT_EQ(intervals[0].first, 10);
  EXPECT_EQ(intervals[0].last, 29);
}

TEST(ContactsDetect, WalkingHasOneIntervalPerStep) {
  Track t;
  for (int step = 0; step < 4; ++step) t.swing(12).plant(18);
  const auto intervals = contact_intervals(detect(t));
  ASSERT_EQ(intervals.size(), 4u);
  for (int step = 0; step < 4; ++step) {
    EXPECT_EQ(intervals[step].first, 30 * step + 12);
    EXPECT_EQ(intervals[step].last, 30 * step + 29);
  }
}

TEST(ContactsDetect, BothThresholdsMustHold) {
  // Low but fast (sliding through), or slow but high (apex of a jump): not planted.
  EXPECT_EQ(str(detect(Track().swing(5).run(10, 0.01, 1.0).swing(5))), std::string(20, '0'));
  EXPECT_EQ(str(detect(Track().swing(5).run(10, 0.3, 0.01).swing(5))), std::string(20, '0'));
}

TEST(ContactsDetect, HysteresisKeepsAPlantBetweenThresholdAndOneAndAHalfTimesIt) {
  // 0.06 m and 0.25 m/s are above the thresholds (0.05, 0.20) but below 1.5x (0.075, 0.30).
  const auto kept = detect(Track().swing(5).plant(5).run(10, 0.06, 0.25).swing(10));
  EXPECT_EQ(str(kept), pattern({{5, '0'}, {15, '1'}, {10, '0'}}));
  // Height alone in the band, speed alone in the band.
  EXPECT_EQ(str(detect(Track().swing(5).plant(5).run(10, 0.07, 0.02).swing(10))),
            pattern({{5, '0'}, {15, '1'}, {10, '0'}}));
  EXPECT_EQ(str(detect(Track().swing(5).plant(5).run(10, 0.01, 0.29).swing(10))),
            pattern({{5, '0'}, {15, '1'}, {10, '0'}}));
}

TEST(ContactsDetect, HysteresisBandDoesNotStartAPlant) {
  EXPECT_EQ(str(detect(Track().swing(5).run(10, 0.06, 0.25).swing(5))), std::string(20, '0'));
  EXPECT_EQ(str(detect(Track().swing(5).run(10, 0.07, 0.02).swing(5))), std::string(20, '0'));
}

TEST(ContactsDetect, LeavingTheBandReleases) {
  // Past 1.5x height (0.08 > 0.075) or speed (0.31 > 0.30): released at once.
  EXPECT_EQ(str(detect(Track().swing(5).plant(5).run(10, 0.08, 0.02))),
            pattern({{5, '0'}, {5, '1'}, {10, '0'}}));
  EXPECT_EQ(str(detect(Track().swing(5).plant(5).run(10, 0.01, 0.31))),
            pattern({{5, '0'}, {5, '1'}, {10, '0'}}));
}

TEST(ContactsDetect, CustomHysteresis) {
  ContactSettings s;
  s.hysteresis = 1.0;  // no band: 0.06 releases immediately
  EXPECT_EQ(str(detect(Track().swing(5).plant(5).run(10, 0.06, 0.02), 30.0, s)),
            pattern({{5, '0'}, {5, '1'}, {10, '0'}}));
  s.hysteresis = 3.0;  // 0.14 < 0.15 keeps it
  EXPECT_EQ(str(detect(Track().swing(5).plant(5).run(10, 0.14, 0.02), 30.0, s)),
            pattern({{5, '0'}, {15, '1'}}));
}

TEST(ContactsDetect, ShortFlickersInsideAPlantAreRemoved) {
  // At 30 fps the minimum is 3 frames: 1- and 2-frame lifts inside a plant are noise.
  const auto planted =
      detect(Track().swing(5).plant(10).swing(1).plant(5).swing(2).plant(10).swing(5));
  EXPECT_EQ(str(planted), pattern({{5, '0'}, {28, '1'}, {5, '0'}}));
  EXPECT_EQ(contact_intervals(planted).size(), 1u);
  // A 3-frame lift is a real step.
  const auto step = detect(Track().swing(5).plant(10).swing(3).plant(10).swing(5));
  EXPECT_EQ(str(step), pattern({{5, '0'}, {10, '1'}, {3, '0'}, {10, '1'}, {5, '0'}}));
}

TEST(ContactsDetect, ShortPlantsAreRemoved) {
  EXPECT_EQ(str(detect(Track().swing(10).plant(1).swing(10))), std::string(21, '0'));
  EXPECT_EQ(str(detect(Track().swing(10).plant(2).swing(10))), std::string(22, '0'));
  EXPECT_EQ(str(detect(Track().swing(10).plant(3).swing(10))),
            pattern({{10, '0'}, {3, '1'}, {10, '0'}}));
}

TEST(ContactsDetect, MinimumDurationScalesWithFps) {
  // 0.05 s at 120 fps = 6 frames.
  EXPECT_EQ(str(detect(Track().swing(20).plant(5).swing(20), 120.0)), std::string(45, '0'));
  EXPECT_EQ(str(detect(Track().swing(20).plant(6).swing(20), 120.0)),
            pattern({{20, '0'}, {6, '1'}, {20, '0'}}));
  // Gaps likewise: 5 frames closed, 6 kept.
  EXPECT_EQ(str(detect(Track().swing(20).plant(20).swing(5).plant(20).swing(20), 120.0)),
            pattern({{20, '0'}, {45, '1'}, {20, '0'}}));
  EXPECT_EQ(str(detect(Track().swing(20).plant(20).swing(6).plant(20).swing(20), 120.0)),
            pattern({{20, '0'}, {20, '1'}, {6, '0'}, {20, '1'}, {20, '0'}}));
  // A longer minimum from the settings: 0.25 s at 30 fps = 8 frames (rounded from 7.5).
  ContactSettings s;
  s.min_duration = 0.25;
  EXPECT_EQ(str(detect(Track().swing(10).plant(7).swing(10), 30.0, s)), std::string(27, '0'));
  EXPECT_EQ(str(detect(Track().swing(10).plant(8).swing(10), 30.0, s)),
            pattern({{10, '0'}, {8, '1'}, {10, '0'}}));
  // Never below 3 frames, even at low frame rates.
  EXPECT_EQ(str(detect(Track().swing(5).plant(2).swing(5), 10.0)), std::string(12, '0'));
}

TEST(ContactsDetect, ClipEdges) {
  // A short plant at either end is removed; a short gap at either end is kept (the motion
  // before the clip is unknown).
  EXPECT_EQ(str(detect(Track().plant(2).swing(10))), std::string(12, '0'));
  EXPECT_EQ(str(detect(Track().swing(10).plant(2))), std::string(12, '0'));
  EXPECT_EQ(str(detect(Track().swing(2).plant(10))), pattern({{2, '0'}, {10, '1'}}));
  EXPECT_EQ(str(detect(Track().plant(10).swing(2))), pattern({{10, '1'}, {2, '0'}}));
  // Planted throughout.
  const auto all = detect(Track().plant(15));
  EXPECT_EQ(str(all), std::string(15, '1'));
  const auto intervals = contact_intervals(all);
  ASSERT_EQ(intervals.size(), 1u);
  EXPECT_EQ(intervals[0].first, 0);
  EXPECT_EQ(intervals[0].last, 14);
}

TEST(ContactsDetect, AnyPointPlantsTheFoot) {
  // Heel (ankle) lifting while the toe stays down: still planted.
  Track ankle = Track().swing(5).plant(10).run(10, 0.12, 0.5).swing(5);
  Track toe = Track().swing(5).plant(20).swing(5);
  EXPECT_EQ(str(detect({ankle, toe})), pattern({{5, '0'}, {20, '1'}, {5, '0'}}));
  // Each point must satisfy both thresholds itself: a low-but-fast ankle and a slow-but-high
  // toe do not make a plant together.
  Track fast_low = Track().run(10, 0.01, 1.0);
  Track slow_high = Track().run(10, 0.3, 0.01);
  EXPECT_EQ(str(detect({fast_low, slow_high})), std::string(10, '0'));
}

TEST(ContactsDetect, HysteresisStateIsSharedByThePoints) {
  // The ankle plants; then only the toe is in the hysteresis band: the foot stays planted.
  Track ankle = Track().swing(5).plant(5).swing(10);
  Track toe = Track().swing(5).run(15, 0.06, 0.1);
  EXPECT_EQ(str(detect({ankle, toe})), pattern({{5, '0'}, {15, '1'}}));
}

TEST(ContactsDetect, NoPointsOrNoFrames) {
  EXPECT_TRUE(detect(std::vector<Track>{}).empty());
  EXPECT_TRUE(detect(Track()).empty());
}

// detect_foot_and_point_contacts against the three detect_contacts calls it stands for. Returns
// the foot's planted frames.
long expect_same_as_separate_calls(const Track& heel, const Track& toe, double fps,
                                   const ContactSettings& settings) {
  const std::vector<double> heights[2] = {heel.heights, toe.heights},
                            speeds[2] = {heel.speeds, toe.speeds};
  std::vector<char> foot, point[2];
  detect_foot_and_point_contacts(heights, speeds, fps, settings, foot, point);
  EXPECT_EQ(str(foot), str(detect({heel, toe}, fps, settings)));
  EXPECT_EQ(str(point[0]), str(detect(heel, fps, settings)));
  EXPECT_EQ(str(point[1]), str(detect(toe, fps, settings)));
  return std::count(foot.begin(), foot.end(), 1);
}

TEST(ContactsFootAndPoints, HeelAloneToeAloneAndTheFoot) {
  // The heel plants first and lifts while the toe is still down (a step's roll).
  const Track heel = Track().swing(5).plant(10).swing(15);
  const Track toe = Track().swing(10).plant(12).swing(8);
  const std::vector<double> heights[2] = {heel.heights, toe.heights},
                            speeds[2] = {heel.speeds, toe.speeds};
  std::vector<char> foot, point[2];
  detect_foot_and_point_contacts(heights, speeds, 30.0, {}, foot, point);
  EXPECT_EQ(str(point[0]), pattern({{5, '0'}, {10, '1'}, {15, '0'}}));
  EXPECT_EQ(str(point[1]), pattern({{10, '0'}, {12, '1'}, {8, '0'}}));
  EXPECT_EQ(str(foot), pattern({{5, '0'}, {17, '1'}, {8, '0'}}));
  expect_same_as_separate_calls(heel, toe, 30.0, {});
}

TEST(ContactsFootAndPoints, SameAsSeparateCallsOnNoisyTracks) {
  // Heights and speeds wandering across both thresholds and the hysteresis band, so plants
  // start, hold in the band, flicker and end at random, at two frame rates and hysteresis.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> height(0.0, 0.1), speed(0.0, 0.4);
  long planted = 0, frames = 0;
  for (int trial = 0; trial < 20; ++trial) {
    Track heel, toe;
    for (int f = 0; f < 300; ++f) {
      heel.run(1, height(rng), speed(rng));
      toe.run(1, height(rng), speed(rng));
    }
    ContactSettings settings;
    settings.hysteresis = trial % 2 ? 1.5 : 1.2;
    planted += expect_same_as_separate_calls(heel, toe, trial % 3 ? 30.0 : 120.0, settings);
    frames += 300;
  }
  // Both states were exercised.
  EXPECT_GT(planted, frames / 10);
  EXPECT_LT(planted, frames - frames / 10);
}

TEST(ContactsFootAndPoints, NoFrames) {
  const std::vector<double> none[2];
  std::vector<char> foot{1}, point[2] = {{1}, {1}};
  detect_foot_and_point_contacts(none, none, 30.0, {}, foot, point);
  EXPECT_TRUE(foot.empty());
  EXPECT_TRUE(point[0].empty());
  EXPECT_TRUE(point[1].empty());
}

TEST(ContactsIntervals, Runs) {
  EXPECT_TRUE(contact_intervals(std::vector<char>{}).empty());
  EXPECT_TRUE(contact_intervals(std::vector<char>{0, 0, 0}).empty());
  const auto one = contact_intervals(std::vector<char>{1});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].first, 0);
  EXPECT_EQ(one[0].last, 0);
  const auto runs = contact_intervals(std::vector<char>{1, 1, 0, 1, 1, 1, 0, 0, 1});
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].first, 0);
  EXPECT_EQ(runs[0].last, 1);
  EXPECT_EQ(runs[1].first, 3);
  EXPECT_EQ(runs[1].last, 5);
  EXPECT_EQ(runs[2].first, 8);
  EXPECT_EQ(runs[2].last, 8);
  // Any non-zero value counts as planted.
  const auto nonzero = contact_intervals(std::vector<char>{0, 2, 5, 0});
  ASSERT_EQ(nonzero.size(), 1u);
  EXPECT_EQ(nonzero[0].first, 1);
  EXPECT_EQ(nonzero[0].last, 2);
}

}  // namespace
}  // namespace ikfix::core
