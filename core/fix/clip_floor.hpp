#pragma once
// The clip's own floor, before the fix: the level the input's feet are planted on.
#include <optional>
#include <vector>

namespace ikfix::core {

struct ClipFloor {
  double height_m = 0;      // world Y, metres
  const char* method = "";  // "user", "file origin" or "estimated"
};

// The user's floor when given; else y = 0 when the feet rest just above it (the 5th percentile
// of `lowest`, the lowest foot point per frame, within 0.15 leg lengths above 0: the usual mocap
// set-up); else that 5th percentile.
ClipFloor clip_floor(std::vector<double> lowest, double leg_length,
                     const std::optional<double>& user_floor);

}  // namespace ikfix::core
