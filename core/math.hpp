#pragma once
// Vector and rotation types used everywhere in ikfix, and the few rotation helpers whose
// numerics matter (see DESIGN.md "Two numerical traps").
//
// Conventions: right-handed, column vectors, quaternions rotate as q * v. Doubles throughout:
// bone lengths must survive a solve to 1e-9 m and outputs must be reproducible.
#include <cmath>
#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

namespace ikfix::core {

using Vec3 = glm::dvec3;
using Quat = glm::dquat;  // constructor order is (w, x, y, z)

inline constexpr double kPi = 3.14159265358979323846;

inline Quat identity_quat() { return Quat(1.0, 0.0, 0.0, 0.0); }

// A local or world transform: translation, rotation, scale (applied scale, then rotation,
// then translation). Units are those of the space the transform lives in.
struct Transform {
  Vec3 translation{0.0};
  Quat rotation{1.0, 0.0, 0.0, 0.0};
  Vec3 scale{1.0};
};

// parent * child, ignoring shear (ikfix treats non-uniform scale as per-axis only).
inline Transform compose(const Transform& parent, const Transform& child) {
  Transform out;
  out.translation = parent.translation + parent.rotation * (parent.scale * child.translation);
  out.rotation = parent.rotation * child.rotation;
  out.scale = parent.scale * child.scale;
  return out;
}

inline Vec3 transform_point(const Transform& t, const Vec3& p) {
  return t.translation + t.rotation * (t.scale * p);
}

// Unit vector along v, or `fallback` when v is too short to have a direction.
// The same as safe_normalize(v, fallback) with v's length given (`length` == glm::length(v)):
// for hot paths that have the length already (the same bits without a second square root).
inline Vec3 unit_or(const Vec3& v, double length, const Vec3& fallback) {
  if (!(length > 1e-12) || !std::isfinite(length)) return fallback;
  return v / length;
}

inline Vec3 safe_normalize(const Vec3& v, const Vec3& fallback) {
  return unit_or(v, glm::length(v), fallback);
}

// Any unit vector perpendicular to unit vector a.
inline Vec3 any_perpendicular(const Vec3& a) {
  const Vec3 other = std::abs(a.x) < 0.9 ? Vec3(1, 0, 0) : Vec3(0, 1, 0);
  return glm::normalize(glm::cross(a, other));
}

// Minimal rotation taking unit vector `from` onto unit vector `to`. Unlike glm::rotation it
// keeps rotations of any size down to double precision, and handles the antiparallel case
// (half-turn about an axis perpendicular to `from`).
inline Quat rotation_between(const Vec3& from, const Vec3& to) {
  const double d = glm::dot(from, to);
  const Vec3 c = glm::cross(from, to);
  if (d >= 0.0) return glm::normalize(Quat(1.0 + d, c.x, c.y, c.z));
  // Obtuse: 1 + d cancels, so use the axis and atan2 angle (exact up to the antiparallel case).
  const double s = glm::length(c);
  const Vec3 axis = s > 1e-300 ? c / s : any_perpendicular(from);
  const double half = 0.5 * std::atan2(s, d);
  const double sh = std::sin(half);
  return Quat(std::cos(half), axis.x * sh, axis.y * sh, axis.z * sh);
}

// Rotation of `angle` radians about unit `axis`.
inline Quat axis_angle(const Vec3& axis, double angle) {
  const double s = std::sin(angle * 0.5);
  return Quat(std::cos(angle * 0.5), axis.x * s, axis.y * s, axis.z * s);
}

// Angle in radians between unit vectors, accurate for tiny and near-pi angles.
inline double angle_between(const Vec3& a, const Vec3& b) {
  return std::atan2(glm::length(glm::cross(a, b)), glm::dot(a, b));
}

// Rotation angle of a unit quaternion, in [0, pi].
inline double rotation_angle(const Quat& q) {
  const double v = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
  return 2.0 * std::atan2(v, std::abs(q.w));
}

// Same rotation, sign chosen to be in the hemisphere of `reference` (keeps interpolation and
// Euler decomposition continuous from frame to frame).
inline Quat align_hemisphere(const Quat& q, const Quat& reference) {
  return glm::dot(q, reference) < 0.0 ? -q : q;
}

inline bool is_finite(const Vec3& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}
inline bool is_finite(const Quat& q) {
  return std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z) && std::isfinite(q.w);
}

}  // namespace ikfix::core
