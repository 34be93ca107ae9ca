#pragma once
// Every knob of the foot fix, with defaults that suit human mocap. Distances are metres for a
// leg of `reference_leg_length`; the fix scales them by the actual leg length.
#include <array>
#include <optional>
#include <vector>

#include "core/fix/contacts.hpp"
#include "core/math.hpp"

namespace ikfix::core {

enum class SolverKind { Fabrik, Ccd, TwoBone, Dls };

struct FixSettings {
  SolverKind solver = SolverKind::Fabrik;
  // FABRIK / CCD passes per leg per frame. FABRIK creeps near full extension; its exact two-bone
  // closing step takes over after these passes, so more passes cost time without changing the
  // result (tests/bench/README.md).
  int max_iterations = 8;
  // CCD has no closing step and converges slowly near full extension: it gets more sweeps.
  int ccd_max_iterations = 128;
  // Damped least squares steps per leg per frame (>= 1), accepted or not (DlsJob): the leg's
  // error never grows from one step to the next, and when these run out the leg ends where the
  // last accepted step left it (reported unreachable when that is beyond
  // unreachable_tolerance). No closing step.
  int dls_max_iterations = 64;
  double solver_tolerance = 1e-6;       // metres
  double unreachable_tolerance = 1e-3;  // metres: shortfall above this is reported unreachable

  double reference_leg_length = 0.85;  // metres; thresholds below are for this leg length
  ContactSettings contacts;
  // Planted flags given from outside instead of detected: [leg 0 left, 1 right][frame], one
  // entry per clip frame. A user's contact file (Kovar: a human corrects the detector) or, when
  // retargeting, the source clip's contacts carried over frame for frame. Ignored for a leg whose
  // vector does not have exactly one entry per frame (callers validate and say so).
  std::optional<std::array<std::vector<char>, 2>> contacts_override;
  // Least height (metres) of a swing foot's lower point (heel or toe) above its planted level
  // over the terrain: [leg][frame], used on frames that are not planted. When retargeting, the
  // source's own swing heights scaled to the target's legs, so the target's foot leaves and
  // approaches the ground as the source's does, whatever its proportions. Ignored for a leg
  // whose vector does not have exactly one entry per frame.
  std::optional<std::array<std::vector<double>, 2>> swing_clearance;
  // With contacts_override: the planted foot's lower point is held exactly on its level for
  // every frame of a given plant (the contacts come from another motion, e.g. a retarget
  // source, so this foot may rise or sink inside them), instead of one offset per plant.
  bool given_plants_on_ground = false;
  // Heel/toe hand-overs of a planted foot may move to just after the new pivot touches down
  // (pivot_timing.hpp), where check sees no sliding. Off where only the plants found are wanted:
  // the retarget pipeline's source contacts (timed hand-overs grow the plants, which can put the
  // target foot into the floor).
  bool retime_to_touchdowns = true;
  // Worst within-plant sliding (m/s, as `ikfix check` measures it; the goal is 2 cm/s)
  // above which a leg whose plans never settle is planned again with other pivot retimings.
  // Below it the first series' plan stays: a retiming that slides less can turn the foot more
  // abruptly (more foot jerk).
  double retry_slide_above = 0.02;

  // Clip floor (world Y, metres, before the fix). Unset: y = 0 when the feet rest just above it,
  // else the 5th percentile of the lowest foot joint.
  std::optional<double> floor_height;

  double unlock_radius = 0.10;  // metres: a planted foot's lock is dragged beyond this
  double pivot_switch_margin =
      0.01;  // metres: heel/toe pivot switches when the other is this much lower
  // Metres: a held pivot whose animation runs this far from its hold while the foot's other point
  // stays hands the hold over to that point (foot_lock.hpp); 0 = never.
  double pivot_run_away = 0.02;
  double lock_blend_time = 0.15;  // seconds to fade the lock correction out after a plant
  // Seconds before touchdown / after lift-off over which the foot eases into and out of its
  // planted offset and ground tilt (so nothing changes while it is planted).
  double plant_ease_time = 0.08;

