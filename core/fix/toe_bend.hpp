#pragma once
// Toes bend at the ball joint: a planted foot turned to the ground (or standing on its ball with
// the heel up) can push the toe tips into a rising ground; they turn up about the ball instead.
#include "core/math.hpp"

namespace ikfix::core {

struct ToeLift {
  double angle = 0;    // radians, >= 0: how far the toes turn up
  Vec3 axis{1, 0, 0};  // world, horizontal, through the ball; +angle raises the tip
};

// `ball`, `tip`: world positions (metres, Y up) of the toe joint and the toe's end; the smallest
// turn about the ball's horizontal lateral axis that brings the tip up to `min_tip_y`, at most
// `max_angle`. Zero when the tip is already high enough or the toes point straight up/down (the
// axis is set whenever the toes point somewhere forward).
ToeLift toe_lift(const Vec3& ball, const Vec3& tip, double min_tip_y, double max_angle);

}  // namespace ikfix::core
