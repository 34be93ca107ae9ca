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
#include "core/fix/pivot_repair.hpp"
#include "core/fix/pivot_timing.hpp"
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
  const std::vector<Quat>(&ankle_rotation_inverse)[2] = samples.ankle_rotation_inverse;
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

  // Steps 3-8 are planned for a set of plants; the plan is then checked the way `ikfix check`
  // will see the output (contacts detected on the planned heel and toe over the terrain). A
  // frame that looks planted there but was not locked would be measured as sliding, so it
  // joins the plants and the plan is made again, until neither the plants nor the pivots
  // change (plants only grow; on a few clips the heel/toe choice keeps flipping on some frames,
  // so there are at most kMaxContactPasses plans). Contacts given by the user are taken as
  // they are (only the pivot choice is refined). A plan that has not settled by then is not
  // simply the last one: each leg keeps the plan whose check shows the least worst sliding
  // (made once more from its inputs when it was not the last), and where that still slides
  // above retry_slide_above the passes run again from the start with other pivot retimings
  // (see kRetimingSeries below). On cmu_61_01 the first plans alternate between two that each
  // show the other's pivot sliding on one frame (10.4 and 8.0 cm/s).
  const FootTrack animated_feet[2] = {feet[0], feet[1]};
  const std::vector<Vec3> input_ankle[2] = {feet[0].ankle, feet[1].ankle};  // for diagnostics
  const int blend_frames = std::max(1, static_cast<int>(std::lround(s.lock_blend_time * fps)));
  const int ease_frames = std::max(1, static_cast<int>(std::lround(s.plant_ease_time * fps)));
  const int rise_lead_frames = static_cast<int>(std::lround(s.clearance_rise_lead * fps));
  std::vector<Vec3> lock_correction[2];
  std::vector<signed char> pivot[2];  // per frame: 0 heel, 1 toe, -1 not planted
  GroundTrack ground[2][2];
  std::vector<double> foot_offset[2];
  std::vector<double> body(frames), body_raw(frames);
  std::vector<double> align_weight[2];
  std::vector<char> align_planted[2];  // the plants align_weight was made from
  std::vector<Quat> foot_rotation[2];
  std::vector<Vec3> toe_target_ws[2];
  std::vector<Vec3> pivot_hold[2];  // the planned feet's pivot holds (added to both points)
  // 6, not 4: with 4 the last plan on cmu_131 on the stairs still showed check a toe plant one
  // frame before the locked one (14.7 cm/s); plans usually settle earlier, so most clips never
  // take the extra passes.
  constexpr int kMaxContactPasses = 6;
  // Heel and toe heights the pivot is chosen by: the input's at first, then those of the
  // planned output over the terrain (a toe over a step edge is not on the ground, whatever
  // the flat-floor input said), with which points check will see on the ground.
  std::vector<double> pivot_height[2][2] = {{point_height[0][0], point_height[0][1]},
                                            {point_height[1][0], point_height[1][1]}};
  std::vector<char> on_ground[2][2];
  std::vector<signed char> previous_pivot[2];
  // Given contacts: plants whose foot follows the per-frame need would, once the pivot hold
  // has moved the other foot point over different ground (a step edge), put that point into
  // the terrain; those plants keep the constant offset (the plan is made again).
  std::vector<char> keep_constant[2] = {std::vector<char>(frames, 0), std::vector<char>(frames, 0)};
  bool clearance_given[2];
  for (int l = 0; l < 2; ++l)
    clearance_given[l] =
        s.swing_clearance && static_cast<int>((*s.swing_clearance)[l].size()) == frames;
  // Ground under each foot's planned and checked heel and toe, remembered across passes: only
  // the points that moved are cast. A checked heel outside pivot holds is where it was planned.
  enum { kPlannedHeel, kCheckedHeel, kPlannedToe, kCheckedToe };
  GroundMemo ground_memo[2][4];
  for (auto& leg_memos : ground_memo)
    for (GroundMemo& memo : leg_memos) memo.use_runner(in.runner);
  // Per leg: whether the last pass changed an input of its plan other than the pivot heights
  // (plants grew, a given plant was made to keep its constant offset).
  bool plan_inputs_changed[2] = {false, false};
  std::vector<signed char> lock_pivot[2];  // the foot lock's pivots in the last pass
  std::vector<char> retimed_by[2][2];      // the points down its pivot switches were retimed by
  // What one leg's plan is made from (besides the fixed settings and the input): the plan with
  // the least worst sliding seen so far for that leg, to be made again if the plans never settle.
  // Within the passes the legs' plans are independent (each leg's targets come from its own
  // plants, pivots and points down; the body, shared, only caps a swing foot's rise), so each
  // leg keeps its own best plan.
  struct LegPlanInputs {
    std::vector<char> planted, keep_constant, on_ground[2];
    std::vector<double> pivot_height[2];
    TouchdownSwitch touchdown = TouchdownSwitch::WhenTurningLess;
  };
  // How the pivot switches are retimed (pivot_timing.hpp), per leg. The passes run first with
  // a switch just after the new pivot touches down taken where the foot turns no more there;
  // where that never settles with a leg still sliding above retry_slide_above, they run again
  // from the start taking it always, then never, and such a leg keeps its best plan of all
  // series. Measured: cmu_61_01 (flat, slope, stairs) 8.0 cm/s in the first series, 0.01 taking
  // it always; cmu_01_03 on flat 5.8 at best in the first, 0.8 never taking it. Taking it
  // always from the start raised cmu_131's foot jerk on the stairs to 1.27x the input's.
  constexpr TouchdownSwitch kRetimingSeries[] = {TouchdownSwitch::WhenTurningLess,
                                                 TouchdownSwitch::Always, TouchdownSwitch::Never};
  const int series_count = s.retime_to_touchdowns ? 3 : 1;
  const TouchdownSwitch first_retiming =
      s.retime_to_touchdowns ? kRetimingSeries[0] : TouchdownSwitch::Never;
  TouchdownSwitch touchdown_rule[2] = {first_retiming, first_retiming};
  auto current_inputs = [&](int l) {
    LegPlanInputs p;
    p.touchdown = touchdown_rule[l];
    p.planted = result.planted[l];
    p.keep_constant = keep_constant[l];
    for (int q = 0; q < 2; ++q) {
      p.on_ground[q] = on_ground[l][q];
      p.pivot_height[q] = pivot_height[l][q];
    }
    return p;
  };
  LegPlanInputs best_plan[2];
  double best_plan_slide[2] = {std::numeric_limits<double>::infinity(),
                               std::numeric_limits<double>::infinity()};
  bool best_is_last[2] = {false, false};  // the last checked plan is the leg's best
  double last_plan_slide[2] = {0, 0};     // the last checked plan's
  const LegPlanInputs first_inputs[2] = {current_inputs(0), current_inputs(1)};
  auto restore = [&](int l, const LegPlanInputs& p) {
    result.planted[l] = p.planted;
    keep_constant[l] = p.keep_constant;
    touchdown_rule[l] = p.touchdown;
    for (int q = 0; q < 2; ++q) {
      on_ground[l][q] = p.on_ground[q];
      pivot_height[l][q] = p.pivot_height[q];
    }
  };
  // When the passes end unsettled: each leg whose last plan is not its best is made again from
  // its best plan's inputs. Returns whether a leg is to be made again.
  LegPlanInputs last_inputs[2];  // the last checked plan's, per leg
  auto restore_best = [&] {
    bool replay = false;
    for (int l = 0; l < 2; ++l) replay = replay || !best_is_last[l];
    // Both legs are made again: each from its best plan's inputs, or its last plan's.
    for (int l = 0; l < 2 && replay; ++l)
      restore(l, best_is_last[l] ? last_inputs[l] : best_plan[l]);
    return replay;
  };
  bool replaying_best = false;  // this pass makes the best plan again, then the loop ends
  int series = 0;               // index in kRetimingSeries
  int series_pass = 0;          // passes since the series started
  // At the end of a series (at the pass limit, or settled after the first): the next series
  // starts, or the best plans are made again. False: the last plan is kept.
  auto next_series_or_best = [&] {
    // In the first series the last plan is kept over an earlier one that slides as much.
    for (int l = 0; l < 2 && series == 0; ++l)
      if (last_plan_slide[l] <= best_plan_slide[l]) {
        best_plan[l] = last_inputs[l];
        best_plan_slide[l] = last_plan_slide[l];
        best_is_last[l] = true;
      }
    bool retry = false;  // a leg's best plan still slides too much
    for (int l = 0; l < 2; ++l) retry = retry || best_plan_slide[l] > s.retry_slide_above;
    if (series + 1 < series_count && retry) {
      ++series;
      for (int l = 0; l < 2; ++l) {
        restore(l, first_inputs[l]);
        touchdown_rule[l] = kRetimingSeries[series];
        previous_pivot[l].clear();
      }
      series_pass = -1;
    } else if (!restore_best()) {
      return false;
    } else {
      replaying_best = true;
    }
    plan_inputs_changed[0] = plan_inputs_changed[1] =
        true;  // never taken for settled: the plan is made (again)
    return true;
  };
  // What each leg's plan passes keep between passes. A leg whose plan inputs (plants, plant
  // settings, lock pivots, points down) are those of the pass that last planned it keeps what
  // that pass made: the same inputs would make exactly the same again.
  std::vector<double> ground_tilt[2];  // the foot's turn to the ground under its heel, radians
  std::vector<Vec3> tilt_axis[2];
  std::vector<Quat> ground_turn[2];
  std::vector<double>
      swing_need[2];  // per frame, the least offset that keeps the foot out of the ground
  std::vector<double> planned_offset[2];  // step 5's foot offsets, before the swing rise is capped
  std::vector<char> offsets_keep_constant[2];  // the plants kept constant they were made with
  int off_terrain[2] = {0, 0};                 // frames with a foot point off the terrain
  FootContacts seen_on_ground[2];              // what the check sees of this pass's plan
  double plan_slide[2] = {0,
                          0};  // per leg, the worst sliding the check would show on this plan, m/s
  bool demoted[2] = {false, false};    // a given plant was made to keep its constant offset
  bool replanned[2] = {false, false};  // the leg's plan inputs changed: it was planned again
  // Within a pass the legs' plans are independent (see LegPlanInputs) but for the body (step 4,
  // made from both legs' offsets), which caps a swing foot's rise: the legs are planned side by
  // side (for_each_leg) in two halves around the body. Each leg has its own ground memos and
  // writes only its own state.
  // Foot lock, ground and offsets of leg l (steps 3 and 5), unless its plan inputs are the last
  // pass's. Returns whether it planned the leg again.
  auto plan_lock_and_offsets = [&](int l, int pass) {
    // Foot lock: during a plant the pivot (heel while it is down, then the toe) stays where it
    // landed; after the plant the horizontal correction fades out over the blend window.
    std::vector<signed char> new_pivot;
    std::vector<Vec3> new_lock =
        foot_lock(result.planted[l], pivot_height[l][0], pivot_height[l][1], on_ground[l],
                  animated_feet[l].ankle, animated_feet[l].toe, s.unlock_radius * scale,
                  blend_frames, s.pivot_switch_margin * scale, new_pivot);
    // The pivot heights only choose the pivots, and which points are down only choose them and
    // retime their switches. With the same plants, plant settings, lock pivots and points down,
    // the lock and so every step below would come out exactly as in the last pass, and its
    // check would see the same contacts: the leg's plan has settled, without planning it again.
    // (The comparison is with the lock's own pivots of the last pass, before their retiming.)
    if (pass > 0 && !plan_inputs_changed[l] && new_pivot == lock_pivot[l] &&
        retimed_by[l][0] == on_ground[l][0] && retimed_by[l][1] == on_ground[l][1])
      return false;
    // Per frame, each of the foot's ground, tilt and need below is made from its foot points
    // (the lock), the foot-orientation weight and (given swing clearance) whether it is
    // planted. A new lock mostly moves a few plants' frames, and grown plants change the weight
    // only around them: only the frames where one of these changed are made again (the others
    // would come out exactly as they are). Every frame on the leg's first plan. (Making every
    // frame again whenever the plants changed, as before, took ~4% of the fix on cmu_01_01
    // over the bumps: its second and third passes both grow plants.)
    const bool plants_changed = align_planted[l] != result.planted[l];
    const bool every_frame = lock_correction[l].size() != static_cast<std::size_t>(frames);
    std::vector<char> remake(frames, 1);
    if (!every_frame)
      for (int f = 0; f < frames; ++f)
        remake[f] = same_bits(new_lock[f], lock_correction[l][f]) ? 0 : 1;
    // Foot-orientation weight: 1 while planted, eased in before touchdown and out after
    // lift-off, so the foot turns in the swing and a planted pivot never moves. Made from the
    // plants alone: made again only when they changed since.
    if (plants_changed) {
      std::vector<double> weight = plant_ease_weight(result.planted[l], ease_frames);
      for (int f = 0; f < frames && !every_frame; ++f)
        if (!same_bits(weight[f], align_weight[l][f]) ||
            (clearance_given[l] && result.planted[l][f] != align_planted[l][f]))
          remake[f] = 1;
      align_weight[l] = std::move(weight);
      align_planted[l] = result.planted[l];
    }
    lock_pivot[l] = std::move(new_pivot);
    lock_correction[l] = std::move(new_lock);
    for (int p = 0; p < 2; ++p) retimed_by[l][p] = on_ground[l][p];
    feet[l].ankle.resize(frames);
    feet[l].toe.resize(frames);
    for (int f = 0; f < frames; ++f) {
      if (!remake[f]) continue;
      feet[l].ankle[f] = animated_feet[l].ankle[f] + lock_correction[l][f];
      feet[l].toe[f] = animated_feet[l].toe[f] + lock_correction[l][f];
    }

    // 3. Ground under heel (ankle) and toe of the foot (the memos cast rays only for the points
    // that moved, and give the others' answers as they were).
    fill_ground_track(ground_memo[l][kPlannedHeel].query(*in.terrain, feet[l].ankle), floor,
                      ground[l][0], remake);
    fill_ground_track(ground_memo[l][kPlannedToe].query(*in.terrain, feet[l].toe), floor,
                      ground[l][1], remake);
    off_terrain[l] = 0;
    for (int f = 0; f < frames; ++f)
      if (!ground[l][0].hit[f] || !ground[l][1].hit[f]) ++off_terrain[l];

    // The foot's turn to the ground under its heel: limited and weighted (identity, no tilt,
    // when the feet are not aligned). Once per frame: steps 5 and 8 both use it. (With the
    // same weights, which frames are aligned is as before: a frame not made again keeps its
    // turn, identity or not; a frame whose weight fell to 0, plants given back by a new
    // retiming series, is made unaligned again.)
    if (every_frame) {
      ground_tilt[l].assign(frames, 0.0);
      tilt_axis[l].assign(frames, Vec3(1, 0, 0));
      ground_turn[l].assign(frames, identity_quat());
    }
    if (s.align_feet) {
      int previous = -1;  // last aligned frame
      for (int f = 0; f < frames; ++f) {
        if (!(align_weight[l][f] > 0)) {
          if (remake[f] && !every_frame) {
            ground_tilt[l][f] = 0.0;
            tilt_axis[l][f] = Vec3(1, 0, 0);
            ground_turn[l][f] = identity_quat();
          }
          continue;
        }
        if (!remake[f]) {
          previous = f;
          continue;
        }
        const Vec3 n = ground[l][0].normal[f];
        // A planted heel stays on one face, so its normal and weight repeat: the same inputs
        // give the same tilt and turn without the atan2 and sincos.
        if (previous >= 0 && same_bits(n, ground[l][0].normal[previous]) &&
            same_bits(align_weight[l][f], align_weight[l][previous])) {
          ground_tilt[l][f] = ground_tilt[l][previous];
          tilt_axis[l][f] = tilt_axis[l][previous];
          ground_turn[l][f] = ground_turn[l][previous];
        } else {
          ground_tilt[l][f] = std::min(angle_between(kUp, n), s.max_foot_tilt) * align_weight[l][f];
          tilt_axis[l][f] = safe_normalize(glm::cross(kUp, n), Vec3(1, 0, 0));
          ground_turn[l][f] = axis_angle(tilt_axis[l][f], ground_tilt[l][f]);
        }
        previous = f;
      }
    }

    // 5. Foot offsets: how far the foot moves up or down to stand on the terrain.
    std::vector<double>& need = swing_need[l];
    std::vector<double> ground_rel(frames);
    need.resize(frames);
    for (int f = 0; f < frames; ++f) {
      ground_rel[f] = std::max(ground[l][0].height[f], ground[l][1].height[f]) - floor;
      if (!remake[f]) continue;
      const double ankle_need =
          ground[l][0].height[f] + (planted_level[l][0] - floor) - feet[l].ankle[f].y;
      // The toe as it will be: turned with the foot to the ground's tilt. Raising the foot
      // for the untilted toe and then tilting it up a slope would leave the heel floating.
      const double toe_need =
          ground[l][1].height[f] + (planted_level[l][1] - floor) -
          (feet[l].ankle[f].y + (ground_turn[l][f] * (feet[l].toe[f] - feet[l].ankle[f])).y);
      need[f] = std::max(ankle_need, toe_need);
      if (clearance_given[l] && !result.planted[l][f])
        need[f] += std::max(0.0, (*s.swing_clearance)[l][f]);
    }
    // The offsets are made from the plants, the need, the ground and the plants kept constant:
    // when none of them changed (a new plan only for other pivots), they are the last ones.
    const bool nothing_remade = std::find(remake.begin(), remake.end(), 1) == remake.end();
    if (every_frame || plants_changed || !nothing_remade ||
        offsets_keep_constant[l] != keep_constant[l]) {
      planned_offset[l] =
          foot_offsets(result.planted[l], need, ground_rel, align_weight[l], s.foot_smoothing * fps,
                       s.clearance_smoothing * fps, s.max_clearance_rise_speed / fps,
                       contacts_given[l] && s.given_plants_on_ground, keep_constant[l]);
      offsets_keep_constant[l] = keep_constant[l];
    }
    return true;
  };

  // Swing cap, targets, pivot holds and the check of leg l (steps 8 and the agreement with the
  // check), given the body.
  auto plan_targets_and_check = [&](int l) {
    std::vector<double> offset = planned_offset[l];
    // A swing foot's planned rise may not lift its ankle closer than `min_swing_ankle_drop` leg
    // lengths below its hip (the hip raised with the body): a run's swing between plants three
    // 15 cm steps apart rose 45 cm on top of the animated heel kick, the ankle target 0.4 m
    // above the hip, and the leg folded past it (cmu_09_11 on the stairs). The excess is taken
    // off as a dilated, smoothed envelope (no kink), eased out towards the plants, and never
    // below what the swing frame needs over the ground (without that floor a crouched boxer's
    // swing foot came down onto the bumps and check saw it slide at 21 cm/s).
    if (s.min_swing_ankle_drop > 0) {
      // As short as the swing offsets' own smoothing: the clearance smoothing (2.5 times as
      // long) left cmu_09_11's foot jerk at 1.22 times the input's.
      const double sigma = s.foot_smoothing * fps;
      std::vector<double> excess(frames, 0.0);
      bool any = false;
      for (int f = 0; f < frames; ++f) {
        if (result.planted[l][f]) continue;
        const double cap = input_hip_height[l][f] + body[f] - s.min_swing_ankle_drop * leg_length;
        // Only the foot's planned rise over the body's is taken off; a high foot in the
        // animation itself is left as it is.
        const double rise = std::max(0.0, offset[f] - body[f]);
        excess[f] = std::clamp(feet[l].ankle[f].y + offset[f] - cap, 0.0, rise);
        any = any || excess[f] > 0;
      }
      if (any) {
        std::vector<double> dilated(frames), envelope(frames);
        dilate_max(excess, gaussian_radius(sigma), dilated);
        gaussian_smooth(dilated, sigma, envelope);
        for (int f = 0; f < frames; ++f) {
          if (result.planted[l][f]) continue;
          const double lowered = offset[f] - (1.0 - align_weight[l][f]) * envelope[f];
          offset[f] = std::max(lowered, swing_need[l][f]);
        }
      }
    }
    // A leg not planned again in this pass (its plan inputs are the last pass's) whose offsets
    // come out the same (the body changed only where it does not cap this foot) would get
    // exactly the targets, pivot holds and check it has: its ground queries would cast nothing
    // and change no memo. It keeps them (the pass's decisions take its check as it stands).
    if (!replanned[l] && offset.size() == foot_offset[l].size() &&
        std::memcmp(offset.data(), foot_offset[l].data(), offset.size() * sizeof(double)) == 0)
      return;
    foot_offset[l] = std::move(offset);

    // 8 (planned before 6, so the pelvis drop knows the final targets). Foot targets and foot
    // orientation per frame: the ankle target on the terrain, the foot turned by the ground's tilt.
    {
      result.ankle_target_ws[l].resize(frames);
      foot_rotation[l].resize(frames);
      for (int f = 0; f < frames; ++f) {
        const Quat& animated_rot = input_ankle_rotation[l][f];
        // Foot orientation: turn the animated foot by the ground's tilt, limited and weighted.
        // The toe must stay at or above its own level over the ground under it: where the ground
        // under the toe differs from the ankle's slope (bumps, a step edge), the tilt is reduced.
        Quat ankle_rot = animated_rot;
        Vec3 target = feet[l].ankle[f] + Vec3(0, foot_offset[l][f], 0);
        if (s.align_feet && align_weight[l][f] > 0) {
          const double full_tilt = ground_tilt[l][f];
          const Vec3& axis = tilt_axis[l][f];
          const Vec3 toe_from_ankle = feet[l].toe[f] - feet[l].ankle[f];
          const double toe_floor = ground[l][1].height[f] + (planted_level[l][1] - floor);
          Quat turn = identity_quat();
          for (double fraction : {1.0, 0.75, 0.5, 0.25, 0.0}) {
            turn = fraction == 1.0 ? ground_turn[l][f] : axis_angle(axis, full_tilt * fraction);
            const double toe_y = target.y + (turn * toe_from_ankle).y;
            if (full_tilt == 0.0 || toe_y >= toe_floor - 1e-9 ||
                toe_y >= target.y + toe_from_ankle.y - 1e-9)
              break;
          }
          ankle_rot = turn * animated_rot;
        }
        result.ankle_target_ws[l][f] = target;
        foot_rotation[l][f] = ankle_rot;
      }
    }

    // The foot was turned about the ankle: hold the planted pivot (heel or toe) exactly where it
    // is on the final foot, so neither the tilt nor a heel->toe switch moves it.
    {
      std::vector<Vec3>& toe_target = toe_target_ws[l];
      toe_target.resize(frames);
      for (int f = 0; f < frames; ++f)
        toe_target[f] = result.ankle_target_ws[l][f] + foot_rotation[l][f] *
                                                           ankle_rotation_inverse[l][f] *
                                                           (feet[l].toe[f] - feet[l].ankle[f]);
      // The lock's pivots, retimed to this pass's targets (which the body may have changed).
      pivot[l] = lock_pivot[l];
      retime_pivot_switches(pivot[l], result.ankle_target_ws[l], toe_target, on_ground[l],
                            touchdown_rule[l]);
      pivot_hold[l] = hold_pivots(pivot[l], result.ankle_target_ws[l], toe_target, blend_frames,
                                  s.unlock_radius * scale);
      const std::vector<Vec3>& hold = pivot_hold[l];
      for (int f = 0; f < frames; ++f) {
        result.ankle_target_ws[l][f] += hold[f];
        toe_target[f] += hold[f];
      }
    }

    if (replaying_best) return;

    // Agreement with the check: plants the output shows but the plan did not lock.
    demoted[l] = false;
    if (contacts_given[l] && s.given_plants_on_ground) {
      const GroundTrack under[2] = {query_ground(*in.terrain, result.ankle_target_ws[l], floor),
                                    query_ground(*in.terrain, toe_target_ws[l], floor)};
      for (int f = 0; f < frames; ++f) {
        if (!result.planted[l][f] || keep_constant[l][f]) continue;
        const double ankle_floor = under[0].height[f] + (planted_level[l][0] - floor);
        const double toe_floor = under[1].height[f] + (planted_level[l][1] - floor);
        if (result.ankle_target_ws[l][f].y < ankle_floor - 1e-4 ||
            toe_target_ws[l][f].y < toe_floor - 1e-4) {
          keep_constant[l][f] = 1;
          demoted[l] = true;
        }
      }
    }
    // A demoted plant makes the pass plan again before any check (the other leg's check, made
    // here alongside, is then not used).
    if (demoted[l] && series_pass < kMaxContactPasses + 2) return;
    const auto heel_ground = ground_memo[l][kCheckedHeel].query(
        *in.terrain, result.ankle_target_ws[l], &ground_memo[l][kPlannedHeel]);
    const auto toe_ground = ground_memo[l][kCheckedToe].query(*in.terrain, toe_target_ws[l]);
    seen_on_ground[l] = foot_contacts_on_ground(result.ankle_target_ws[l], toe_target_ws[l],
                                                heel_ground, toe_ground, fps, contact_settings);
    plan_slide[l] =
        worst_plant_slide(result.ankle_target_ws[l], toe_target_ws[l], seen_on_ground[l].planted,
                          seen_on_ground[l].point_planted, fps);
  };

  // Step 4's support of the body by each leg, and the plants it was made from.
  std::vector<double> support[2];
  std::vector<char> support_planted[2];
  for (int pass = 0;; ++pass, ++series_pass) {
    for_each_leg([&](int l) { replanned[l] = plan_lock_and_offsets(l, pass); });
    if (!replanned[0] && !replanned[1]) {  // settled
      if (series == 0 || !next_series_or_best()) break;
      continue;
    }
    plan_inputs_changed[0] = plan_inputs_changed[1] = false;

    // 4. The body follows the terrain under the feet that carry it: the planted feet (a swing
    // foot's offset is only a plan), both equally in flight; smoothed, zero phase. A leg's
    // support depends only on its plants, which most passes leave as they were.
    const bool support_stale[2] = {support_planted[0] != result.planted[0],
                                   support_planted[1] != result.planted[1]};
    auto make_support = [&](int l) {
      if (!support_stale[l]) return;
      support_planted[l] = result.planted[l];
      std::vector<double> raw(frames);
      for (int f = 0; f < frames; ++f) raw[f] = result.planted[l][f] ? 1.0 : 0.0;
      support[l].resize(frames);
      gaussian_smooth(raw, 0.05 * fps, support[l]);
    };
    if (support_stale[0] && support_stale[1]) {
      for_each_leg(make_support);
    } else {  // one leg's at most: not worth a hand-over to another thread
      make_support(0);
      make_support(1);
    }
    for (int f = 0; f < frames; ++f) {
      const double w0 = support[0][f] + 1e-3, w1 = support[1][f] + 1e-3;
      body_raw[f] = (w0 * planned_offset[0][f] + w1 * planned_offset[1][f]) / (w0 + w1);
    }
    gaussian_smooth(body_raw, s.body_smoothing * fps, body);

    for_each_leg([&](int l) { plan_targets_and_check(l); });
    if (replaying_best) break;

    if ((demoted[0] || demoted[1]) && series_pass < kMaxContactPasses + 2) {
      for (int l = 0; l < 2; ++l) plan_inputs_changed[l] = demoted[l];
      continue;
    }
    for (int l = 0; l < 2; ++l) {
      last_inputs[l] = current_inputs(l);
      last_plan_slide[l] = plan_slide[l];
      best_is_last[l] = false;
      // A later series only replaces a best plan that slides too much (see retry_slide_above),
      // and only with one that does not: on boxing_toes on the stairs, whose worst frames slide
      // more than that on every plan, a later plan with less worst sliding on one leg raised
      // the clip's mean sliding from 0.16 to 0.64 cm/s.
      const bool better = series == 0 ? plan_slide[l] < best_plan_slide[l]
                                      : best_plan_slide[l] > s.retry_slide_above &&
                                            plan_slide[l] <= s.retry_slide_above &&
                                            plan_slide[l] < best_plan_slide[l];
      if (better) {
        best_plan_slide[l] = plan_slide[l];
        best_plan[l] = last_inputs[l];
        best_is_last[l] = true;
      }
    }
    if (series_pass + 1 >= kMaxContactPasses) {
      if (!next_series_or_best()) break;
      continue;
    }
    bool grew[2] = {false, false};
    for (int l = 0; l < 2; ++l) {
      FootContacts& seen = seen_on_ground[l];
      for (int f = 0; f < frames && !contacts_given[l]; ++f)
        if (seen.planted[f] && !result.planted[l][f]) {
          result.planted[l][f] = 1;
          grew[l] = true;
        }
      // Taken over once per check: a leg whose check was kept (not made again) has had its
      // heights taken over already, and they are the pivot heights as they stand.
      if (seen.height[0].empty()) continue;
      for (int p = 0; p < 2; ++p) {
        pivot_height[l][p] = std::move(seen.height[p]);
        on_ground[l][p] = std::move(seen.point_planted[p]);
        seen.height[p].clear();  // (a moved-from vector need not be empty)
        seen.point_planted[p].clear();
      }
    }
    const bool pivots_settled =
        series_pass > 0 && previous_pivot[0] == pivot[0] && previous_pivot[1] == pivot[1];
    if (!grew[0] && !grew[1] && pivots_settled) {
      if (series == 0 || !next_series_or_best()) break;
      continue;
    }
    for (int l = 0; l < 2; ++l) plan_inputs_changed[l] = grew[l];
    previous_pivot[0] = pivot[0];
    previous_pivot[1] = pivot[1];
  }
  diag.off_terrain_frames = off_terrain[0] + off_terrain[1];
  // A leg whose plan check would still see sliding above the goal (its plans alternated, e.g.
  // over a heel whose speed sits at the contact threshold): the sliding point is held over the
  // frames check measures it on, where that lowers the leg's worst sliding (pivot_repair.hpp).
  // cmu_61_01 on bumps: the right foot's plans alternate between a toe seen down alone for one
  // frame while the heel is held (7.7 cm/s) and a heel seen down alone while the toe is (10.0).
  // A toe held so may carry its heel over a step edge, below the upper tread: there the foot
  // turns up about the toe just enough (boxing on the stairs: the heel 2.6 cm into a tread).
  constexpr int kMaxPivotRepairs = 16;
  // Heel rise of a toe-held foot per frame: the smallest turn about the toe that puts the heel
  // (ankle) at its planted level over the ground under it, dilated and smoothed so it does not
  // pop, and none where the heel is the held pivot (the turn would move it).
  auto heel_rise = [&](int l, const std::vector<Vec3>& heel, const std::vector<Vec3>& toe,
                       const std::vector<signed char>& pivots,
                       std::span<const GroundHit> under_heel, std::vector<double>& angle) {
    std::vector<double> raw(frames, 0.0), dilated(frames);
    bool any = false;
    for (int f = 0; f < frames; ++f) {
      if (pivots[f] != 1) continue;
      const double level =
          (under_heel[f].hit ? under_heel[f].height : floor) + (planted_level[l][0] - floor);
      raw[f] = heel_lift_to_height(heel[f], toe[f], level, s.max_heel_lift);
      any = any || raw[f] > 0;
    }
    angle.assign(frames, 0.0);
    if (!any) return false;
    const double sigma = s.foot_smoothing * fps;
    dilate_max(raw, gaussian_radius(sigma), dilated);
    gaussian_smooth(dilated, sigma, angle);
    // Kept (fading) after lift-off: dropping it there turned boxing's left ankle 28 degrees in
    // one frame on the stairs.
    for (int f = 0; f < frames; ++f)
      angle[f] = pivots[f] == 0 ? 0.0 : std::clamp(angle[f], 0.0, s.max_heel_lift);
    return true;
  };
  // Each leg's repair uses only its own memos and writes only its own targets: the legs are
  // repaired side by side.
  for_each_leg([&](int l) {
    const double plan_slide = replaying_best ? best_plan_slide[l] : last_plan_slide[l];
    if (!(plan_slide > s.retry_slide_above)) return;
    std::vector<Vec3> heel(frames), toe(frames);
    for (int f = 0; f < frames; ++f) {
      heel[f] = result.ankle_target_ws[l][f] - pivot_hold[l][f];
      toe[f] = toe_target_ws[l][f] - pivot_hold[l][f];
    }
    GroundMemo risen_heel_memo;
    std::vector<double> rise;
    std::vector<Vec3> risen(frames);
    const SlideMeasure measure = [&](const std::vector<Vec3>& h, const std::vector<Vec3>& t,
                                     const std::vector<signed char>& pivots) {
      const auto heel_ground =
          ground_memo[l][kCheckedHeel].query(*in.terrain, h, &ground_memo[l][kPlannedHeel]);
      const auto toe_ground = ground_memo[l][kCheckedToe].query(*in.terrain, t);
      const std::vector<Vec3>* checked_heel = &h;
      std::span<const GroundHit> checked_heel_ground = heel_ground;
      if (heel_rise(l, h, t, pivots, heel_ground, rise)) {
        for (int f = 0; f < frames; ++f)
          risen[f] = lifted_ankle(h[f], t[f], HeelLift{rise[f], heel_lift_axis(h[f], t[f])});
        checked_heel = &risen;
        checked_heel_ground =
            risen_heel_memo.query(*in.terrain, risen, &ground_memo[l][kCheckedHeel]);
      }
      const FootContacts seen = foot_contacts_on_ground(*checked_heel, t, checked_heel_ground,
                                                        toe_ground, fps, contact_settings);
      FootCheck check{worst_plant_slide_at(*checked_heel, t, seen.planted, seen.point_planted, fps),
                      0.0};
      // On frames check sees planted: step 5a below lifts a swing foot out of the ground.
      for (int p = 0; p < 2; ++p)
        for (int f = 0; f < frames; ++f)
          if (seen.planted[f])
            check.penetration_m = std::max(check.penetration_m, -seen.above[p][f]);
      return check;
    };
    pivot_hold[l] = repair_pivot_holds(pivot[l], heel, toe, blend_frames, s.unlock_radius * scale,
                                       s.retry_slide_above, kMaxPivotRepairs, measure);
    for (int f = 0; f < frames; ++f) {
      result.ankle_target_ws[l][f] = heel[f] + pivot_hold[l][f];
      toe_target_ws[l][f] = toe[f] + pivot_hold[l][f];
    }
    const auto heel_ground = ground_memo[l][kCheckedHeel].query(
        *in.terrain, result.ankle_target_ws[l], &ground_memo[l][kPlannedHeel]);
    if (heel_rise(l, result.ankle_target_ws[l], toe_target_ws[l], pivot[l], heel_ground, rise))
      for (int f = 0; f < frames; ++f) {
        if (!(rise[f] > 0)) continue;
        const HeelLift turn{rise[f],
                            heel_lift_axis(result.ankle_target_ws[l][f], toe_target_ws[l][f])};
        result.ankle_target_ws[l][f] =
            lifted_ankle(result.ankle_target_ws[l][f], toe_target_ws[l][f], turn);
        foot_rotation[l][f] =
            glm::normalize(axis_angle(turn.axis, turn.angle) * foot_rotation[l][f]);
      }
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
