#pragma once
// The pass driver of steps 3-8: plan -> check -> replan. Steps 3-8 are planned for a set of
// plants; the plan is then checked the way `ikfix check` will see the output (contacts detected
// on the planned heel and toe over the terrain). A frame that looks planted there but was not
// locked would be measured as sliding, so it joins the plants and the plan is made again, until
// neither the plants nor the pivots change (plants only grow; at most kMaxContactPasses plans
// a series). Contacts given by the user are taken as they are (only the pivot choice is
// refined). A plan that has not settled by then is not simply the last one: each leg keeps the
// plan whose check shows the least worst sliding (made once more from its inputs when it was
// not the last), and where that still slides above retry_slide_above the passes run again from
// the start with other pivot retimings (kRetimingSeries).
//
// The incremental-recompute rule (core/README.md): a leg whose plan inputs are those of the
// pass that last planned it keeps what that pass made (the same inputs make exactly the same
// again); within a leg, only the frames whose inputs changed bit for bit are made again.
#include <functional>
#include <span>
#include <vector>

#include "core/fix/contacts.hpp"
#include "core/fix/foot_contacts.hpp"
#include "core/fix/footfix.hpp"
#include "core/fix/ground_memo.hpp"
#include "core/fix/ground_track.hpp"
#include "core/fix/pivot_timing.hpp"
#include "core/fix/sample_legs.hpp"

namespace ikfix::core {

// What the passes read, fixed for the clip.
struct PlanPassesInputs {
  const FixInput* in = nullptr;
  int frames = 0;
  double fps = 0;
  double floor = 0;                                           // clip floor, world Y
  double scale = 0;                                           // leg length / reference leg length
  double leg_length = 0;                                      // metres
  const ContactSettings* contact_settings = nullptr;          // scaled to the leg
  const bool* contacts_given = nullptr;                       // [2]
  const std::vector<double>* planted_level = nullptr;         // [2], each {ankle, toe}
  const std::vector<double> (*point_height)[2] = nullptr;     // [2][2]: the input's heights
  const std::vector<Quat>* input_ankle_rotation = nullptr;    // [2]
  const std::vector<double>* input_hip_height = nullptr;      // [2]
  const std::vector<Quat>* ankle_rotation_inverse = nullptr;  // [2]
  const ParallelRunner* leg_runner = nullptr;
};

// The incremental-recompute rule of one leg's pass: which frames must be made again (1) and
// which would come out exactly as they are (0). Every frame when `every_frame` (the leg's first
// plan); else each frame whose lock correction changed bit for bit, and, when the plants changed
// (`new_weight`: the orientation weight made from the new plants), each frame whose weight
// changed bit for bit or, with given swing clearance, whose planted flag changed. A frame's
// ground, tilt and need are made from exactly these, so the others are kept.
std::vector<char> frames_to_remake(bool every_frame, std::span<const Vec3> new_lock,
                                   std::span<const Vec3> old_lock,
                                   const std::vector<double>* new_weight,
                                   std::span<const double> old_weight,
                                   std::span<const char> planted, std::span<const char> old_planted,
                                   bool clearance_given);

class PlanPasses {
 public:
  // `result`: its planted flags (the input contacts) grow; its ankle targets are the plan's.
  // `feet`: the input's foot points, which become the locked (planned) feet.
  PlanPasses(const PlanPassesInputs& inputs, FixResult& result, FootTrack (&feet)[2]);
  // Runs the passes to the end (settled, or the best plans made again).
  void run();
  // Frees the per-frame state only the passes read (the plan's outputs below stay, and
  // kept_plan_slide): called once run() is done, so that the steps after it do not hold it.
  void release_pass_state();
  // Frees the ground memos, once no later step queries them.
  void release_ground_memos();

  // What the plan made, per leg (the steps after the passes read and refine it).
  std::vector<signed char> pivot[2];  // per frame: 0 heel, 1 toe, -1 not planted
  GroundTrack ground[2][2];           // under the planned heel and toe
  std::vector<double> body;           // per frame: the body's rise, metres (step 4)
  std::vector<double> align_weight[2];
  std::vector<Quat> foot_rotation[2];
  std::vector<Vec3> toe_target_ws[2];
  std::vector<Vec3> pivot_hold[2];  // the planned feet's pivot holds (added to both points)
  int off_terrain[2] = {0, 0};      // frames with a foot point off the terrain
  int blend_frames = 1, ease_frames = 1, rise_lead_frames = 0, rise_in_frames = 0;
  // Ground under each foot's planned and checked heel and toe, remembered across passes: only
  // the points that moved are cast. A checked heel outside pivot holds is where it was planned.
  enum { kPlannedHeel, kCheckedHeel, kPlannedToe, kCheckedToe };
  GroundMemo ground_memo[2][4];
  // The worst sliding the check shows on the plan kept, per leg, m/s.
  double kept_plan_slide(int l) const {
    return replaying_best ? best_plan_slide[l] : last_plan_slide[l];
  }

