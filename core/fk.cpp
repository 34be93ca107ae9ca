#include "core/fk.hpp"

namespace ikfix::core {

void forward_kinematics(const Skeleton& skeleton, std::span<const Transform> locals,
                        const Transform& clip_to_world, std::span<Transform> world_out) {
  const int n = skeleton.joint_count();
  for (int j = 0; j < n; ++j) {
    const int p = skeleton.parents[j];
    world_out[j] = compose(p < 0 ? clip_to_world : world_out[p], locals[j]);
  }
}

Transform joint_world(const Skeleton& skeleton, std::span<const Transform> locals,
                      const Transform& clip_to_world, int joint) {
  // Collect the ancestor chain (root first) without allocating: skeletons are shallow.
  int chain[256];
  int depth = 0;
  for (int j = joint; j >= 0 && depth < 256; j = skeleton.parents[j]) chain[depth++] = j;
  Transform world = clip_to_world;
  for (int i = depth - 1; i >= 0; --i) world = compose(world, locals[chain[i]]);
  return world;
}

JointSubset::JointSubset(const Skeleton& skeleton, std::span<const int> wanted) {
  const int n = skeleton.joint_count();
  std::vector<char> keep(n, 0);
  for (int w : wanted)
    for (int j = w; j >= 0 && !keep[j]; j = skeleton.parents[j]) keep[j] = 1;
  slot_of.assign(n, -1);
  for (int j = 0; j < n; ++j)
    if (keep[j]) {
      slot_of[j] = static_cast<int>(joints.size());
      joints.push_back(j);
      const int p = skeleton.parents[j];
      parent_slot.push_back(p < 0 ? -1 : slot_of[p]);
    }
}

void forward_kinematics(const JointSubset& subset, std::span<const Transform> locals,
                        const Transform& clip_to_world, std::span<Transform> world_out) {
  const int n = subset.size();
  for (int k = 0; k < n; ++k) {
    const int p = subset.parent_slot[k];
    world_out[k] = compose(p < 0 ? clip_to_world : world_out[p], locals[subset.joints[k]]);
  }
}

namespace {

// Two frames' values side by side in one SSE register (lane 0 frame a, lane 1 frame b): one
// packed instruction does what two scalar ones did, and IEEE arithmetic gives each lane the bits
// the scalar operation would. The functions below are compose() written out with glm's own
// formulas, in glm's order (quat * quat, quat * vec3 with its two cross products), so each
// lane's result is bit for bit compose()'s (tests/core/fk_tests.cpp checks).
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

LaneVec3 lanes_of(const Vec3& a, const Vec3& b) { return {Lanes{a.x, b.x}, Lanes{a.y, b.y}, Lanes{a.z, b.z}}; }
LaneTransform lanes_of(const Transform& a, const Transform& b) {
  return {lanes_of(a.translation, b.translation),
          {Lanes{a.rotation.x, b.rotation.x}, Lanes{a.rotation.y, b.rotation.y}, Lanes{a.rotation.z, b.rotation.z},
           Lanes{a.rotation.w, b.rotation.w}},
          lanes_of(a.scale, b.scale)};
}
void store_lane(const LaneTransform& t, int lane, Transform& out) {
  out.translation = Vec3(t.translation.x[lane], t.translation.y[lane], t.translation.z[lane]);
  out.rotation.x = t.rotation.x[lane];
  out.rotation.y = t.rotation.y[lane];
  out.rotation.z = t.rotation.z[lane];
  out.rotation.w = t.rotation.w[lane];
  out.scale = Vec3(t.scale.x[lane], t.scale.y[lane], t.scale.z[lane]);
}

// glm::cross
LaneVec3 cross(const LaneVec3& x, const LaneVec3& y) {
  return {x.y * y.z - y.y * x.z, x.z * y.x - y.z * x.x, x.x * y.y - y.x * x.y};
}
// glm's quat * vec3: v + ((uv * w) + uuv) * 2, uv = cross(q.xyz, v), uuv = cross(q.xyz, uv)
LaneVec3 rotate(const LaneQuat& q, const LaneVec3& v) {
  const LaneVec3 qv{q.x, q.y, q.z};
  const LaneVec3 uv = cross(qv, v);
  const LaneVec3 uuv = cross(qv, uv);
  const Lanes two = {2.0, 2.0};
  return {v.x + ((uv.x * q.w) + uuv.x) * two, v.y + ((uv.y * q.w) + uuv.y) * two,
          v.z + ((uv.z * q.w) + uuv.z) * two};
}
// glm's quat * quat
LaneQuat multiply(const LaneQuat& p, const LaneQuat& q) {
  return {p.w * q.x + p.x * q.w + p.y * q.z - p.z * q.y, p.w * q.y + p.y * q.w + p.z * q.x - p.x * q.z,
          p.w * q.z + p.z * q.w + p.x * q.y - p.y * q.x, p.w * q.w - p.x * q.x - p.y * q.y - p.z * q.z};
}
LaneVec3 operator*(const LaneVec3& a, const LaneVec3& b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
LaneVec3 operator+(const LaneVec3& a, const LaneVec3& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }

// compose(parent, child) in each lane.
LaneTransform compose(const LaneTransform& parent, const LaneTransform& child) {
  return {parent.translation + rotate(parent.rotation, parent.scale * child.translation),
          multiply(parent.rotation, child.rotation), parent.scale * child.scale};
}

// Subsets up to this size keep their pair transforms on the stack (the fix's leg subset: 12).
constexpr int kMaxLaneJoints = 64;

}  // namespace

void forward_kinematics_pair(const JointSubset& subset, std::span<const Transform> locals_a,
                             std::span<const Transform> locals_b, const Transform& clip_to_world,
                             std::span<Transform> world_a, std::span<Transform> world_b) {
  const int n = subset.size();
  if (n > kMaxLaneJoints) {
    forward_kinematics(subset, locals_a, clip_to_world, world_a);
    forward_kinematics(subset, locals_b, clip_to_world, world_b);
    return;
  }
  LaneTransform world[kMaxLaneJoints];
  const LaneTransform root = lanes_of(clip_to_world, clip_to_world);
  for (int k = 0; k < n; ++k) {
    const int p = subset.parent_slot[k];
    const int j = subset.joints[k];
    world[k] = compose(p < 0 ? root : world[p], lanes_of(locals_a[j], locals_b[j]));
    store_lane(world[k], 0, world_a[k]);
    store_lane(world[k], 1, world_b[k]);
  }
}

}  // namespace ikfix::core
