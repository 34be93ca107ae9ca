#include "core/fix/write_back.hpp"

#include <algorithm>
#include <cstring>

#include "core/fix/fix_parallel.hpp"
#include "core/fix/leg_solve.hpp"
#include "core/fk.hpp"

namespace ikfix::core {
void WriteBackJob::hip_cones(Vec3 (&hip_cone_rest)[2]) const {
  const JointSubset& subset = samples->subset;
  std::vector<Transform> rest(subset.size());
  forward_kinematics(subset, skeleton->rest, to_world, rest);
  auto R = [&](int j) -> const Transform& { return rest[subset.slot_of[j]]; };
  for (int l = 0; l < 2; ++l) {
    const Leg& leg = rig->legs[l];
    const Vec3 down = safe_normalize(R(leg.ankle).translation - R(leg.hip).translation, Vec3(0));
    hip_cone_rest[l] = glm::inverse(R(rig->pelvis).rotation) * down;
  }
}

void WriteBackJob::solve_frame(int f, const Vec3 (&hip_cone_rest)[2], const KneeLimit& knee_limit,
                               LegPose (&poses)[2], LegSolveArgs (&args)[2],
                               LegSolveResult (&solved)[2]) const {
  auto W = [&](int j) -> const Transform& { return samples->at(f, j); };
  const Vec3 pelvis_shift_ws(0, body[f] - drop[f], 0);
  for (int l = 0; l < 2; ++l) {
    const Leg& leg = rig->legs[l];
    poses[l] = LegPose{W(leg.hip).translation, W(leg.knee).translation, W(leg.ankle).translation,
                       W(leg.hip).rotation, W(leg.knee).rotation, W(leg.ankle).rotation,
                       W(rig->pelvis).rotation * hip_cone_rest[l], Vec3(0),
                       // outward: from the other hip to this one (made by the solve if it needs it)
                       &W(rig->legs[1 - l].hip).translation};
    Vec3 forward = planned_feet[l].toe[f] - planned_feet[l].ankle[f];
    forward.y = 0;
    forward = safe_normalize(forward, Vec3(0));
    args[l] = LegSolveArgs{&poses[l], poses[l].hip_ws + pelvis_shift_ws, ankle_target_ws[l][f],
                           knee_pole(poses[l], forward, leg_length)};
  }
  // Both legs solved together: their FABRIK passes interleave (solve_leg_pair).
  solve_leg_pair(args, *settings, knee_limit, solved);
}

void WriteBackJob::run(Clip& motion, std::vector<char>& changed_joints,
                       std::vector<char>& changed_rotations, SolveRecord& solves,
                       std::vector<OutputMeasure>& measured) const {
  const int frames = motion.frame_count;
  const int joints = skeleton->joint_count();
  Vec3 hip_cone_rest[2] = {Vec3(0), Vec3(0)};
  hip_cones(hip_cone_rest);
  for (int l = 0; l < 2; ++l) {
    solves.iterations[l].assign(frames, 0);
    solves.reasons[l].assign(frames, "");
  }
  measured.resize(static_cast<std::size_t>(frames) * 2);
  // Which joints changed at all (untouched joints keep their original keys in the file), noted
  // as each value is replaced: only the pelvis and the legs are written. Each range notes its
  // own flags; they are or-ed together in range order (the same flags in any order).
  const std::vector<char> changed = parallel_reduce_ordered(
      runner, frames, kMinFramesPerRange, std::vector<char>(joints, 0),
      [&](int begin, int end, std::vector<char>& range_changed) {
        write_range(begin, end, motion, hip_cone_rest, range_changed, changed_rotations, solves,
                    measured);
      },
      [](std::vector<char>& total, const std::vector<char>& range) {
        for (std::size_t j = 0; j < total.size(); ++j) total[j] |= range[j];
      });
  for (int j = 0; j < joints; ++j) changed_joints[j] |= changed[j];
}

void WriteBackJob::write_range(int begin, int end, Clip& motion, const Vec3 (&hip_cone_rest)[2],
                               std::vector<char>& changed, std::vector<char>& changed_rotations,
                               SolveRecord& solves, std::vector<OutputMeasure>& measured) const {
  const Skeleton& sk = *skeleton;
  const FixSettings& s = *settings;
  const Clip& clip = motion;  // the input, read just before each value is replaced
  const JointSubset& subset = samples->subset;
  const int slots = subset.size();
  const int joints = sk.joint_count();
  const int pelvis = rig->pelvis;
  auto W = [&](int f, int j) -> const Transform& { return samples->at(f, j); };
  const KneeLimit knee_limit(knee_limit_angle);
  const std::vector<Quat>(&ankle_rotation_inverse)[2] = samples->ankle_rotation_inverse;
  // Inverse rotations made once where one value serves several uses (glm::inverse of the same
  // value gives the same bits): the world's, for every frame of a root pelvis, and each frame
  // the hips' parent's, when both hips hang from the same joint (a quaternion division each).
  const Quat to_world_inverse = glm::inverse(to_world.rotation);
  const bool hips_share_parent = sk.parents[rig->legs[0].hip] == sk.parents[rig->legs[1].hip];
  std::vector<Transform> out_world(slots), out_world_next(slots);
  auto replace = [&](auto& value, const auto& fixed, int joint) {
    if (fixed != value) changed[joint] = 1;
    value = fixed;
  };
  for (int f = begin; f < end; ++f) {
    const double shift = body[f] - drop[f];
    const Vec3 pelvis_shift_ws(0, shift, 0);
    std::span<Transform> out = motion.frame(f);
    auto parent_rotation = [&](int joint) {
      const int p = sk.parents[joint];
      return p < 0 ? to_world.rotation : W(f, p).rotation;
    };
    auto parent_rotation_inverse = [&](int joint) {
      const int p = sk.parents[joint];
      return p < 0 ? to_world_inverse : glm::inverse(W(f, p).rotation);
    };
    if (shift != 0.0) {
      const int parent = sk.parents[pelvis];
      const Transform& pw = parent < 0 ? to_world : W(f, parent);
      const Vec3 input_translation = out[pelvis].translation;
      Vec3 moved =
          input_translation + (parent_rotation_inverse(pelvis) * pelvis_shift_ws) / pw.scale;
      if (s.weight < 1.0) moved = input_translation + (moved - input_translation) * s.weight;
      replace(out[pelvis].translation, moved, pelvis);
    }
    Quat hip_parent_inverse[2];
    hip_parent_inverse[0] = parent_rotation_inverse(rig->legs[0].hip);
    hip_parent_inverse[1] =
        hips_share_parent ? hip_parent_inverse[0] : parent_rotation_inverse(rig->legs[1].hip);
    LegPose poses[2];
    LegSolveArgs solve_args[2];
    LegSolveResult solved[2];
    solve_frame(f, hip_cone_rest, knee_limit, poses, solve_args, solved);
    for (int l = 0; l < 2; ++l) {
      const Leg& leg = rig->legs[l];
      const LegPose& pose = poses[l];
      const Vec3& target = solve_args[l].target_ws;
      const Quat ankle_rot = foot_rotation[l][f];
      const LegSolveResult& r = solved[l];
      solves.iterations[l][f] = r.iterations;
      solves.reasons[l][f] = unreachable_reason(r.reason, pose.hip_ws + pelvis_shift_ws, target,
                                                pose.hip_ws, pose.ankle_ws);

      // Local rotations: each parent's new world rotation is its old one carried by the change
      // of the joint above it (joints between hip and knee, if any, move rigidly).
      const Quat hip_delta = r.hip_rot_ws * glm::inverse(pose.hip_rot_ws);
      const Quat knee_delta = r.knee_rot_ws * glm::inverse(pose.knee_rot_ws);
      const Quat knee_parent = hip_delta * parent_rotation(leg.knee);
      const Quat ankle_parent = knee_delta * parent_rotation(leg.ankle);
      // `parent_inverse`: glm::inverse of the parent's new world rotation.
      auto set_rotation = [&](int joint, const Quat& parent_inverse, const Quat& joint_ws) {
        Quat local = glm::normalize(parent_inverse * joint_ws);
        local = align_hemisphere(local, clip.at(f, joint).rotation);
        if (s.weight < 1.0)
          local = glm::normalize(
              glm::slerp(clip.at(f, joint).rotation, local, std::max(0.0, s.weight)));
        if (!is_finite(local)) return;
        // Bits, not ==: a rotation that only flips the sign of a zero is a change too.
        if (std::memcmp(&local, &out[joint].rotation, sizeof local) != 0)
          changed_rotations[static_cast<std::size_t>(f) * joints + joint] = 1;
        replace(out[joint].rotation, local, joint);
      };
      set_rotation(leg.hip, hip_parent_inverse[l], r.hip_rot_ws);
      set_rotation(leg.knee, glm::inverse(knee_parent), r.knee_rot_ws);
      set_rotation(leg.ankle, glm::inverse(ankle_parent), ankle_rot);
      if (!toe_bend[l].angle.empty() && toe_bend[l].angle[f] > 0) {
        const Quat toe_ws =
            foot_rotation[l][f] * ankle_rotation_inverse[l][f] * W(f, leg.toe).rotation;
        set_rotation(leg.toe, glm::inverse(ankle_rot),
                     axis_angle(toe_bend[l].axis[f], toe_bend[l].angle[f]) * toe_ws);
      }
    }
    // Measured while the frames just written are in cache, in pairs (FK of two frames at once
    // is quicker; the same transforms).
    if ((f - begin) % 2 == 1) {
      forward_kinematics_pair(subset, motion.frame(f - 1), motion.frame(f), to_world, out_world,
                              out_world_next);
      measure->measure(f - 1, out_world, &measured[static_cast<std::size_t>(f - 1) * 2]);
      measure->measure(f, out_world_next, &measured[static_cast<std::size_t>(f) * 2]);
    } else if (f + 1 == end) {
      forward_kinematics(subset, motion.frame(f), to_world, out_world);
      measure->measure(f, out_world, &measured[static_cast<std::size_t>(f) * 2]);
    }
  }
}

}  // namespace ikfix::core
