#include "core/fix/leg_solve.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "core/solvers/ccd.hpp"
#include "core/solvers/dls.hpp"
#include "core/solvers/fabrik.hpp"
#include "core/solvers/two_bone.hpp"

namespace ikfix::core {

double knee_angle(const Vec3& hip_ws, const Vec3& knee_ws, const Vec3& ankle_ws) {
  return angle_between(safe_normalize(hip_ws - knee_ws, Vec3(0, 1, 0)),
                       safe_normalize(ankle_ws - knee_ws, Vec3(0, -1, 0)));
}

Vec3 knee_pole(const LegPose& a, const Vec3& foot_forward_ws, double leg_length) {
  const Vec3 axis = safe_normalize(a.ankle_ws - a.hip_ws, Vec3(0, -1, 0));
  const Vec3 rel = a.knee_ws - a.hip_ws;
  const Vec3 offset = rel - axis * glm::dot(rel, axis);
  // A 2% of leg length bias toward the toes: negligible for a bent knee, decisive for a
  // straight one (knees point roughly where the feet point).
  return offset + foot_forward_ws * (0.02 * leg_length);
}

LegSolveResult solve_leg(const LegPose& a, const Vec3& hip_ws, const Vec3& target_ws,
                         const Vec3& pole_ws, const FixSettings& s) {
  return solve_leg(a, hip_ws, target_ws, pole_ws, s, s.min_knee_angle);
}

const char* unreachable_reason(const char* solver_reason, const Vec3& hip_ws, const Vec3& target_ws,
                               const Vec3& animated_hip_ws, const Vec3& animated_ankle_ws) {
  // Only the two reasons that may be renamed need the geometry (most frames reach: no hypot).
  const std::string_view reason(solver_reason);
  const bool too_far = reason == "too far";
  if (!too_far && reason != "too close") return solver_reason;
  const Vec3 moved = (target_ws - hip_ws) - (animated_ankle_ws - animated_hip_ws);
  const double sideways = std::hypot(moved.x, moved.z);
  if (too_far && -moved.y > sideways) return "too low";
  if (!too_far && moved.y > sideways) return "too high";
  return solver_reason;
}

LegSolveResult solve_leg(const LegPose& a, const Vec3& hip_ws, const Vec3& target_ws,
                         const Vec3& pole_ws, const FixSettings& s, double min_knee_angle) {
  return solve_leg(a, hip_ws, target_ws, pole_ws, s, KneeLimit(min_knee_angle));
}

namespace {

// One leg's solve up to its solver (limits, goal, pole) and what its end needs: made by
// plan_leg, solved, then finished by finish_legs (solve_leg takes the three in a row,
// solve_leg_pair interleaves two legs' FABRIK passes).
struct LegPlan {
  Vec3 hip_ws{0.0}, target_ws{0.0};
  Vec3 start[3];
  Vec3 thigh_vec{0.0}, shin_vec{0.0};
  double thigh = 0, shin = 0;
  double lengths[2] = {0, 0};
  Vec3 goal{0.0};
  Vec3 carried_pole{0.0};
  const char* reason = "";
};

LegPlan plan_leg(const LegPose& a, const Vec3& hip_ws, const Vec3& target_ws, const Vec3& pole_ws,
                 const FixSettings& s, const KneeLimit& knee_limit) {
  LegPlan p;
  p.hip_ws = hip_ws;
  p.target_ws = target_ws;
  const Vec3 shift = hip_ws - a.hip_ws;
  p.start[0] = hip_ws;
  p.start[1] = a.knee_ws + shift;
  p.start[2] = a.ankle_ws + shift;
  const Vec3* start = p.start;
  // Bones and their lengths, made once (the rotations at the end reuse them).
  p.thigh_vec = a.knee_ws - a.hip_ws;
  p.shin_vec = a.ankle_ws - a.knee_ws;
  const double thigh = p.thigh = glm::length(p.thigh_vec);
  const double shin = p.shin = glm::length(p.shin_vec);
  p.lengths[0] = thigh;
  p.lengths[1] = shin;

  // Limits shared by every solver: the reach (slightly short of straight) and the knee's
  // maximum bend give a shell of reachable ankle distances from the hip.
  const double max_d = s.max_reach * (thigh + shin);
  // The knee limit never unfolds a leg the animation itself folds further (a character lying
  // or kneeling): the animated hip-ankle distance is always allowed.
  const double min_d =
      std::min(std::sqrt(std::max(
                   0.0, thigh * thigh + shin * shin - 2 * thigh * shin * knee_limit.cos_angle)),
               glm::length(a.ankle_ws - a.hip_ws));
  const Vec3 to_target = target_ws - hip_ws;
  const double d = glm::length(to_target);
  // The animated hip->ankle direction: the fallback when the target sits on the hip, and the
  // hip cone limit's reference below.
  const Vec3 animated_axis = safe_normalize(start[2] - start[0], Vec3(0, -1, 0));
  Vec3 axis = unit_or(to_target, d, Vec3(0));
  if (axis == Vec3(0)) axis = animated_axis;
  Vec3 goal = target_ws;
  const char* reason = "";
  // Whether `axis` is safe_normalize(goal - hip_ws, animated_axis) bit for bit (below).
  bool axis_is_goal_axis = true;
  if (d > max_d) {
    goal = hip_ws + axis * max_d;
    reason = "too far";
    axis_is_goal_axis = false;
  } else if (d < min_d) {
    // Pushed out to the knee limit's shell along the ray from a point halfway down the
    // animated leg, not radially from the hip: a target passing close by the hip (a foot swung
    // over it toward a high step) would otherwise swing the goal round the hip in a frame or
    // two. On the shell the ray's point is the target itself, so the goal stays continuous with
    // a target outside; it is undefined only for a target on that point, inside the leg.
    const Vec3 inner = animated_axis * (0.5 * min_d);  // from the hip
    const Vec3 ray = safe_normalize(to_target - inner, animated_axis);
    const double along = glm::dot(inner, ray);
    const double t =
        -along + std::sqrt(std::max(0.0, along * along - glm::dot(inner, inner) + min_d * min_d));
    goal = hip_ws + inner + ray * t;
    axis = safe_normalize(goal - hip_ws, animated_axis);
    reason = "too close";
  }
  const double goal_d = std::clamp(d, min_d, max_d);  // the goal's distance from the hip
  // Hip cone: the leg may not swing further from the cone's axis than the limit (or than the
  // animation itself does); a target outside is approached along the cone's edge.
  const Vec3& cone = a.hip_cone_axis_ws;
  // Skipped when the target is surely inside: with a limit of 90 degrees or more, a direction
  // less than 90 degrees from the axis is within it (the common case; saves two atan2).
  const bool surely_inside = s.max_hip_angle >= kPi / 2 && glm::dot(cone, axis) > 1e-9;
  if (!surely_inside && glm::length(cone) > 0.5) {
    const double allowed = std::max(s.max_hip_angle, angle_between(cone, animated_axis));
    const double angle = angle_between(cone, axis);
    if (angle > allowed + 1e-12) {
      // The nearest edge point lies toward the target's own side, but that side is undefined
      // for a target straight up the cone's axis (a foot above the hip): a target passing over
      // the hip would throw the goal from the back edge to the front one in a frame. So the
      // side leans outward (away from the body, else toward the knee), by nothing at the cone's
      // edge (the goal stays continuous with an inside target) up to sin(allowed) straight up
      // the axis: a target swept from behind over the hip to the front then takes the goal
      // round the outer side. No map of the outside onto the edge is continuous everywhere;
      // this one breaks only across the body (high toward the other leg), where feet do not go.
      const Vec3 outward =
          a.other_hip_ws ? safe_normalize(a.hip_ws - *a.other_hip_ws, Vec3(0)) : a.outward_ws;
      const Vec3 side_hint = glm::length(outward) > 0.5 ? outward : pole_ws;
      const Vec3 lean_side = safe_normalize(
          side_hint - cone * glm::dot(side_hint, cone),
          safe_normalize(animated_axis - cone * glm::dot(animated_axis, cone), Vec3(0)));
      const double lean = std::sin(allowed) *
                          std::clamp((angle - allowed) / std::max(kPi - allowed, 1e-9), 0.0, 1.0);
      const Vec3 away =
          safe_normalize(axis - cone * glm::dot(axis, cone) + lean_side * lean, lean_side);
      if (glm::length(away) > 0.5) {
        axis = cone * std::cos(allowed) + away * std::sin(allowed);
        goal = hip_ws + axis * goal_d;
        reason = "hip limit";
        axis_is_goal_axis = false;
      }
    }
  }

  // The pole describes the animated leg's bend: carried by the leg's swing from the animated
  // hip->ankle line onto the hip->goal line, so it keeps its place beside the leg. Uncarried, a
  // goal swung far from the animation (a foot raised above the hip on a stair) passes through
  // the pole's direction, where the knee's side is undefined and flips in a frame.
  // Only swings beyond 30 degrees carry it (fully from 60, eased in between): the usual small
  // corrections solve with the pole as given.
  // A goal not moved is the target (goal - hip_ws is to_target), and one pushed out to the knee
  // limit's shell had its axis made the same way: axis is then exactly goal_axis.
  const Vec3 goal_axis = axis_is_goal_axis ? axis : safe_normalize(goal - hip_ws, animated_axis);
  constexpr double kCarryFrom = kPi / 6, kCarryFull = kPi / 3;
  // Both axes are unit: a dot product above cos(30 degrees), with a margin far beyond rounding,
  // tells the usual small swing without the atan2 (the same decision, the same pole).
  constexpr double kSurelyBelowCarryCos = 0.86602540378443865 + 1e-9;
  const double swing = glm::dot(animated_axis, goal_axis) > kSurelyBelowCarryCos
                           ? 0.0
                           : angle_between(animated_axis, goal_axis);
  Vec3 carried_pole = pole_ws;
  if (swing > kCarryFrom) {
    const double u = std::min(1.0, (swing - kCarryFrom) / (kCarryFull - kCarryFrom));
    const double weight = u * u * (3 - 2 * u);
    carried_pole =
        glm::slerp(identity_quat(), rotation_between(animated_axis, goal_axis), weight) * pole_ws;
  }

  p.goal = goal;
  p.carried_pole = carried_pole;
  p.reason = reason;
  return p;
}

// The FABRIK job of a planned leg, its outputs in `out`, r.iterations and `residual`.
FabrikJob fabrik_job(const LegPlan& p, const FixSettings& s, Vec3 out[3], LegSolveResult& r,
                     double* residual) {
  FabrikJob job;
  job.start_ws = p.start;
  job.lengths = p.lengths;
  job.target_ws = p.goal;
  job.pole_dir_ws = &p.carried_pole;
  job.tolerance = s.solver_tolerance;
  job.max_iterations = s.max_iterations;
  job.out_ws = std::span<Vec3>(out, 3);
  job.iterations = &r.iterations;
  job.residual = residual;
  return job;
}

// The solved chains `out` (FABRIK's residuals when it ran, else negative) into the results: the
// reach, the reason and the new world rotations of hip and knee, of N legs. Each step is taken
// for every leg before the next, so two legs' chains of square roots and divisions overlap in
// the CPU (N = 2) where one leg alone (N = 1) runs the same code.
template <int N>
void finish_legs(const LegPlan p[N], const LegPose* const a[N], const Vec3 out[N][3],
                 const double fabrik_residual[N], const FixSettings& s, LegSolveResult r[N]) {
  Vec3 thigh_old[N], thigh_new[N], shin_carried[N], shin_new[N];
  Quat hip_delta[N], knee_delta[N];
  for (int l = 0; l < N; ++l) {
    const char* reason = p[l].reason;
    r[l].knee_ws = out[l][1];
    r[l].ankle_ws = out[l][2];
    // The goal is the target unless a limit moved it (no reason): FABRIK measured the same then.
    r[l].residual_m = *reason == '\0' && fabrik_residual[l] >= 0
                          ? fabrik_residual[l]
                          : glm::length(out[l][2] - p[l].target_ws);
    r[l].reached = r[l].residual_m <= s.unreachable_tolerance;
    r[l].reason = r[l].reached ? "" : (*reason ? reason : "solver did not converge");
  }
  // Minimal rotations that carry the animated bones onto the solved ones (twist kept).
  for (int l = 0; l < N; ++l) {
    thigh_old[l] = unit_or(p[l].thigh_vec, p[l].thigh, Vec3(0, -1, 0));
    thigh_new[l] = safe_normalize(r[l].knee_ws - p[l].hip_ws, thigh_old[l]);
  }
  for (int l = 0; l < N; ++l) hip_delta[l] = rotation_between(thigh_old[l], thigh_new[l]);
  for (int l = 0; l < N; ++l) {
    r[l].hip_rot_ws = glm::normalize(hip_delta[l] * a[l]->hip_rot_ws);
    shin_carried[l] = hip_delta[l] * unit_or(p[l].shin_vec, p[l].shin, Vec3(0, -1, 0));
  }
  for (int l = 0; l < N; ++l)
    shin_new[l] = safe_normalize(r[l].ankle_ws - r[l].knee_ws, shin_carried[l]);
  for (int l = 0; l < N; ++l) knee_delta[l] = rotation_between(shin_carried[l], shin_new[l]);
  for (int l = 0; l < N; ++l)
    r[l].knee_rot_ws = glm::normalize(knee_delta[l] * hip_delta[l] * a[l]->knee_rot_ws);
}

void run_solver(const LegPlan& p, const FixSettings& s, Vec3 out[3], LegSolveResult& r,
                double* fabrik_residual) {
  switch (s.solver) {
    case SolverKind::Fabrik: {
      fabrik_job(p, s, out, r, fabrik_residual).run();
      break;
    }
    case SolverKind::Ccd: {
      CcdJob job;
      job.start_ws = p.start;
      job.target_ws = p.goal;
      job.pole_dir_ws = &p.carried_pole;
      job.tolerance = s.solver_tolerance;
      job.max_iterations = s.ccd_max_iterations;
      job.out_ws = std::span<Vec3>(out, 3);
      job.iterations = &r.iterations;
      job.run();
      break;
    }
    case SolverKind::TwoBone: {
      out[0] = p.start[0];
      TwoBoneJob job;
      job.root_ws = p.start[0];
      job.mid_ws = p.start[1];
      job.end_ws = p.start[2];
      job.target_ws = p.goal;
      job.pole_dir_ws = &p.carried_pole;
      job.tolerance = s.solver_tolerance;
      job.out_mid_ws = &out[1];
      job.out_end_ws = &out[2];
      job.run();
      break;
    }
    case SolverKind::Dls: {
      DlsJob job;
      job.start_ws = p.start;
      job.target_ws = p.goal;
      job.pole_dir_ws = &p.carried_pole;
      job.tolerance = s.solver_tolerance;
      job.max_iterations = s.dls_max_iterations;
      job.out_ws = std::span<Vec3>(out, 3);
      job.iterations = &r.iterations;
      job.run();
      break;
    }
  }
}

}  // namespace

LegSolveResult solve_leg(const LegPose& a, const Vec3& hip_ws, const Vec3& target_ws,
                         const Vec3& pole_ws, const FixSettings& s, const KneeLimit& knee_limit) {
  const LegPlan p = plan_leg(a, hip_ws, target_ws, pole_ws, s, knee_limit);
  LegSolveResult r;
  Vec3 out[3];
  double fabrik_residual = -1;  // FABRIK's |end - goal|, when it ran
  run_solver(p, s, out, r, &fabrik_residual);
  const LegPose* const animated[1] = {&a};
  finish_legs<1>(&p, animated, &out, &fabrik_residual, s, &r);
  return r;
}

void solve_leg_pair(const LegSolveArgs legs[2], const FixSettings& s, const KneeLimit& knee_limit,
                    LegSolveResult results[2]) {
  // Each step for both legs before the next: the two legs' independent work sits side by side
  // for the CPU to overlap (and FABRIK's passes alternate between the legs).
  LegPlan plans[2];
  for (int l = 0; l < 2; ++l) {
    results[l] = LegSolveResult{};
    plans[l] = plan_leg(*legs[l].animated, legs[l].hip_ws, legs[l].target_ws, legs[l].pole_ws, s,
                        knee_limit);
  }
  Vec3 out[2][3];
  double fabrik_residual[2] = {-1, -1};
  if (s.solver == SolverKind::Fabrik) {
    bool ok[2];
    run_fabrik_pair(fabrik_job(plans[0], s, out[0], results[0], &fabrik_residual[0]),
                    fabrik_job(plans[1], s, out[1], results[1], &fabrik_residual[1]), ok);
  } else {
    for (int l = 0; l < 2; ++l) run_solver(plans[l], s, out[l], results[l], &fabrik_residual[l]);
  }
  const LegPose* const animated[2] = {legs[0].animated, legs[1].animated};
  finish_legs<2>(plans, animated, out, fabrik_residual, s, results);
}

}  // namespace ikfix::core
