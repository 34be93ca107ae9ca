// The foot fix, top to bottom. Each numbered step matches DESIGN.md "The fix, per clip".
#include "core/fix/footfix.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <span>

#include "core/fix/clip_floor.hpp"
#include "core/fix/contacts.hpp"
#include "core/fix/fix_math.hpp"
#include "core/fix/fix_parallel.hpp"
#include "core/fix/foot_contacts.hpp"
#include "core/fix/foot_lock.hpp"
#include "core/fix/foot_offsets.hpp"
#include "core/fix/ground_memo.hpp"
#include "core/fix/ground_track.hpp"
#include "core/fix/heel_lift.hpp"
#include "core/fix/heel_lift_step.hpp"
#include "core/fix/input_contacts.hpp"
#include "core/fix/leg_solve.hpp"
#include "core/fix/output_measure.hpp"
#include "core/fix/pelvis_drop.hpp"
#include "core/fix/pivot_hold.hpp"
#include "core/fix/pivot_repair_step.hpp"
#include "core/fix/pivot_timing.hpp"
#include "core/fix/plan_passes.hpp"
#include "core/fix/same_bits.hpp"
#include "core/fix/sample_legs.hpp"
#include "core/fix/smooth.hpp"
#include "core/fix/swing_clearance.hpp"
#include "core/fix/toe_bend.hpp"
#include "core/fix/toe_bend_step.hpp"
#include "core/fix/write_back.hpp"
#include "core/fk.hpp"
#include "core/lanes.hpp"
#include "core/metrics.hpp"
#include "core/unwritten_resize.hpp"

