#include "core/fix/output_foot.hpp"

namespace ikfix::core {
namespace {

// Per joint of `sk`: whether it is `top` or below it (none when top < 0). Parents come before
// their children, so one pass from `top` marks them.
std::vector<char> joints_under(const Skeleton& sk, int top) {
  std::vector<char> under(sk.joint_count(), 0);
  if (top >= 0)
    for (int j = top; j < sk.joint_count(); ++j) {
      const int parent = sk.parents[j];
      under[j] = j == top || (parent >= 0 && under[parent]) ? 1 : 0;
    }
  return under;
}

// `p` carried rigidly from `from` to `to`.
Vec3 carry_point(const Transform& from, const Transform& to, const Vec3& p) {
  return transform_point(to, inverse_transform_point(from, p));
}

// The weight of `v` on the joints marked in `under`.
double weight_under(const SkinnedVertex& v, const std::vector<char>& under) {
  double w = 0;
  for (int i = 0; i < 4; ++i)
    if (v.joint[i] >= 0 && under[v.joint[i]]) w += v.weight[i];
  return w;
}

}  // namespace

OutputFoot::OutputFoot(const FootModel* foot, const Skin* skin, const LegSamples* samples,
                       const Clip* input, const Skeleton* skeleton, const Transform& to_world,
                       int pelvis)
    : foot_(foot),
      skin_(skin),
      samples_(samples),
      input_(input),
      skeleton_(skeleton),
      to_world_(to_world) {
  // From the outermost part in: a joint takes the innermost part it is under.
  const int tops[] = {pelvis, foot->hip, foot->knee, foot->ankle, foot->toe};
  const Part parts[] = {kBody, kThigh, kShin, kAnkle, kToe};
  part_.assign(skeleton->joint_count(), kStill);
  for (int k = 0; k < 5; ++k) {
    const std::vector<char> under = joints_under(*skeleton, tops[k]);
    for (int j = 0; j < skeleton->joint_count(); ++j)
      if (under[j]) part_[j] = parts[k];
  }
  std::vector<char> under_toe(skeleton->joint_count());
  for (int j = 0; j < skeleton->joint_count(); ++j) under_toe[j] = part_[j] == kToe;
  point_on_toe_.assign(foot->point_count(), 0);
  for (std::size_t i = 0; i < foot->points.size(); ++i)
    point_on_toe_[i] = foot->points[i].kind == FootPointKind::ToeTip && foot->toe >= 0 &&
                       foot->points[i].joint == foot->toe;
  for (std::size_t k = 0; k < foot->sole_vertices.size(); ++k)
    point_on_toe_[foot->points.size() + k] =
        weight_under(skin->vertices[foot->sole_vertices[k]], under_toe) >= 0.5;
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
  const Transform ankle[2] = {ankle_in, ankle_new}, toe[2] = {toe_in, toe_new};
  std::size_t i = 0;
  for (const RigidFootPoint& p : foot_->points)
    out[i++] = pose_rigid_point(p, p.joint == foot_->toe ? toe_new : ankle_new);
  for (int v : foot_->sole_vertices) {
    // Each influence carried rigidly by the part it hangs on.
    const SkinnedVertex& sv = skin_->vertices[v];
    Vec3 p(0.0);
    for (int k = 0; k < 4; ++k) {
      const int j = sv.joint[k];
      if (j < 0 || sv.weight[k] == 0.0) continue;
      const Vec3 at_input = transform_point(input_world(f, j), sv.local[k]);
      p += sv.weight[k] * carried(planned, j, at_input, ankle, toe);
    }
    out[i++] = p;
  }
}

// Without a solved leg, every joint but the toe's is carried with the ankle (the steps before
// the solve); `ankle` and `toe`: the input's and the new transforms.
Vec3 OutputFoot::carried(const PlannedFoot& planned, int joint, const Vec3& at_input,
                         const Transform (&ankle)[2], const Transform (&toe)[2]) const {
  const Part part = static_cast<Part>(part_[joint]);
  if (part == kToe) return carry_point(toe[0], toe[1], at_input);
  const SolvedLeg* leg = planned.leg;
  if (!leg || part == kAnkle) return carry_point(ankle[0], ankle[1], at_input);
  switch (part) {
    case kShin:
      return carry_point(leg->shin_in, leg->shin_out, at_input);
    case kThigh:
      return carry_point(leg->thigh_in, leg->thigh_out, at_input);
    case kBody:
      return at_input + leg->pelvis_shift_ws;
    default:
      return at_input;
  }
}

}  // namespace ikfix::core
