#include "core/solvers/chain.hpp"

#include <cmath>

namespace ikfix::core {

void apply_bend_plane(std::span<Vec3> chain, const Vec3& pole_dir) {
  if (chain.size() < 3) return;
  const Vec3 root = chain.front();
  const Vec3 axis = safe_normalize(chain.back() - root, Vec3(0));
  if (axis == Vec3(0)) return;
  const Vec3 pole_perp = pole_dir - axis * glm::dot(pole_dir, axis);
  const double pole_len = glm::length(pole_perp);
  if (!(pole_len > 1e-9)) return;
  const Vec3 side = pole_perp / pole_len;
  for (std::size_t i = 1; i + 1 < chain.size(); ++i) {
    const Vec3 rel = chain[i] - root;
    const double along = glm::dot(rel, axis);
    const double radius = glm::length(rel - axis * along);
    chain[i] = root + axis * along + side * radius;
  }
}

bool place_two_bone(std::span<Vec3> chain, const Vec3& end_ws, double a, double b,
                    const Vec3& pole_dir) {
  const Vec3 root = chain[0];
  const Vec3 to_end = end_ws - root;
  const double d = glm::length(to_end);
  if (!(d > 0) || d > a + b || d < std::abs(a - b)) return false;
  const Vec3 axis = to_end / d;
  Vec3 side = pole_dir - axis * glm::dot(pole_dir, axis);
  // Fall back to the current bend when the pole is parallel to the axis.
  if (!(glm::length(side) > 1e-9)) side = (chain[1] - root) - axis * glm::dot(chain[1] - root, axis);
  side = safe_normalize(side, any_perpendicular(axis));
  // Heron: h = sqrt((a+b-d)(d+b-a)(a+d-b)(a+b+d)) / (2d); each factor >= 0 in range.
  const double product = (a + b - d) * (d + b - a) * (a + d - b) * (a + b + d);
  const double h = std::sqrt(std::max(0.0, product)) / (2.0 * d);
  const double x = (d * d + a * a - b * b) / (2.0 * d);
  chain[1] = root + axis * x + side * h;
  chain[2] = end_ws;
  return true;
}

}  // namespace ikfix::core