namespace ikfix::core {

std::vector<int> joints_fix_reads(const Skeleton& skeleton, const LegRig& rig) {
  return fix_subset(skeleton, rig).joints;
}

const char* solver_name(SolverKind kind) {
  switch (kind) {
    case SolverKind::Fabrik:
      return "fabrik";
    case SolverKind::Ccd:
      return "ccd";
    case SolverKind::TwoBone:
      return "two-bone";
  }
  return "?";
}

FixResult fix_clip(const FixInput& input) {
  Clip fixed = *input.clip;
  FixResult result = fix_clip_in_place(input, fixed);
  result.clip = std::move(fixed);
  return result;
}

FixResult fix_clip_in_place(const FixInput& in, Clip& motion) {
  const Skeleton& sk = *in.skeleton;
  // The input motion, read-only. It is `motion` itself: every frame's input is read (FK, the
  // plan) before the write-back below changes that frame, and the write-back reads a joint's
  // input rotation just before replacing it.
  const Clip& clip = motion;
  const FixSettings& s = in.settings;
  const int frames = clip.frame_count;
  const int joints = sk.joint_count();
  const Transform to_world = in.space.to_world();
  const double fps = clip.fps;

  FixResult result;
  result.changed_joints.assign(joints, 0);
  result.changed_rotations.assign(
      static_cast<std::size_t>(frames) * static_cast<std::size_t>(joints), 0);
  FixDiagnostics& diag = result.diagnostics;
  diag.frames = frames;
  diag.fps = fps;
  diag.solver = solver_name(s.solver);
  for (int l = 0; l < 2; ++l) diag.legs[l].side = kLegSideNames[l];
  if (frames == 0) return result;

  // 1. Sample every frame (sample_legs.hpp).
  LegSamples samples = sample_legs(sk, clip, in.rig, to_world, s.min_knee_angle, in.runner);
  FootTrack(&feet)[2] = samples.feet;
  const std::vector<double>(&leg_span)[2] = samples.leg_span;
  std::vector<double>& lowest = samples.lowest;
  const double knee_limit_angle = samples.knee_limit_angle;
  const double leg_length = std::max(0.0, std::max(leg_span[0][0], leg_span[1][0]));
  diag.leg_length_m = leg_length;
  const double scale = leg_length / s.reference_leg_length;

  const ClipFloor clip_floor_found = clip_floor(std::move(lowest), leg_length, s.floor_height);
  diag.floor_height_m = clip_floor_found.height_m;
  diag.floor_method = clip_floor_found.method;
  const double floor = diag.floor_height_m;

  // Legs side by side (runner permitting), see fix_parallel.hpp.
  const ParallelRunner* leg_runner = leg_runner_for(in.runner, frames);
  auto for_each_leg = [&](const std::function<void(int)>& per_leg) {
    ikfix::core::for_each_leg(leg_runner, per_leg);
  };

  // 2. Contacts on the input motion, per foot (ankle and toe), thresholds scaled to the leg.
  ContactSettings contact_settings = s.contacts;
  contact_settings.height_threshold *= scale;
  contact_settings.speed_threshold *= scale;
  bool contacts_given[2] = {false, false};
  std::vector<double> planted_level[2];    // per foot: ankle, toe level when planted (world Y)
  std::vector<double> point_height[2][2];  // per foot, per point (ankle, toe): above planted level
  std::vector<Quat> input_ankle_rotation[2];
  std::vector<double> input_hip_height[2];  // world Y, metres
  for_each_leg([&](int l) {
    gather_ankle_rotation_and_hip_height(samples, in.rig.legs[l], frames, input_ankle_rotation[l],
                                         input_hip_height[l]);
    InputContacts found = input_contacts(
        feet[l], fps, contact_settings, s.contacts_override ? &(*s.contacts_override)[l] : nullptr);
    contacts_given[l] = found.given;
    result.planted[l] = std::move(found.planted);
    planted_level[l] = {found.planted_level[0], found.planted_level[1]};
    for (int p = 0; p < 2; ++p) point_height[l][p] = std::move(found.point_height[p]);
  });

  // Steps 3-8: planned, checked and planned again (plan_passes.hpp).
  const std::vector<Vec3> input_ankle[2] = {feet[0].ankle, feet[1].ankle};  // for diagnostics
  const PlanPassesInputs pass_inputs{&in,
                                     frames,
                                     fps,
                                     floor,
                                     scale,
                                     leg_length,
                                     &contact_settings,
                                     contacts_given,
                                     planted_level,
                                     point_height,
                                     input_ankle_rotation,
                                     input_hip_height,
                                     samples.ankle_rotation_inverse,
                                     leg_runner};
  PlanPasses plan(pass_inputs, result, feet);
  plan.run();
  std::vector<signed char>(&pivot)[2] = plan.pivot;
  const GroundTrack(&ground)[2][2] = plan.ground;
  const std::vector<double>& body = plan.body;
  const std::vector<double>(&align_weight)[2] = plan.align_weight;
  std::vector<Quat>(&foot_rotation)[2] = plan.foot_rotation;
  std::vector<Vec3>(&toe_target_ws)[2] = plan.toe_target_ws;
  std::vector<Vec3>(&pivot_hold)[2] = plan.pivot_hold;
  GroundMemo(&ground_memo)[2][4] = plan.ground_memo;
  const int blend_frames = plan.blend_frames, rise_lead_frames = plan.rise_lead_frames;
  const int off_terrain[2] = {plan.off_terrain[0], plan.off_terrain[1]};
  enum {
    kPlannedHeel = PlanPasses::kPlannedHeel,
    kCheckedHeel = PlanPasses::kCheckedHeel,
    kPlannedToe = PlanPasses::kPlannedToe,
    kCheckedToe = PlanPasses::kCheckedToe
  };
  diag.off_terrain_frames = off_terrain[0] + off_terrain[1];
  // Pivot holds repaired where the kept plan still slides (pivot_repair_step.hpp). Each leg's
  // repair uses only its own memos and writes only its own targets: the legs side by side.
  for_each_leg([&](int l) {
    if (!(plan.kept_plan_slide(l) > s.retry_slide_above)) return;
    const PivotRepairJob job{in.terrain,
                             &ground_memo[l][kCheckedHeel],
                             &ground_memo[l][kPlannedHeel],
                             &ground_memo[l][kCheckedToe],
                             &contact_settings,
                             fps,
                             floor,
                             planted_level[l][0],
                             s.max_heel_lift,
                             s.foot_smoothing * fps,
                             blend_frames,
                             s.unlock_radius * scale,
                             s.retry_slide_above};
    job.run(pivot[l], result.ankle_target_ws[l], toe_target_ws[l], pivot_hold[l], foot_rotation[l]);
  });

  if (diag.off_terrain_frames > 0)
    diag.warnings.push_back(
        std::to_string(diag.off_terrain_frames) +
        " foot samples have no terrain below them; the clip floor was used there");

  // 5a. Swing feet above the terrain where they finally are (swing_clearance.hpp). Each leg
  // reads its own memos and moves only its own targets: the legs are lifted side by side.
  for_each_leg([&](int l) {
    // The last pass's check cast rays at these very targets: the memos answer without new rays.
    const auto under_heel = ground_memo[l][kCheckedHeel].query(
        *in.terrain, result.ankle_target_ws[l], &ground_memo[l][kPlannedHeel]);
    const auto under_toe = ground_memo[l][kCheckedToe].query(*in.terrain, toe_target_ws[l]);
    const SwingClearanceJob job{result.planted[l],
                                under_heel,
                                under_toe,
                                floor,
                                s.clearance_smoothing * fps,
                                s.max_clearance_rise_speed / fps,
                                contacts_given[l] ? 0 : rise_lead_frames};
    job.run(result.ankle_target_ws[l], toe_target_ws[l]);
  });

  // 5b. Heel lift before pelvis drop (heel_lift_step.hpp).
  if (s.max_heel_lift > 0) {
    std::span<Vec3> ankle_targets[2] = {result.ankle_target_ws[0], result.ankle_target_ws[1]};
    std::span<const Vec3> toe_targets[2] = {toe_target_ws[0], toe_target_ws[1]};
    std::span<Quat> foot_rotations[2] = {foot_rotation[0], foot_rotation[1]};
    const HeelLiftJob job{&samples,
                          &in.rig,
                          body,
                          {pivot[0], pivot[1]},
                          s.max_reach,
                          leg_length,
                          s.max_heel_lift,
                          s.heel_lift_smoothing * fps,
                          in.runner,
                          leg_runner};
    job.run(ankle_targets, toe_targets, foot_rotations, diag);
  }

  // Toe bend (toe_bend_step.hpp). Each leg's bend is its own (its toe, its ground): the legs
  // side by side.
  std::vector<double> toe_bend[2];
  std::vector<Vec3> toe_bend_axis[2];
  for_each_leg([&](int l) {
    const ToeBendJob job{&sk,
                         &samples,
                         l,
                         &in.rig.legs[l],
                         s.align_feet,
                         foot_rotation[l],
                         toe_target_ws[l],
                         align_weight[l],
                         in.terrain,
                         floor,
                         s.max_toe_bend,
                         s.foot_smoothing * fps,
                         in.runner};
    ToeBend bend = job.run();
    toe_bend[l] = std::move(bend.angle);
    toe_bend_axis[l] = std::move(bend.axis);
  });

  // 6. Pelvis drop (pelvis_drop.hpp).
  diag.max_body_rise_m = body[0];  // extremes of the signal itself (it may be all above 0)
  diag.min_body_rise_m = body[0];
  for (int f = 0; f < frames; ++f) {
    diag.max_body_rise_m = std::max(diag.max_body_rise_m, body[f]);
    diag.min_body_rise_m = std::min(diag.min_body_rise_m, body[f]);
  }
  PelvisDropJob pelvis_drop_job{&samples,
                                &in.rig,
                                body,
                                {result.ankle_target_ws[0], result.ankle_target_ws[1]},
                                s.max_reach,
                                leg_length,
                                s.max_pelvis_drop,
                                s.pelvis_smoothing * fps,
                                in.runner};
  const std::vector<double> drop = pelvis_drop_job.run(diag);

  // 7-10. Per frame: pelvis, leg IK, foot orientation, local rotations written back
  // (write_back.hpp), each frame measured as it is written (output_measure.hpp).
  const ToeBend toe_bends[2] = {{toe_bend[0], toe_bend_axis[0]}, {toe_bend[1], toe_bend_axis[1]}};
  const OutputMeasureJob measure =
      prepared(OutputMeasureJob{&samples,
                                &in.rig,
                                s.align_feet,
                                s.max_foot_tilt,
                                {input_ankle[0], input_ankle[1]},
                                {result.ankle_target_ws[0], result.ankle_target_ws[1]},
                                {result.planted[0], result.planted[1]},
                                ground,
                                {planted_level[0], planted_level[1]},
                                floor});
  const WriteBackJob write_back{&sk,
                                &samples,
                                &in.rig,
                                &s,
                                to_world,
                                leg_length,
                                knee_limit_angle,
                                body,
                                drop,
                                feet,
                                {result.ankle_target_ws[0], result.ankle_target_ws[1]},
                                {foot_rotation[0], foot_rotation[1]},
                                toe_bends,
                                &measure,
                                in.runner};
  SolveRecord solves;
  std::vector<OutputMeasure> measured;
  write_back.run(motion, result.changed_joints, result.changed_rotations, solves, measured);
  reduce_output_measures(measured, solves, result.planted, s.unreachable_tolerance, s.weight, diag);
  return result;
}

}  // namespace ikfix::core
