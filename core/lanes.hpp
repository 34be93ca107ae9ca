#pragma once
// Two frames' transforms side by side in SSE registers (lane 0 one frame, lane 1 the next): one
// packed instruction does what two scalar ones did, and IEEE arithmetic gives each lane the bits
// the scalar operation gives. The operations below are glm's own formulas in glm's order
// (quat * quat, quat * vec3 with its two cross products), so each lane's result is bit for bit
// what math.hpp's compose / transform_point and glm's products give on that frame (tests in
// tests/core/lanes_tests.cpp). Units and frames are those of the values put in.
#include "core/math.hpp"

namespace ikfix::core {

using Lanes = double __attribute__((vector_size(16)));

struct LaneVec3 {
  Lanes x, y, z;
};
struct LaneQuat {
  Lanes x, y, z, w;
};
struct LaneTransform {
  LaneVec3 translation;
  LaneQuat rotation;
  LaneVec3 scale;
};

inline LaneVec3 lanes_of(const Vec3& a, const Vec3& b) {
  return {Lanes{a.x, b.x}, Lanes{a.y, b.y}, Lanes{a.z, b.z}};
}
inline LaneQuat lanes_of(const Quat& a, const Quat& b) {
  return {Lanes{a.x, b.x}, Lanes{a.y, b.y}, Lanes{a.z, b.z}, Lanes{a.w, b.w}};
}
inline LaneTransform lanes_of(const Transform& a, const Transform& b) {
  return {lanes_of(a.translation, b.translation), lanes_of(a.rotation, b.rotation),
          lanes_of(a.scale, b.scale)};
}

inline Vec3 lane(const LaneVec3& v, int i) { return Vec3(v.x[i], v.y[i], v.z[i]); }
inline Quat lane(const LaneQuat& q, int i) { return Quat(q.w[i], q.x[i], q.y[i], q.z[i]); }
inline void store_lane(const LaneTransform& t, int i, Transform& out) {
  out.translation = lane(t.translation, i);
  out.rotation = lane(t.rotation, i);
  out.scale = lane(t.scale, i);
}

inline LaneVec3 operator*(const LaneVec3& a, const LaneVec3& b) {
  return {a.x * b.x, a.y * b.y, a.z * b.z};
}
inline LaneVec3 operator+(const LaneVec3& a, const LaneVec3& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}

// glm::cross
inline LaneVec3 cross(const LaneVec3& x, const LaneVec3& y) {
  return {x.y * y.z - y.y * x.z, x.z * y.x - y.z * x.x, x.x * y.y - y.x * x.y};
}

// glm's quat * vec3: v + ((uv * w) + uuv) * 2, uv = cross(q.xyz, v), uuv = cross(q.xyz, uv).
inline LaneVec3 operator*(const LaneQuat& q, const LaneVec3& v) {
  const LaneVec3 qv{q.x, q.y, q.z};
  const LaneVec3 uv = cross(qv, v);
  const LaneVec3 uuv = cross(qv, uv);
  const Lanes two = {2.0, 2.0};
  return {v.x + ((uv.x * q.w) + uuv.x) * two, v.y + ((uv.y * q.w) + uuv.y) * two,
          v.z + ((uv.z * q.w) + uuv.z) * two};
}

// glm's quat * quat
inline LaneQuat operator*(const LaneQuat& p, const LaneQuat& q) {
  return {
      p.w * q.x + p.x * q.w + p.y * q.z - p.z * q.y, p.w * q.y + p.y * q.w + p.z * q.x - p.x * q.z,
      p.w * q.z + p.z * q.w + p.x * q.y - p.y * q.x, p.w * q.w - p.x * q.x - p.y * q.y - p.z * q.z};
}

// math.hpp's compose(parent, child) in each lane.
inline LaneTransform compose(const LaneTransform& parent, const LaneTransform& child) {
  return {parent.translation + parent.rotation * (parent.scale * child.translation),
          parent.rotation * child.rotation, parent.scale * child.scale};
}

// math.hpp's transform_point(t, p) in each lane.
inline LaneVec3 transform_point(const LaneTransform& t, const LaneVec3& p) {
  return t.translation + t.rotation * (t.scale * p);
}

}  // namespace ikfix::core
