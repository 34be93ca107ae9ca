#include "core/fix/plan_passes.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/fix/body_follows_terrain.hpp"
#include "core/fix/fix_math.hpp"
#include "core/fix/fix_parallel.hpp"
#include "core/fix/foot_lock.hpp"
#include "core/fix/foot_offsets.hpp"
#include "core/fix/foot_targets.hpp"
#include "core/fix/pivot_hold.hpp"
#include "core/fix/plant_normal.hpp"
#include "core/fix/same_bits.hpp"
#include "core/fix/smooth.hpp"
#include "core/metrics.hpp"

namespace ikfix::core {

std::vector<char> frames_to_remake(bool every_frame, std::span<const Vec3> new_lock,
                                   std::span<const Vec3> old_lock,
                                   const std::vector<double>* new_weight,
                                   std::span<const double> old_weight,
                                   std::span<const char> planted, std::span<const char> old_planted,
                                   bool clearance_given) {
  const std::size_t frames = new_lock.size();
  std::vector<char> remake(frames, 1);
  if (every_frame) return remake;
  for (std::size_t f = 0; f < frames; ++f) remake[f] = same_bits(new_lock[f], old_lock[f]) ? 0 : 1;
  if (new_weight)
    for (std::size_t f = 0; f < frames; ++f)
      if (!same_bits((*new_weight)[f], old_weight[f]) ||
          (clearance_given && planted[f] != old_planted[f]))
        remake[f] = 1;
  return remake;
}

PlanPasses::PlanPasses(const PlanPassesInputs& inputs, FixResult& result_, FootTrack (&feet_)[2])
    : in(*inputs.in),
      s(inputs.in->settings),
      frames(inputs.frames),
      fps(inputs.fps),
      floor(inputs.floor),
      scale(inputs.scale),
      leg_length(inputs.leg_length),
      contact_settings(*inputs.contact_settings),
      contacts_given(inputs.contacts_given),
      planted_level(inputs.planted_level),
      input_ankle_rotation(inputs.input_ankle_rotation),
      input_hip_height(inputs.input_hip_height),
      ankle_rotation_inverse(inputs.ankle_rotation_inverse),
      leg_runner(inputs.leg_runner),
      result(result_),
      feet(feet_) {
  animated_feet[0] = feet[0];
  animated_feet[1] = feet[1];
  blend_frames = std::max(1, static_cast<int>(std::lround(s.lock_blend_time * fps)));
  ease_frames = std::max(1, static_cast<int>(std::lround(s.plant_ease_time * fps)));
  rise_lead_frames = static_cast<int>(std::lround(s.clearance_rise_lead * fps));
  rise_in_frames = static_cast<int>(std::lround(s.swing_rise_in * fps));
  body.resize(frames);
  body_raw.resize(frames);
  for (int l = 0; l < 2; ++l)
    for (int p = 0; p < 2; ++p) pivot_height[l][p] = inputs.point_height[l][p];
  keep_constant[0] = std::vector<char>(frames, 0);
  keep_constant[1] = std::vector<char>(frames, 0);
  for (int l = 0; l < 2; ++l)
    clearance_given[l] =
        s.swing_clearance && static_cast<int>((*s.swing_clearance)[l].size()) == frames;
  for (auto& leg_memos : ground_memo)
    for (GroundMemo& memo : leg_memos) memo.use_runner(in.runner);
  series_count = s.retime_to_touchdowns ? 3 : 1;
  const TouchdownSwitch first_retiming =
      s.retime_to_touchdowns ? kRetimingSeries[0] : TouchdownSwitch::Never;
  touchdown_rule[0] = touchdown_rule[1] = first_retiming;
  best_plan_slide[0] = best_plan_slide[1] = std::numeric_limits<double>::infinity();
  first_inputs[0] = current_inputs(0);
  first_inputs[1] = current_inputs(1);
}

void PlanPasses::for_each_leg(const std::function<void(int)>& per_leg) const {
  ikfix::core::for_each_leg(leg_runner, per_leg);
}

PlanPasses::LegPlanInputs PlanPasses::current_inputs(int l) const {
  LegPlanInputs p;
  p.touchdown = touchdown_rule[l];
  p.planted = result.planted[l];
  p.keep_constant = keep_constant[l];
  for (int q = 0; q < 2; ++q) {
    p.on_ground[q] = on_ground[l][q];
    p.pivot_height[q] = pivot_height[l][q];
  }
  return p;
}

void PlanPasses::restore(int l, const LegPlanInputs& p) {
  result.planted[l] = p.planted;
  keep_constant[l] = p.keep_constant;
  touchdown_rule[l] = p.touchdown;
  for (int q = 0; q < 2; ++q) {
    on_ground[l][q] = p.on_ground[q];
    pivot_height[l][q] = p.pivot_height[q];
  }
}

// When the passes end unsettled: each leg whose last plan is not its best is made again from
// its best plan's inputs. Returns whether a leg is to be made again.
bool PlanPasses::restore_best() {
  bool replay = false;
  for (int l = 0; l < 2; ++l) replay = replay || !best_is_last[l];
  // Both legs are made again: each from its best plan's inputs, or its last plan's.
  for (int l = 0; l < 2 && replay; ++l) restore(l, best_is_last[l] ? last_inputs[l] : best_plan[l]);
  return replay;
}

// At the end of a series (at the pass limit, or settled after the first): the next series
// starts, or the best plans are made again. False: the last plan is kept.
bool PlanPasses::next_series_or_best() {
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
}

// Foot lock, ground and offsets of leg l (steps 3 and 5), unless its plan inputs are the last
// pass's. Returns whether it planned the leg again.
bool PlanPasses::plan_lock_and_offsets(int l, int pass) {
  // The lock is made from the plants, the pivot heights and the points down: none of them new
  // since the last lock (the leg's plan was not checked again), it would come out as it did,
  // and the test below would find the plan settled.
  if (pass > 0 && !plan_inputs_changed[l] && !heights_taken[l]) return false;
  heights_taken[l] = false;
  // Foot lock: during a plant the pivot (heel while it is down, then the toe) stays where it
  // landed; after the plant the horizontal correction fades out over the blend window.
  std::vector<signed char> new_pivot;
  std::vector<Vec3> new_lock =
      foot_lock(result.planted[l], pivot_height[l][0], pivot_height[l][1], on_ground[l],
                animated_feet[l].ankle, animated_feet[l].toe, s.unlock_radius * scale, blend_frames,
                s.pivot_switch_margin * scale, s.pivot_run_away * scale, new_pivot);
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
  // would come out exactly as they are). Every frame on the leg's first plan.
  const bool plants_changed = align_planted[l] != result.planted[l];
  const bool every_frame = lock_correction[l].size() != static_cast<std::size_t>(frames);
  // Foot-orientation weight: 1 while planted, eased in before touchdown and out after
  // lift-off, so the foot turns in the swing and a planted pivot never moves. Made from the
  // plants alone: made again only when they changed since.
  std::vector<double> weight;
  if (plants_changed) weight = plant_ease_weight(result.planted[l], ease_frames);
  std::vector<char> remake = frames_to_remake(
      every_frame, new_lock, lock_correction[l], plants_changed ? &weight : nullptr,
      align_weight[l], result.planted[l], align_planted[l], clearance_given[l]);
  // A planted frame's tilt is made from its plant's first frame: a plant is made again whole.
  remake_whole_plants(
      remake, result.planted[l],
      every_frame ? std::span<const char>() : std::span<const char>(align_planted[l]));
  if (plants_changed) {
    align_weight[l] = std::move(weight);
    align_planted[l] = result.planted[l];
  }
  lock_pivot[l] = std::move(new_pivot);
  lock_correction[l] = std::move(new_lock);
  for (int p = 0; p < 2; ++p) retimed_by[l][p] = on_ground[l][p];
  feet[l].ankle.resize(frames);
  feet[l].toe.resize(frames);
  targets_stale[l].resize(frames, 1);
  bool nothing_remade = true;
  for (int f = 0; f < frames; ++f) {
    if (!remake[f]) continue;
    nothing_remade = false;
    targets_stale[l][f] = 1;
    feet[l].ankle[f] = animated_feet[l].ankle[f] + lock_correction[l][f];
    feet[l].toe[f] = animated_feet[l].toe[f] + lock_correction[l][f];
  }
  // No frame made again and the offsets' other inputs as they were (only the pivots changed):
  // the ground, tilt, need and offsets below would come out exactly as they are.
  if (nothing_remade && !every_frame && !plants_changed &&
      offsets_keep_constant[l] == keep_constant[l])
    return true;

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
  const std::vector<int> plant_first = plant_first_frames(result.planted[l]);
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
      // A planted foot is turned to its plant's one ground (plant_normal.hpp).
      const Vec3 n = ground[l][0].normal[plant_first[f]];
      // A planted heel stays on one face, so its normal and weight repeat: the same inputs
      // give the same tilt and turn without the atan2 and sincos.
      if (previous >= 0 && same_bits(n, ground[l][0].normal[plant_first[previous]]) &&
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

  plan_offsets(l, remake, every_frame || plants_changed);
  return true;
}

// 5. Foot offsets of leg l: how far the foot moves up or down to stand on the terrain, made
// again only when an input changed (`remade_inputs`: the plants changed or every frame was
// remade); only the frames in `remake` can have a new need or ground.
void PlanPasses::plan_offsets(int l, const std::vector<char>& remake, bool remade_inputs) {
  std::vector<double>& need = swing_need[l];
  std::vector<double>& ground_rel = offsets_ground[l];
  need.resize(frames);
  ground_rel.resize(frames);
  bool need_changed = false;
  for (int f = 0; f < frames; ++f) {
    if (!remake[f]) continue;
    const double rel = std::max(ground[l][0].height[f], ground[l][1].height[f]) - floor;
    const double ankle_need =
        ground[l][0].height[f] + (planted_level[l][0] - floor) - feet[l].ankle[f].y;
    // The toe as it will be: turned with the foot to the ground's tilt. Raising the foot
    // for the untilted toe and then tilting it up a slope would leave the heel floating.
    const double toe_need =
        ground[l][1].height[f] + (planted_level[l][1] - floor) -
        (feet[l].ankle[f].y + (ground_turn[l][f] * (feet[l].toe[f] - feet[l].ankle[f])).y);
    double frame_need = std::max(ankle_need, toe_need);
    if (clearance_given[l] && !result.planted[l][f])
      frame_need += std::max(0.0, (*s.swing_clearance)[l][f]);
    need_changed =
        need_changed || !same_bits(frame_need, need[f]) || !same_bits(rel, ground_rel[f]);
    need[f] = frame_need;
    ground_rel[f] = rel;
  }
  // The offsets are made from the plants, the need, the ground and the plants kept constant:
  // when none of them changed (a new plan only for other pivots), they are the last ones.
  if (remade_inputs || need_changed || offsets_keep_constant[l] != keep_constant[l]) {
    planned_offset[l] = foot_offsets(
        result.planted[l], need, ground_rel, align_weight[l], s.foot_smoothing * fps,
        s.clearance_smoothing * fps, s.max_clearance_rise_speed / fps,
        contacts_given[l] && s.given_plants_on_ground, keep_constant[l], rise_in_frames);
    offsets_keep_constant[l] = keep_constant[l];
  }
}

// Swing cap, targets, pivot holds and the check of leg l (steps 8 and the agreement with the
// check), given the body.
void PlanPasses::plan_targets_and_check(int l) {
  std::vector<double> offset = planned_offset[l];
  // A swing foot's planned rise may not lift its ankle closer than `min_swing_ankle_drop` leg
  // lengths below its hip (the hip raised with the body), or a run's swing over steps folds
  // the leg past its limit. The excess is taken off as a dilated, smoothed envelope (no kink),
  // eased out towards the plants, and never below what the swing frame needs over the ground
  // (a crouched swing foot would come down into the terrain and be seen sliding).
  if (s.min_swing_ankle_drop > 0) {
    // As short as the swing offsets' own smoothing: a longer one adds foot jerk.
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
  make_targets(l, std::move(offset));

  // The foot was turned about the ankle: hold the planted pivot (heel or toe) exactly where it
  // is on the final foot, so neither the tilt nor a heel->toe switch moves it.
  {
    const std::vector<Vec3>& ankle_free = unheld_ankle_target[l];
    const std::vector<Vec3>& toe_free = unheld_toe_target[l];
    // The lock's pivots, retimed to this pass's targets (which the body may have changed).
    pivot[l] = lock_pivot[l];
    retime_pivot_switches(pivot[l], ankle_free, toe_free, on_ground[l], touchdown_rule[l]);
    pivot_hold[l] =
        hold_pivots(pivot[l], ankle_free, toe_free, blend_frames, s.unlock_radius * scale);
    const std::vector<Vec3>& hold = pivot_hold[l];
    std::vector<Vec3>& ankle_target = result.ankle_target_ws[l];
    std::vector<Vec3>& toe_target = toe_target_ws[l];
    ankle_target.resize(frames);
    toe_target.resize(frames);
    for (int f = 0; f < frames; ++f) {
      ankle_target[f] = ankle_free[f] + hold[f];
      toe_target[f] = toe_free[f] + hold[f];
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
}

// 8. Foot targets and orientation (foot_targets.hpp), before the pivot holds: made again only
// on the frames whose inputs changed since the last made them (each frame's targets are made
// from its own inputs: the locked feet, tilt, weight and toe ground step 3 remade there, and
// its offset).
void PlanPasses::make_targets(int l, std::vector<double>&& offset) {
  std::vector<char>& stale = targets_stale[l];
  stale.resize(frames, 1);
  if (foot_offset[l].size() != offset.size()) {
    std::fill(stale.begin(), stale.end(), char{1});
  } else {
    for (int f = 0; f < frames; ++f)
      if (!same_bits(offset[f], foot_offset[l][f])) stale[f] = 1;
  }
  foot_offset[l] = std::move(offset);
  const FootTargetsJob targets{
      &feet[l],       foot_offset[l],      input_ankle_rotation[l], ankle_rotation_inverse[l],
      s.align_feet,   align_weight[l],     ground_tilt[l],          tilt_axis[l],
      ground_turn[l], ground[l][1].height, planted_level[l][1],     floor};
  targets.run(unheld_ankle_target[l], foot_rotation[l], unheld_toe_target[l], stale);
  std::fill(stale.begin(), stale.end(), char{0});
}

void PlanPasses::release_pass_state() {
  body_raw = {};
  for (int l = 0; l < 2; ++l) {
    animated_feet[l] = {};
    lock_correction[l] = {};
    foot_offset[l] = {};
    align_planted[l] = {};
    for (int p = 0; p < 2; ++p) {
      pivot_height[l][p] = {};
      on_ground[l][p] = {};
      retimed_by[l][p] = {};
    }
    previous_pivot[l] = {};
    keep_constant[l] = {};
    lock_pivot[l] = {};
    best_plan[l] = {};
    first_inputs[l] = {};
    last_inputs[l] = {};
    ground_tilt[l] = {};
    tilt_axis[l] = {};
    ground_turn[l] = {};
    swing_need[l] = {};
    planned_offset[l] = {};
    offsets_ground[l] = {};
    unheld_ankle_target[l] = {};
    unheld_toe_target[l] = {};
    targets_stale[l] = {};
    offsets_keep_constant[l] = {};
    seen_on_ground[l] = {};
    support[l] = {};
    support_planted[l] = {};
  }
}

void PlanPasses::release_ground_memos() {
  for (auto& leg_memos : ground_memo)
    for (GroundMemo& memo : leg_memos) memo = GroundMemo{};
}

void PlanPasses::run() {
  for (int pass = 0;; ++pass, ++series_pass) {
    for_each_leg([&](int l) { replanned[l] = plan_lock_and_offsets(l, pass); });
    if (!replanned[0] && !replanned[1]) {  // settled
      if (series == 0 || !next_series_or_best()) break;
      continue;
    }
    plan_inputs_changed[0] = plan_inputs_changed[1] = false;

    // 4. The body follows the terrain (body_follows_terrain.hpp). A leg's support depends only
    // on its plants, which most passes leave as they were.
    const bool support_stale[2] = {support_planted[0] != result.planted[0],
                                   support_planted[1] != result.planted[1]};
    auto make_support = [&](int l) {
      if (!support_stale[l]) return;
      support_planted[l] = result.planted[l];
      support[l] = plant_support(result.planted[l], fps);
    };
    if (support_stale[0] && support_stale[1]) {
      for_each_leg(make_support);
    } else {  // one leg's at most: not worth a hand-over to another thread
      make_support(0);
      make_support(1);
    }
    std::span<const double> supports[2] = {support[0], support[1]};
    std::span<const double> offsets[2] = {planned_offset[0], planned_offset[1]};
    body_follows_terrain(supports, offsets, s.body_smoothing * fps, body_raw, body);

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
      // and only with one that does not: where every plan's worst frames slide more than that,
      // a later plan with less worst sliding can still slide more on average.
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
        heights_taken[l] = true;
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
}

}  // namespace ikfix::core
