#include "io/matrix_trs.hpp"

#include <algorithm>
#include <cmath>
#include <glm/gtc/quaternion.hpp>

namespace ikfix::io {

double decompose_trs(const glm::dmat4& m, core::Transform& out) {
  out.translation = core::Vec3(m[3]);
  core::Vec3 c0(m[0]), c1(m[1]), c2(m[2]);
  double sx = glm::length(c0), sy = glm::length(c1), sz = glm::length(c2);
  if (glm::dot(glm::cross(c0, c1), c2) < 0) sx = -sx;  // a mirror: put it on X
  out.scale = core::Vec3(sx, sy, sz);
  if (sx == 0 || sy == 0 || sz == 0) {
    out.rotation = core::identity_quat();
    return 0;
  }
  c0 /= sx;
  c1 /= sy;
  c2 /= sz;
  const double shear = std::max(
      {std::abs(glm::dot(c0, c1)), std::abs(glm::dot(c0, c2)), std::abs(glm::dot(c1, c2))});
  out.rotation = glm::normalize(glm::quat_cast(glm::dmat3(c0, c1, c2)));
  return shear;
}

glm::dmat4 trs_matrix(const core::Transform& t) {
  const glm::dmat3 r = glm::mat3_cast(glm::normalize(t.rotation));
  glm::dmat4 m(1.0);
  for (int c = 0; c < 3; ++c) m[c] = glm::dvec4(r[c] * t.scale[c], 0.0);
  m[3] = glm::dvec4(t.translation, 1.0);
  return m;
}

}  // namespace ikfix::io
