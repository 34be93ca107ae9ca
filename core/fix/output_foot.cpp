#include "core/fix/output_foot.hpp"

namespace ikfix::core {
namespace {

// The weight of `v` on the joints marked in `under`.
double weight_under(const SkinnedVertex& v, const std::vector<char>& under) {
  double w = 0;
  for (int i = 0; i < 4; ++i)
    if (v.joint[i] >= 0 && under[v.joint[i]]) w += v.weight[i];
  return w;
}

}  // namespace

OutputFoot::OutputFoot(const FootModel* foot, const Skin* skin, const LegSamples* samples,
                       const Clip* input, const Skeleton* skeleton, const Transform& to_world)
    : foot_(foot),
      skin_(skin),
      samples_(samples),
      input_(input),
      skeleton_(skeleton),
      to_world_(to_world) {
  under_toe_.assign(skeleton->joint_count(), 0);
  // The toe and every joint below it, in one pass (parents come before children).
  if (foot->toe >= 0)
    for (int j = foot->toe; j < skeleton->joint_count(); ++j) {
      const int parent = skeleton->parents[j];
      under_toe_[j] = j == foot->toe || (parent >= 0 && under_toe_[parent]) ? 1 : 0;
    }
  point_on_toe_.assign(foot->point_count(), 0);
  for (std::size_t i = 0; i < foot->points.size(); ++i)
    point_on_toe_[i] = foot->points[i].kind == FootPointKind::ToeTip && foot->toe >= 0 &&
                       foot->points[i].joint == foot->toe;
  for (std::size_t k = 0; k < foot->sole_vertices.size(); ++k)
    point_on_toe_[foot->points.size() + k] =
        weight_under(skin->vertices[foot->sole_vertices[k]], under_toe_) >= 0.5;
}

// The input's world transform of `joint` on frame f: the samples' for the fix's subset, else
// FK from the nearest ancestor in it (the joints a sole vertex hangs on, below the foot).
Transform OutputFoot::input_world(int f, int joint) const {
  if (samples_->subset.slot_of[joint] >= 0) return samples_->at(f, joint);
  const int parent = skeleton_->parents[joint];
  return compose(parent < 0 ? to_world_ : input_world(f, parent), input_->at(f, joint));
}

void OutputFoot::pose(int f, const PlannedFoot& planned, std::vector<Vec3>& out) const {
  out.resize(foot_->point_count());
  const Transform& ankle_in = samples_->at(f, foot_->ankle);
  // The write-back's foot: the ankle at its target with its new rotation; the toe keeps its
  // local transform (carried by the ankle's turn), then bent about the ball when bent.
  const Transform ankle_new{planned.ankle_target_ws, planned.foot_rotation, ankle_in.scale};
  const Quat carry = planned.foot_rotation * glm::inverse(ankle_in.rotation);
  Transform toe_in, toe_new;
  if (foot_->toe >= 0) {
    toe_in = samples_->at(f, foot_->toe);
    const Quat bend = planned.bend_angle > 0 ? axis_angle(planned.bend_axis_ws, planned.bend_angle)
                                             : identity_quat();
    toe_new =
        Transform{planned.ankle_target_ws + carry * (toe_in.translation - ankle_in.translation),
                  bend * (carry * toe_in.rotation), toe_in.scale};
  }
  std::size_t i = 0;
  for (const RigidFootPoint& p : foot_->points)
    out[i++] = pose_rigid_point(p, p.joint == foot_->toe ? toe_new : ankle_new);
  for (int v : foot_->sole_vertices) {
    // Each influence carried rigidly by the foot part it hangs on (toe or ankle).
    const SkinnedVertex& sv = skin_->vertices[v];
    Vec3 p(0.0);
    for (int k = 0; k < 4; ++k) {
      if (sv.joint[k] < 0 || sv.weight[k] == 0.0) continue;
      const bool toe_part = under_toe_[sv.joint[k]] != 0;
      const Vec3 at_input = transform_point(input_world(f, sv.joint[k]), sv.local[k]);
      const Transform& from = toe_part ? toe_in : ankle_in;
      const Transform& to = toe_part ? toe_new : ankle_new;
      p += sv.weight[k] * transform_point(to, inverse_transform_point(from, at_input));
    }
    out[i++] = p;
  }
}

}  // namespace ikfix::core
