// The foot fix as a list of steps, each in its own file (core/README.md lists them in order).
#include "core/fix/footfix.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "core/fix/clip_floor.hpp"
#include "core/fix/fix_parallel.hpp"
#include "core/fix/foot_clearance.hpp"
#include "core/fix/foot_lock.hpp"
#include "core/fix/heel_lift_step.hpp"
#include "core/fix/input_contacts.hpp"
#include "core/fix/output_measure.hpp"
#include "core/fix/pelvis_drop.hpp"
#include "core/fix/pivot_repair_step.hpp"
#include "core/fix/plan_passes.hpp"
#include "core/fix/plant_placement.hpp"
#include "core/fix/sample_legs.hpp"
#include "core/fix/shin_sole_clearance.hpp"
#include "core/fix/swing_clearance.hpp"
#include "core/fix/swing_ease.hpp"
#include "core/fix/toe_bend_step.hpp"
#include "core/fix/write_back.hpp"

namespace ikfix::core {
namespace {

// One clip's fix in progress: what the steps hand each other. Each method builds one step's
// job from it and runs it (the steps' logic lives in their files).
class ClipFix {
 public:
  ClipFix(const FixInput& in, Clip& motion, FixResult& result);
  void find_input_contacts();
  void place_plants();
  std::vector<Vec3> input_sole(const FootModel& foot, int l) const;
  void plan_feet();
  void repair_pivot_holds();
  void clear_swing_feet();
  void lift_heels();
  void bend_toes();
  void clear_feet();
  void ease_swings();
  void drop_pelvis();
  void clear_shin_soles();
  void write_back();

 private:
  WriteBackJob write_back_job(const OutputMeasureJob* measure) const;
  void for_each_leg(const std::function<void(int)>& per_leg) const {
    ikfix::core::for_each_leg(leg_runner, per_leg);
  }