 private:
  // What one leg's plan is made from (besides the fixed settings and the input): the plan with
  // the least worst sliding seen so far for that leg, to be made again if the plans never
  // settle. Within the passes the legs' plans are independent (each leg's targets come from its
  // own plants, pivots and points down; the body, shared, only caps a swing foot's rise), so
  // each leg keeps its own best plan.
  struct LegPlanInputs {
    std::vector<char> planted, keep_constant, on_ground[2];
    std::vector<double> pivot_height[2];
    TouchdownSwitch touchdown = TouchdownSwitch::WhenTurningLess;
  };
  static constexpr int kMaxContactPasses = 6;
  // How the pivot switches are retimed (pivot_timing.hpp), per leg, in each series: first a
  // switch just after the new pivot touches down is taken where the foot turns no more there;
  // where that never settles with a leg still sliding above retry_slide_above, the passes run
  // again from the start taking it always, then never, and such a leg keeps its best plan of
  // all series.
  static constexpr TouchdownSwitch kRetimingSeries[] = {
      TouchdownSwitch::WhenTurningLess, TouchdownSwitch::Always, TouchdownSwitch::Never};

  void for_each_leg(const std::function<void(int)>& per_leg) const;
  LegPlanInputs current_inputs(int l) const;
  void restore(int l, const LegPlanInputs& p);
  bool restore_best();
  bool next_series_or_best();
  bool plan_lock_and_offsets(int l, int pass);
  void plan_offsets(int l, const std::vector<char>& remake, bool remade_inputs);
  void plan_targets_and_check(int l);
  void make_targets(int l, std::vector<double>&& offset);

  const FixInput& in;
  const FixSettings& s;
  const int frames;
  const double fps, floor, scale, leg_length;
  const ContactSettings& contact_settings;
  const bool* contacts_given;
  const std::vector<double>* planted_level;
  const std::vector<Quat>* input_ankle_rotation;
  const std::vector<double>* input_hip_height;
  const std::vector<Quat>* ankle_rotation_inverse;
  const ParallelRunner* leg_runner;
  FixResult& result;
  FootTrack (&feet)[2];

  FootTrack animated_feet[2];
  std::vector<Vec3> lock_correction[2];
  std::vector<double> foot_offset[2];
  std::vector<double> body_raw;
  std::vector<char> align_planted[2];  // the plants align_weight was made from
  // Heel and toe heights the pivot is chosen by: the input's at first, then those of the
  // planned output over the terrain (a toe over a step edge is not on the ground, whatever
  // the flat-floor input said), with which points check will see on the ground.
  std::vector<double> pivot_height[2][2];
  std::vector<char> on_ground[2][2];
  std::vector<signed char> previous_pivot[2];
  // Given contacts: plants whose foot follows the per-frame need would, once the pivot hold
  // has moved the other foot point over different ground (a step edge), put that point into
  // the terrain; those plants keep the constant offset (the plan is made again).
  std::vector<char> keep_constant[2];
  bool clearance_given[2] = {false, false};
  // Per leg: whether the last pass changed an input of its plan other than the pivot heights
  // (plants grew, a given plant was made to keep its constant offset).
  bool plan_inputs_changed[2] = {false, false};
  // Per leg: pivot heights and points down taken from a check since the leg's last lock.
  bool heights_taken[2] = {true, true};
  std::vector<signed char> lock_pivot[2];  // the foot lock's pivots in the last pass
  std::vector<char> retimed_by[2][2];      // the points down its pivot switches were retimed by
  int series_count = 1;
  TouchdownSwitch touchdown_rule[2];
  LegPlanInputs best_plan[2];
  double best_plan_slide[2];
  bool best_is_last[2] = {false, false};  // the last checked plan is the leg's best
  double last_plan_slide[2] = {0, 0};     // the last checked plan's
  LegPlanInputs first_inputs[2];
  LegPlanInputs last_inputs[2];  // the last checked plan's, per leg
  bool replaying_best = false;   // this pass makes the best plan again, then the loop ends
  int series = 0;                // index in kRetimingSeries
  int series_pass = 0;           // passes since the series started
  // What each leg's plan passes keep between passes. A leg whose plan inputs (plants, plant
  // settings, lock pivots, points down) are those of the pass that last planned it keeps what
  // that pass made: the same inputs would make exactly the same again.
  std::vector<double> ground_tilt[2];  // the foot's turn to the ground under its heel, radians
  std::vector<Vec3> tilt_axis[2];
  std::vector<Quat> ground_turn[2];
  std::vector<double>
      swing_need[2];  // per frame, the least offset that keeps the foot out of the ground
  std::vector<double> planned_offset[2];  // step 5's foot offsets, before the swing rise is capped
  std::vector<double> offsets_ground[2];  // the ground (over the floor) the offsets were made on
  // Step 8's targets before the pivot holds, as the last pass made them, and the frames whose
  // inputs changed since (remade by step 3, or a new offset): only those are made again.
  std::vector<Vec3> unheld_ankle_target[2], unheld_toe_target[2];
  std::vector<char> targets_stale[2];
  std::vector<char> offsets_keep_constant[2];  // the plants kept constant they were made with
  FootContacts seen_on_ground[2];              // what the check sees of this pass's plan
  double plan_slide[2] = {0,
                          0};  // per leg, the worst sliding the check would show on this plan, m/s
  bool demoted[2] = {false, false};    // a given plant was made to keep its constant offset
  bool replanned[2] = {false, false};  // the leg's plan inputs changed: it was planned again
  // Step 4's support of the body by each leg, and the plants it was made from.
  std::vector<double> support[2];
  std::vector<char> support_planted[2];
};

}  // namespace ikfix::core
