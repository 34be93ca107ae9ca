#pragma once
// One leg, one frame: limits, the chosen solver, and the new world rotations of hip, knee and
// ankle (minimal rotations, so the animated twist is kept).
#include "core/fix/fix_settings.hpp"
#include "core/math.hpp"

namespace ikfix::core {

struct LegPose {
  Vec3 hip_ws, knee_ws, ankle_ws;  // world metres
  Quat hip_rot_ws, knee_rot_ws, ankle_rot_ws;  // world rotations
};

struct LegSolveResult {
  Vec3 knee_ws, ankle_ws;
  Quat hip_rot_ws, knee_rot_ws;  // ankle rotation is decided by foot orientation
  double residual_m = 0;         // |ankle - target| after the solve
  int iterations = 0;
  bool reached = false;
  const char* reason = "";       // when not reached: "too far" or "too close"
};

// Pole: the animated knee's offset from the hip->ankle line, blended with the foot's forward
// direction so it stays defined (and continuous) when the leg is straight.
Vec3 knee_pole(const LegPose& animated, const Vec3& foot_forward_ws, double leg_length);

// Solves hip->knee->ankle toward `target_ws` with the leg translated so the hip is at `hip_ws`
// (the animated pose otherwise). Bone lengths come from `animated`, so they are preserved.
LegSolveResult solve_leg(const LegPose& animated, const Vec3& hip_ws, const Vec3& target_ws,
                         const Vec3& pole_ws, const FixSettings& settings);

}  // namespace ikfix::core
