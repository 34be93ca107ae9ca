#pragma once
// Distance from a point to a triangle in 3D, in double: what the terrain's nearest-surface
// depth takes for every candidate triangle.
#include <algorithm>
#include <cmath>

#include "core/math.hpp"

namespace ikfix::core {

// Squared distance from p to the segment [a, b] (a == b: the distance to a).
inline double point_segment_distance2(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 ab = b - a;
  const double length2 = glm::dot(ab, ab);
  const double t = length2 > 0.0 ? std::clamp(glm::dot(p - a, ab) / length2, 0.0, 1.0) : 0.0;
  const Vec3 d = p - (a + t * ab);
  return glm::dot(d, d);
}

// Distance from p to the closest point of triangle (a, b, c), any winding; a zero-area triangle
// is its edges. When p's projection onto the triangle's plane falls inside the triangle (on an
// edge included), the distance is the one to the plane; otherwise the closest point lies on an
// edge.
inline double point_triangle_distance(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 n = glm::cross(b - a, c - a);
  const double n2 = glm::dot(n, n);
  if (n2 > 0.0 && glm::dot(glm::cross(b - a, p - a), n) >= 0.0 &&
      glm::dot(glm::cross(c - b, p - b), n) >= 0.0 && glm::dot(glm::cross(a - c, p - c), n) >= 0.0)
    return std::abs(glm::dot(p - a, n)) / std::sqrt(n2);
  return std::sqrt(std::min({point_segment_distance2(p, a, b), point_segment_distance2(p, b, c),
                             point_segment_distance2(p, c, a)}));
}

}  // namespace ikfix::core