  const FixInput& in;
  const FixSettings& s;
  // `motion` holds the input motion, read-only until the write-back: every frame's input is
  // read (FK, the plan) before the write-back changes that frame, and the write-back reads a
  // joint's input rotation just before replacing it.
  Clip& motion;
  FixResult& result;
  FixDiagnostics& diag;
  const int frames;
  const double fps;
  const Transform to_world;
  LegSamples samples;
  double leg_length = 0, scale = 0, floor = 0;
  const ParallelRunner* leg_runner = nullptr;  // legs side by side (fix_parallel.hpp)
  ContactSettings contact_settings;            // scaled to the leg
  bool contacts_given[2] = {false, false};
  std::vector<double> planted_level[2];    // per foot: ankle, toe level when planted (world Y)
  std::vector<double> point_height[2][2];  // per foot, per point (ankle, toe): above planted level
  std::vector<Quat> input_ankle_rotation[2];
  std::vector<double> input_hip_height[2];  // world Y, metres
  std::vector<Vec3> input_ankle[2];         // for diagnostics
  std::optional<PlanPasses> plan;
  ToeBend toe_bend[2];
  PlantPlacement placement[2];
  std::vector<double> drop;  // per frame: pelvis drop, metres
};

// 1. Sample every frame (sample_legs.hpp), the leg length and the clip's floor (clip_floor.hpp).
ClipFix::ClipFix(const FixInput& in_, Clip& motion_, FixResult& result_)
    : in(in_),
      s(in_.settings),
      motion(motion_),
      result(result_),
      diag(result_.diagnostics),
      frames(motion_.frame_count),
      fps(motion_.fps),
      to_world(in_.space.to_world()),
      samples(sample_legs(*in_.skeleton, motion_, in_.rig, to_world, in_.settings.min_knee_angle,
                          in_.runner)) {
  leg_length = std::max(0.0, std::max(samples.leg_span[0][0], samples.leg_span[1][0]));
  diag.leg_length_m = leg_length;
  scale = leg_length / s.reference_leg_length;
  const ClipFloor clip_floor_found =
      clip_floor(std::move(samples.lowest), leg_length, s.floor_height);
  diag.floor_height_m = clip_floor_found.height_m;
  diag.floor_method = clip_floor_found.method;
  floor = diag.floor_height_m;
  leg_runner = leg_runner_for(in.runner, frames);
}

// 2. Contacts on the input motion, per foot (input_contacts.hpp), thresholds scaled to the leg.
void ClipFix::find_input_contacts() {
  contact_settings = s.contacts;
  contact_settings.height_threshold *= scale;
  contact_settings.speed_threshold *= scale;
  for_each_leg([&](int l) {
    gather_ankle_rotation_and_hip_height(samples, in.rig.legs[l], frames, input_ankle_rotation[l],
                                         input_hip_height[l]);
    InputContacts found =
        input_contacts(samples.feet[l], fps, contact_settings,
                       s.contacts_override ? &(*s.contacts_override)[l] : nullptr);
    contacts_given[l] = found.given;
    result.planted[l] = std::move(found.planted);
    planted_level[l] = {found.planted_level[0], found.planted_level[1]};
    for (int p = 0; p < 2; ++p) point_height[l][p] = std::move(found.point_height[p]);
  });
}

// The input's sole vertices of leg l's `foot` on every planted frame (the only ones placement
// reads; the others are left zero), frame-major (the sole_ws of plant_placement.hpp): the foot
// posed where the input has it. Empty without a sole.
std::vector<Vec3> ClipFix::input_sole(const FootModel& foot, int l) const {
  const std::size_t count = foot.sole_vertices.size();
  if (count == 0) return {};
  const OutputFoot posed(&foot, in.skin, &samples, &motion, in.skeleton, to_world);
  const std::size_t rigid = foot.points.size();
  std::vector<Vec3> out(static_cast<std::size_t>(frames) * count, Vec3(0.0)), points;
  for (int f = 0; f < frames; ++f) {
    if (!result.planted[l][f]) continue;
    const Transform& ankle = samples.at(f, in.rig.legs[l].ankle);
    posed.pose(f, PlannedFoot{ankle.translation, ankle.rotation}, points);
    std::copy(points.begin() + static_cast<std::ptrdiff_t>(rigid), points.end(),
              out.begin() + static_cast<std::ptrdiff_t>(f * count));
  }
  return out;
}

// Plants placed where the whole foot fits (plant_placement.hpp): the moved foot points are what
// the plan starts from. Each leg reads and moves only its own: the legs side by side.
void ClipFix::place_plants() {
  for (int l = 0; l < 2; ++l) input_ankle[l] = samples.feet[l].ankle;
  // On level ground no plant can need a move (no_plant_can_move): nothing to place.
  if (!s.place_plants || no_plant_can_move(*in.terrain, floor, s.plant_block_depth)) return;
  const int blend_frames = std::max(1, static_cast<int>(std::lround(s.lock_blend_time * fps)));
  for_each_leg([&](int l) {
    const FootModel foot = build_foot_model(*in.skeleton, in.rig.legs[l], to_world, in.skin);
    const std::vector<Vec3> sole = input_sole(foot, l);
    // The lock as the plan's first pass makes it: the plants are tested where it holds them.
    std::vector<signed char> pivots;
    const std::vector<char> no_points_down[2];
    const std::vector<Vec3> lock =
        foot_lock(result.planted[l], point_height[l][0], point_height[l][1], no_points_down,
                  samples.feet[l].ankle, samples.feet[l].toe, s.unlock_radius * scale, blend_frames,
                  s.pivot_switch_margin * scale, s.pivot_run_away * scale, pivots);
    PlantPlacementJob job;
    job.terrain = in.terrain;
    job.samples = &samples;
    job.feet = &samples.feet[l];
    job.lock_ws = lock;
    job.foot = &foot;
    job.planted = result.planted[l];
    job.floor = floor;
    job.ankle_level = planted_level[l][0];
    job.toe_level = planted_level[l][1];
    job.max_foot_tilt = s.max_foot_tilt;
    job.tolerance_m = s.plant_block_depth;
    job.max_move_m = s.max_plant_move * scale;
    job.ease_frames = static_cast<int>(std::lround(s.plant_move_ease_time * fps));
    job.sole_ws = sole;
    placement[l] = job.run();
    apply_plant_placement(placement[l], samples.feet[l]);
  });
}

// Steps 3-8: planned, checked and planned again (plan_passes.hpp).
void ClipFix::plan_feet() {
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
  plan.emplace(pass_inputs, result, samples.feet);
  plan->run();
  plan->release_pass_state();
  diag.off_terrain_frames = plan->off_terrain[0] + plan->off_terrain[1];
}

// Pivot holds repaired where the kept plan still slides (pivot_repair_step.hpp). Each leg's
// repair uses only its own memos and writes only its own targets: the legs side by side.
void ClipFix::repair_pivot_holds() {
  for_each_leg([&](int l) {
    if (!(plan->kept_plan_slide(l) > s.retry_slide_above)) return;
    GroundMemo(&memo)[4] = plan->ground_memo[l];
    const PivotRepairJob job{in.terrain,
                             &memo[PlanPasses::kCheckedHeel],
                             &memo[PlanPasses::kPlannedHeel],
                             &memo[PlanPasses::kCheckedToe],
                             &contact_settings,
                             fps,
                             floor,
                             planted_level[l][0],
                             s.max_heel_lift,
                             s.foot_smoothing * fps,
                             plan->blend_frames,
                             s.unlock_radius * scale,
                             s.retry_slide_above};
    job.run(plan->pivot[l], result.ankle_target_ws[l], plan->toe_target_ws[l], plan->pivot_hold[l],
            plan->foot_rotation[l]);
  });
  if (diag.off_terrain_frames > 0)
    diag.warnings.push_back(
        std::to_string(diag.off_terrain_frames) +
        " foot samples have no terrain below them; the clip floor was used there");
}

// 5a. Swing feet above the terrain where they finally are (swing_clearance.hpp). Each leg
// reads its own memos and moves only its own targets: the legs are lifted side by side.
void ClipFix::clear_swing_feet() {
  for_each_leg([&](int l) {
    GroundMemo(&memo)[4] = plan->ground_memo[l];
    // The last pass's check cast rays at these very targets: the memos answer without new rays.
    const auto under_heel = memo[PlanPasses::kCheckedHeel].query(
        *in.terrain, result.ankle_target_ws[l], &memo[PlanPasses::kPlannedHeel]);
    const auto under_toe = memo[PlanPasses::kCheckedToe].query(*in.terrain, plan->toe_target_ws[l]);
    const SwingClearanceJob job{result.planted[l],
                                under_heel,
                                under_toe,
                                floor,
                                s.clearance_smoothing * fps,
                                s.max_clearance_rise_speed / fps,
                                contacts_given[l] ? 0 : plan->rise_lead_frames};
    job.run(result.ankle_target_ws[l], plan->toe_target_ws[l]);
  });
}

// 5b. Heel lift before pelvis drop (heel_lift_step.hpp).
void ClipFix::lift_heels() {
  if (!(s.max_heel_lift > 0)) return;
  std::span<Vec3> ankle_targets[2] = {result.ankle_target_ws[0], result.ankle_target_ws[1]};
  std::span<const Vec3> toe_targets[2] = {plan->toe_target_ws[0], plan->toe_target_ws[1]};
  std::span<Quat> foot_rotations[2] = {plan->foot_rotation[0], plan->foot_rotation[1]};
  const HeelLiftJob job{&samples,    &in.rig,    plan->body,      {plan->pivot[0], plan->pivot[1]},
                        s.max_reach, leg_length, s.max_heel_lift, s.heel_lift_smoothing * fps,
                        in.runner,   leg_runner};
  job.run(ankle_targets, toe_targets, foot_rotations, diag);
}

// Toe bend (toe_bend_step.hpp). Each leg's bend is its own (its toe, its ground): the legs
// side by side.
void ClipFix::bend_toes() {
  for_each_leg([&](int l) {
    const ToeBendJob job{in.skeleton,
                         &samples,
                         l,
                         &in.rig.legs[l],
                         s.align_feet,
                         plan->foot_rotation[l],
                         plan->toe_target_ws[l],
                         plan->align_weight[l],
                         in.terrain,
                         floor,
                         s.max_toe_bend,
                         s.foot_smoothing * fps,
                         in.runner};
    toe_bend[l] = job.run();
  });
}

// 5c. Every foot point out of the terrain: toes bent further, feet raised (foot_clearance.hpp).
// Each leg poses and moves only its own foot: the legs side by side.
void ClipFix::clear_feet() {
  for_each_leg([&](int l) {
    const Leg& leg = in.rig.legs[l];
    FootModel model = build_foot_model(*in.skeleton, leg, to_world, in.skin);
    // A sole on the shin turns with the shin, which only the leg solve decides: step 6b's.
    if (model.sole_on_shin) model.sole_vertices.clear();
    const OutputFoot foot(&model, in.skin, &samples, &motion, in.skeleton, to_world);
    const bool can_bend =
        s.align_feet && leg.toe >= 0 && in.skeleton->parents[leg.toe] == leg.ankle;
    const FootClearanceJob job{&foot,
                               in.terrain,
                               floor,
                               result.planted[l],
                               plan->foot_rotation[l],
                               can_bend,
                               s.max_toe_bend,
                               s.foot_smoothing * fps,
                               s.clearance_smoothing * fps,
                               s.max_clearance_rise_speed / fps,
                               contacts_given[l] ? 0 : plan->rise_lead_frames,
                               kMaxPlantedClearanceRise * scale,
                               in.runner};
    const FootClearance cleared =
        job.run(result.ankle_target_ws[l], plan->toe_target_ws[l], toe_bend[l]);
    LegDiagnostics& leg_diag = diag.legs[l];
    leg_diag.toe_clearance_frames = cleared.bent_frames;
    leg_diag.foot_raise_frames = cleared.lifted_frames;
    leg_diag.max_foot_raise_m = cleared.max_lift_m;
  });
}

// 5d. Swings the fix changed eased out of and into their plants (swing_ease.hpp). Each leg
// moves only its own targets: the legs side by side.
void ClipFix::ease_swings() {
  for_each_leg([&](int l) {
    std::vector<double> input_ankle(frames);
    for (int f = 0; f < frames; ++f)
      input_ankle[f] = samples.at(f, in.rig.legs[l].ankle).translation.y;
    // Only what the heel lift turned has moved horizontally since step 5a asked the memos.
    GroundMemo(&memo)[4] = plan->ground_memo[l];
    const auto under_heel = memo[PlanPasses::kCheckedHeel].query(
        *in.terrain, result.ankle_target_ws[l], &memo[PlanPasses::kPlannedHeel]);
    const auto under_toe = memo[PlanPasses::kCheckedToe].query(*in.terrain, plan->toe_target_ws[l]);
    const SwingEaseJob job{
        result.planted[l], input_ankle, under_heel, under_toe, &contact_settings, fps,
        // Given plants ease as detected ones, except those held on the
        // ground on every frame (a retarget's source contacts).
        contacts_given[l] && s.given_plants_on_ground ? 0 : plan->rise_lead_frames,
        2 * plan->rise_in_frames, kSwingEaseMinChange * scale};
    job.run(result.ankle_target_ws[l], plan->toe_target_ws[l]);
  });
  plan->release_ground_memos();  // the last step that asks them
}

// 6. Pelvis drop (pelvis_drop.hpp), with the body rise's extremes for the report.
void ClipFix::drop_pelvis() {
  const std::vector<double>& body = plan->body;
  diag.max_body_rise_m = body[0];  // extremes of the signal itself (it may be all above 0)
  diag.min_body_rise_m = body[0];
  for (int f = 0; f < frames; ++f) {
    diag.max_body_rise_m = std::max(diag.max_body_rise_m, body[f]);
    diag.min_body_rise_m = std::min(diag.min_body_rise_m, body[f]);
  }
  const PelvisDropJob job{&samples,
                          &in.rig,
                          body,
                          {result.ankle_target_ws[0], result.ankle_target_ws[1]},
                          s.max_reach,
                          leg_length,
                          s.max_pelvis_drop,
                          s.pelvis_trend_smoothing * fps,
                          s.pelvis_smoothing * fps,
                          in.runner};
  drop = job.run(diag);
}

// The write-back's job (write_back.hpp) over the current targets; `measure` may be null for
// its solves alone (step 6b).
WriteBackJob ClipFix::write_back_job(const OutputMeasureJob* measure) const {
  return WriteBackJob{in.skeleton,
                      &samples,
                      &in.rig,
                      &s,
                      to_world,
                      leg_length,
                      samples.knee_limit_angle,
                      plan->body,
                      drop,
                      samples.feet,
                      {result.ankle_target_ws[0], result.ankle_target_ws[1]},
                      {plan->foot_rotation[0], plan->foot_rotation[1]},
                      toe_bend,
                      measure,
                      in.runner};
}

// 6b. A foot skinned to the shin out of the terrain, posed with the solved shin
// (shin_sole_clearance.hpp). Legs whose foot is not on the shin are left alone.
void ClipFix::clear_shin_soles() {
  FootModel models[2];
  std::optional<OutputFoot> feet[2];
  ShinSoleClearanceJob job;
  const WriteBackJob solves = write_back_job(nullptr);
  job.solves = &solves;
  job.terrain = in.terrain;
  job.rise_smoothing_frames = s.clearance_smoothing * fps;
  job.max_rise_per_frame = s.max_clearance_rise_speed / fps;
  job.runner = in.runner;
  for (int l = 0; l < 2; ++l) {
    job.planted[l] = result.planted[l];
    job.rise_lead_frames[l] = contacts_given[l] ? 0 : plan->rise_lead_frames;
    if (!in.skin) continue;
    models[l] = build_foot_model(*in.skeleton, in.rig.legs[l], to_world, in.skin);
    if (!models[l].sole_on_shin) continue;
    feet[l].emplace(&models[l], in.skin, &samples, &motion, in.skeleton, to_world, in.rig.pelvis);
    job.foot[l] = &*feet[l];
    job.model[l] = &models[l];
  }
  if (!job.foot[0] && !job.foot[1]) return;
  std::span<Vec3> ankle[2] = {result.ankle_target_ws[0], result.ankle_target_ws[1]};
  std::span<Vec3> toe[2] = {plan->toe_target_ws[0], plan->toe_target_ws[1]};
  ShinSoleClearance cleared[2];
  job.run(ankle, toe, cleared);
  for (int l = 0; l < 2; ++l) {
    if (!job.foot[l]) continue;
    diag.legs[l].shin_sole_raise_frames = cleared[l].lifted_frames;
    diag.legs[l].max_shin_sole_raise_m = cleared[l].max_lift_m;
    diag.legs[l].shin_sole_passes = cleared[l].passes;
  }
}

// 7-10. Per frame: pelvis, leg IK, foot orientation, local rotations written back
// (write_back.hpp), each frame measured as it is written (output_measure.hpp).
void ClipFix::write_back() {
  const OutputMeasureJob measure =
      prepared(OutputMeasureJob{&samples,
                                &in.rig,
                                s.align_feet,
                                s.max_foot_tilt,
                                {input_ankle[0], input_ankle[1]},
                                {result.ankle_target_ws[0], result.ankle_target_ws[1]},
                                {result.planted[0], result.planted[1]},
                                plan->ground,
                                {planted_level[0], planted_level[1]},
                                floor});
  const WriteBackJob job = write_back_job(&measure);
  SolveRecord solves;
  std::vector<OutputMeasure> measured;
  job.run(motion, result.changed_joints, result.changed_rotations, solves, measured);
  reduce_output_measures(measured, solves, result.planted, s.unreachable_tolerance, s.weight, diag);
  if (s.weight >= 1.0)
    for (int l = 0; l < 2; ++l) report_plant_placement(placement[l], diag.legs[l]);
}

// The result before any step: nothing changed, the diagnostics' header.
FixResult unfixed_result(const FixInput& in, const Clip& motion) {
  const int frames = motion.frame_count;
  const int joints = in.skeleton->joint_count();
  FixResult result;
  result.changed_joints.assign(joints, 0);
  result.changed_rotations.assign(
      static_cast<std::size_t>(frames) * static_cast<std::size_t>(joints), 0);
  FixDiagnostics& diag = result.diagnostics;
  diag.frames = frames;
  diag.fps = motion.fps;
  diag.solver = solver_name(in.settings.solver);
  for (int l = 0; l < 2; ++l) diag.legs[l].side = kLegSideNames[l];
  return result;
}

}  // namespace

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
    case SolverKind::Dls:
      return "dls";
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
  FixResult result = unfixed_result(in, motion);
  if (motion.frame_count == 0) return result;
  ClipFix fix(in, motion, result);  // 1. sampling + FK, the clip floor
  fix.find_input_contacts();        // 2. contacts
  fix.place_plants();               // plants moved where the whole foot fits
  fix.plan_feet();                  // 3-8. foot lock, ground, offsets, body, targets, checked
  fix.repair_pivot_holds();         // foot lock: holds repaired where the plan still slides
  fix.clear_swing_feet();           // 5a. swing clearance
  fix.lift_heels();                 // 5b. heel lift
  fix.bend_toes();                  // toe bend
  fix.clear_feet();                 // 5c. every foot point out of the terrain
  fix.ease_swings();                // 5d. swings the fix changed leave and meet plants smoothly
  fix.drop_pelvis();                // 6. pelvis drop
  fix.clear_shin_soles();           // 6b. a foot skinned to the shin, posed with the solved shin
  fix.write_back();                 // 7-10. leg solve, write-back, output measurement
  return result;
}

}  // namespace ikfix::core
