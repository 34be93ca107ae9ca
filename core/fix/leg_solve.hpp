#pragma once
// One leg, one frame: limits, the chosen solver, and the new world rotations of hip, knee and
// ankle (minimal rotations, so the animated twist is kept).
#include <cmath>

#include "core/fix/fix_settings.hpp"
#include "core/math.hpp"

namespace ikfix::core {

struct LegPose {
  Vec3 hip_ws, knee_ws, ankle_ws;              // world metres
  Quat hip_rot_ws, knee_rot_ws, ankle_rot_ws;  // world rotations
  // Centre of the hip cone: the rest pose's hip->ankle direction carried by the pelvis (unit,
  // world). Zero: no hip limit.
  Vec3 hip_cone_axis_ws{0.0};
  // Away from the body's midline at this hip (unit, world): the side a target beyond the cone
  // straight above the hip is approached from, so one passing over the hip moves the leg round
  // the outside instead of flipping it. Zero: the knee's (pole's) side.
  Vec3 outward_ws{0.0};
  // Instead of outward_ws (when not null): the other hip, world metres; outward is then the unit
  // vector from it to hip_ws, made only by the solves that use it (targets beyond the hip cone,
  // a few frames a clip) instead of for every solve.
  const Vec3* other_hip_ws = nullptr;
};

struct LegSolveResult {
  Vec3 knee_ws, ankle_ws;
  Quat hip_rot_ws, knee_rot_ws;  // ankle rotation is decided by foot orientation
  double residual_m = 0;         // |ankle - target| after the solve
  int iterations = 0;
  bool reached = false;
  const char* reason =
      "";  // when not reached: "too far", "too close" or "hip limit" (see unreachable_reason)
};

// The report's reason for a frame a leg does not reach, from the solver's reason and where the
// target sits from the hip against where the animated ankle sat from the animated hip (world
// metres): a "too far" target that is mostly lower is "too low" (the ground drops away: a step
// down, a cliff), a "too close" one that is mostly higher is "too high" (the ground rises into
// the folded leg: a step too high); otherwise the solver's reason ("too far": held too far out,
// "too close": pulled in beyond the knee's bend, "hip limit").
const char* unreachable_reason(const char* solver_reason, const Vec3& hip_ws, const Vec3& target_ws,
                               const Vec3& animated_hip_ws, const Vec3& animated_ankle_ws);

// Interior knee angle of a hip-knee-ankle chain (radians, pi = straight), as `ikfix check`
// measures it; a zero-length bone counts as hanging straight down from the knee.
double knee_angle(const Vec3& hip_ws, const Vec3& knee_ws, const Vec3& ankle_ws);

// Pole: the animated knee's offset from the hip->ankle line, blended with the foot's forward
// direction so it stays defined (and continuous) when the leg is straight.
Vec3 knee_pole(const LegPose& animated, const Vec3& foot_forward_ws, double leg_length);

// Solves hip->knee->ankle toward `target_ws` with the leg translated so the hip is at `hip_ws`
// (the animated pose otherwise). Bone lengths come from `animated`, so they are preserved. The
// hip->ankle line stays within settings.max_hip_angle of the hip cone's axis, or within the
// animation's own angle if that is wider (a kick is never folded back). `pole_ws` is the knee's
// side for the animated leg (see knee_pole); a goal swung more than 30 degrees from the animated
// hip->ankle line carries it along. The goal where the target is out of reach moves
// continuously with the target across every limit (reach, knee bend, hip cone).
LegSolveResult solve_leg(const LegPose& animated, const Vec3& hip_ws, const Vec3& target_ws,
                         const Vec3& pole_ws, const FixSettings& settings);
// The same with the knee's bend limit given (radians, interior angle at full bend) instead of
// settings.min_knee_angle: a clip whose own knee folds further than the setting (a boxer's
// crouch) may be solved with that knee's own limit.
LegSolveResult solve_leg(const LegPose& animated, const Vec3& hip_ws, const Vec3& target_ws,
                         const Vec3& pole_ws, const FixSettings& settings, double min_knee_angle);

// The knee's bend limit (radians, interior angle at full bend) with its cosine, computed once
// for a clip's many solves instead of a libm cos in each.
struct KneeLimit {
  double angle = 0;
  double cos_angle = 1;
  explicit KneeLimit(double radians) : angle(radians), cos_angle(std::cos(radians)) {}
};
// The same as the overload above, the limit's cosine given.
LegSolveResult solve_leg(const LegPose& animated, const Vec3& hip_ws, const Vec3& target_ws,
                         const Vec3& pole_ws, const FixSettings& settings,
                         const KneeLimit& knee_limit);

// One leg's solve_leg arguments (world metres; `animated` not null).
struct LegSolveArgs {
  const LegPose* animated = nullptr;
  Vec3 hip_ws{0.0}, target_ws{0.0}, pole_ws{0.0};
};
// Both legs of a frame: results[l] is solve_leg(*legs[l].animated, legs[l].hip_ws,
// legs[l].target_ws, legs[l].pole_ws, settings, knee_limit), bit for bit. With FABRIK the two
// solves' passes are interleaved (run_fabrik_pair), so their chains of square roots and
// divisions overlap in the CPU.
void solve_leg_pair(const LegSolveArgs legs[2], const FixSettings& settings,
                    const KneeLimit& knee_limit, LegSolveResult results[2]);

}  // namespace ikfix::core
