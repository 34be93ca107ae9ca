#pragma once
// Foot contact detection on the input motion: a foot is planted when it is near the clip's own
// floor and slow, with hysteresis and a minimum duration.
#include <span>
#include <vector>

namespace ikfix::core {

struct ContactSettings {
  double height_threshold = 0.05;  // metres above the point's planted level (scaled by leg length)
  double speed_threshold = 0.20;   // metres/second (scaled by leg length)
  double hysteresis = 1.5;         // release when height or speed exceeds threshold * this
  double min_duration = 0.05;      // seconds; shorter plants and gaps are removed (>= 3 frames)
};

// Contact of one foot with the floor per frame. `heights[p][f]` is the height of foot point p
// (e.g. ankle, toe) above its planted level, metres; `speeds[p][f]` its speed, m/s. A foot is
// planted when any point is planted. Output: one flag per frame.
std::vector<char> detect_contacts(std::span<const std::vector<double>> heights,
                                  std::span<const std::vector<double>> speeds, double fps,
                                  const ContactSettings& settings);

// The contacts of a foot with two points (heel, toe) in one sweep over the frames: into `foot`
// what detect_contacts gives for both points, into `point[p]` what it gives for point p alone
// (the same flags as the three calls, in about the time of one). Heights and speeds as above.
void detect_foot_and_point_contacts(const std::vector<double> (&heights)[2],
                                    const std::vector<double> (&speeds)[2], double fps,
                                    const ContactSettings& settings, std::vector<char>& foot,
                                    std::vector<char> (&point)[2]);

// Intervals [first, last] of consecutive planted frames.
struct Interval {
  int first = 0;
  int last = 0;
};
std::vector<Interval> contact_intervals(std::span<const char> planted);

}  // namespace ikfix::core
