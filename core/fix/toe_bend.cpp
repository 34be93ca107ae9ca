#include "core/fix/toe_bend.hpp"

#include <algorithm>
#include <cmath>

namespace ikfix::core {

ToeLift toe_lift(const Vec3& ball, const Vec3& tip, double min_tip_y, double max_angle) {
  ToeLift out;
  const Vec3 r = tip - ball;
  const Vec3 forward = safe_normalize(Vec3(r.x, 0.0, r.z), Vec3(0));
  if (forward == Vec3(0)) return out;  // safe_normalize: the zero fallback or a unit vector
  // Right-handed: turning `forward` about cross(forward, up) by a positive angle lifts it.
  // The axis is given even when no turn is needed (a smoothed bend may still use it).
  out.axis = glm::normalize(glm::cross(forward, Vec3(0, 1, 0)));
  if (!(tip.y < min_tip_y) || !(max_angle > 0)) return out;
  // In the plane across the axis the tip sits at distance rho and elevation phi from the ball.
  const Vec3 across = r - glm::dot(r, out.axis) * out.axis;
  const double rho = glm::length(across);
  if (!(rho > 1e-9)) return out;
  const double phi = std::atan2(across.y, glm::dot(across, forward));
  const double wanted = std::asin(std::clamp((min_tip_y - ball.y) / rho, -1.0, 1.0));
  out.angle = std::clamp(wanted - phi, 0.0, max_angle);
  return out;
}

}  // namespace ikfix::core