  // Seconds (Gaussian sigma) for the body's rise that the plan follows (the swing cap, the heel
  // lift): the raw rise is a staircase (one level per plant, on stairs and slopes alike). A sigma
  // of 0.25 s lets planted feet slide where the body comes late to a plant (a salsa foot at
  // 10 cm/s even on flat ground), so it stays short; the pelvis itself follows a smoother trend
  // of it (pelvis_trend_smoothing), which moves no foot target.
  double body_smoothing = 0.12;
  double foot_smoothing = 0.02;       // seconds, swing-foot height offsets
  double clearance_smoothing = 0.05;  // seconds: how early a swing foot starts rising over an edge
  // Metres per second: the fastest a swing foot's clearance rise may grow or shrink; beyond it the
  // rise starts earlier (steps 5 and 5a), instead of popping up (a pop at lift-off turns the
  // knee in one frame). Step 5a may start it up to `clearance_rise_lead` seconds before
  // lift-off: 15 cm at this speed.
  double max_clearance_rise_speed = 1.0;
  double clearance_rise_lead = 0.15;
  // Seconds after a lift-off toward a higher plant whose offsets are re-made with the least jerk
  // that still clears what the swing needs (foot_offsets.hpp): the rise eased out of the plant
  // instead of starting at full speed and braking.
  double swing_rise_in = 0.3;
  // Fraction of leg length: the least a swing ankle's target stays below its hip (raised with the
  // body) where the foot's planned rise over the body's would lift it higher; 0 = no limit.
  double min_swing_ankle_drop = 0.4;
  // Seconds (Gaussian sigma): the pelvis follows the body's rise smoothed this much (a ramp up
  // stairs and slopes instead of a bob up at each plant), and is lowered below that trend where
  // a leg would not reach, smoothed by pelvis_smoothing; its dilation grows with it, so a longer
  // one crouches longer around each frame that needs it, and a shorter one jerks the hips (the
  // bundled walk's pelvis jerk on the stairs and slope against these: tests/bench/README.md).
  double pelvis_trend_smoothing = 0.20;
  double pelvis_smoothing = 0.10;
  double max_pelvis_drop = 0.35;  // fraction of leg length
  // Radians: how far a foot beyond its leg's reach may turn up about its ball (heel up, as a
  // person goes on tiptoe before crouching) before the pelvis drops for the rest; 0 = never.
  // 20 degrees raises the heel of a 14 cm ankle-to-ball foot by about 5 cm. The lift moves the
  // ankles, so it adds foot jerk: limit and smoothing are chosen to keep it under 1.2x the
  // input's (tests/bench/README.md).
  double max_heel_lift = 20.0 * kPi / 180.0;
  double heel_lift_smoothing = 0.30;  // seconds (Gaussian sigma): the lift and where it is allowed
  double max_reach = 0.9995;          // fraction of leg length the solver may use
  double min_knee_angle = 25.0 * kPi / 180.0;  // radians, interior angle at full bend
  // Radians: how far the hip->ankle line may swing from its rest direction (carried by the
  // pelvis); the animation's own swing is always allowed.
  double max_hip_angle = 120.0 * kPi / 180.0;  // about the most a hip flexes

  // Plant placement (plant_placement.hpp): a plant whose foot would sink deeper than
  // plant_block_depth into a riser or a wall is moved along the foot where it fits, at most
  // max_plant_move (metres for the reference leg, scaled to the leg), eased in over at most
  // plant_move_ease_time seconds of the swing before it.
  bool place_plants = true;
  double plant_block_depth = 0.01;    // metres
  double max_plant_move = 0.3;        // metres, reference leg
  double plant_move_ease_time = 0.3;  // seconds

  bool align_feet = true;                     // turn planted feet to the ground normal
  double max_foot_tilt = 35.0 * kPi / 180.0;  // radians
  double max_toe_bend = 50.0 * kPi / 180.0;   // radians: toes turned up at the ball, at most
  double weight = 1.0;                        // 0 = input unchanged, 1 = full fix
};

const char* solver_name(SolverKind kind);

}  // namespace ikfix::core
