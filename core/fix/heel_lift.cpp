#include "core/fix/heel_lift.hpp"

#include <algorithm>
#include <cmath>

#include "core/fix/smooth.hpp"

namespace ikfix::core {
namespace {

// The drop needed as a function of the lift angle is smooth but need not be monotone (turning
// about the ball also moves the ankle horizontally, towards or away from the hip), so the
// limit's range is scanned on a grid first and refined by bisection where it first suffices.
constexpr int kGridSteps = HeelLiftGrid::kSteps;
constexpr int kBisections = 30;
constexpr double kNoLift = 1e-9;  // radians

double drop_at(const ReachProblem& leg, const Vec3& axis, double angle) {
  return pelvis_drop_needed(leg.hip, lifted_ankle(leg.ankle, leg.ball, HeelLift{angle, axis}),
                            leg.reach);
}

// drop_at the grid angle max_angle k / kGridSteps (`axis` a unit vector), its turn's sine and
// cosine from `turns` when given (made there once for this max_angle): the same bits.
double drop_at_grid(const ReachProblem& leg, const Vec3& axis, double max_angle, int k,
                    HeelLiftTurns* turns) {
  const double angle = max_angle * k / kGridSteps;
  if (!turns || !(angle > 0)) return drop_at(leg, axis, angle);
  if (turns->max_angle != max_angle) turns->max_angle = max_angle, turns->known = 0;
  for (; turns->known < k; ++turns->known) {
    const int j = turns->known + 1;
    const double half = max_angle * j / kGridSteps * 0.5;
    turns->sin_half[j] = std::sin(half);
    turns->cos_half[j] = std::cos(half);
  }
  const double s = turns->sin_half[k];
  const Quat turn(turns->cos_half[k], axis.x * s, axis.y * s, axis.z * s);
  return pelvis_drop_needed(leg.hip, leg.ball + turn * (leg.ankle - leg.ball), leg.reach);
}

}  // namespace

double pelvis_drop_needed(const Vec3& hip, const Vec3& target, double reach) {
  const Vec3 v = hip - target;
  const double h2 = v.x * v.x + v.z * v.z;
  if (h2 >= reach * reach) return std::max(0.0, v.y);
  return std::max(0.0, v.y - std::sqrt(reach * reach - h2));
}

Vec3 heel_lift_axis(const Vec3& ankle, const Vec3& ball) {
  const Vec3 back = ankle - ball;
  const Vec3 flat = safe_normalize(Vec3(back.x, 0.0, back.z), Vec3(0));
  // safe_normalize gives the zero fallback or a unit vector: comparing with zero tells them
  // apart without a square root (this runs for every frame and leg of steps 5b and 7-10).
  if (flat == Vec3(0)) return Vec3(0);
  // Right-handed: turning the backward direction about cross(back, up) by a positive angle
  // tips it upwards (as toe_lift turns the toes up about cross(forward, up)).
  return glm::normalize(glm::cross(flat, Vec3(0, 1, 0)));
}

double heel_lift_weight(const Vec3& ankle, const Vec3& ball) {
  // Cosine of the ankle-to-ball line's angle with the horizontal below which the lift fades.
  constexpr double kFullLiftCosine = 0.5;
  const Vec3 back = ankle - ball;
  const double length = glm::length(back);
  if (!(length > 0)) return 0.0;
  const double t = std::clamp(std::hypot(back.x, back.z) / (length * kFullLiftCosine), 0.0, 1.0);
  return t * t * t * (t * (6.0 * t - 15.0) + 10.0);
}

Vec3 lifted_ankle(const Vec3& ankle, const Vec3& ball, const HeelLift& lift) {
  if (!(lift.angle > 0) || glm::length(lift.axis) == 0.0) return ankle;
  return ball + axis_angle(lift.axis, lift.angle) * (ankle - ball);
}

double heel_lift_to_height(const Vec3& ankle, const Vec3& ball, double height, double max_angle) {
  if (ankle.y >= height || !(max_angle > 0)) return 0.0;
  const Vec3 back = ankle - ball;
  // Turning about the horizontal axis across the foot: the ankle's height over the ball is
  // d cos(a) + r sin(a) = R cos(a - phi), with r its horizontal and d its vertical offset.
  const double r = std::hypot(back.x, back.z), d = back.y;
  if (r == 0.0) return max_angle;
  const double radius = std::hypot(r, d), phi = std::atan2(r, d);
  const double c = height - ball.y;
  if (c > radius) return max_angle;
  return std::clamp(phi - std::acos(c / radius), 0.0, max_angle);
}

double drop_with_heel_lift(const ReachProblem& leg, double max_angle, double enough,
                           HeelLiftGrid* grid, HeelLiftTurns* turns) {
  const Vec3 axis = heel_lift_axis(leg.ankle, leg.ball);
  double best = pelvis_drop_needed(leg.hip, leg.ankle, leg.reach);
  if (grid) grid->known = 0;
  if (!(max_angle > 0) || axis == Vec3(0)) return best;  // zero or unit: no square root needed
  for (int k = 1; k <= kGridSteps && !(best <= enough); ++k) {
    const double drop = drop_at_grid(leg, axis, max_angle, k, turns);
    if (grid) grid->drop[k] = drop, grid->known = k;
    best = std::min(best, drop);
  }
  return best;
}

HeelLift heel_lift_for_drop(const ReachProblem& leg, double allowed_drop, double max_angle,
                            const HeelLiftGrid* grid, HeelLiftTurns* turns) {
  HeelLift out;
  const Vec3 axis = heel_lift_axis(leg.ankle, leg.ball);
  const bool has_axis = axis != Vec3(0);  // zero or unit: no square root needed
  if (has_axis) out.axis = axis;
  if (pelvis_drop_needed(leg.hip, leg.ankle, leg.reach) <= allowed_drop) return out;
  if (!(max_angle > 0) || !has_axis) return out;
  double best_angle = 0, best_drop = 1e300;
  for (int k = 1; k <= kGridSteps; ++k) {
    const double hi = max_angle * k / kGridSteps;
    const double drop =
        grid && k <= grid->known ? grid->drop[k] : drop_at_grid(leg, axis, max_angle, k, turns);
    if (drop <= allowed_drop) {
      // The first grid angle that suffices; the smallest one lies between it and the last
      // that did not.
      double lo = max_angle * (k - 1) / kGridSteps, ok = hi;
      for (int i = 0; i < kBisections; ++i) {
        const double mid = 0.5 * (lo + ok);
        (drop_at(leg, axis, mid) <= allowed_drop ? ok : lo) = mid;
      }
      out.angle = ok;
      return out;
    }
    if (drop < best_drop) {
      best_drop = drop;
      best_angle = hi;
    }
  }
  out.angle = best_angle;
  return out;
}

std::vector<double> heel_lift_allowance(const std::vector<char>& held, double smoothing_frames) {
  const std::size_t n = held.size();
  std::vector<double> mask(n), dilated(n), smoothed(n);
  for (std::size_t f = 0; f < n; ++f) mask[f] = held[f] ? 1.0 : 0.0;
  dilate_max(mask, gaussian_radius(smoothing_frames), dilated);
  gaussian_smooth(dilated, smoothing_frames, smoothed);
  for (std::size_t f = 0; f < n; ++f)
    smoothed[f] = held[f] ? 0.0 : std::clamp(1.0 - smoothed[f], 0.0, 1.0);
  return smoothed;
}

HeelLiftPlan plan_heel_lifts(const std::vector<ReachProblem> (&legs)[2], double max_angle,
                             double smoothing_frames, const std::vector<double> (&allowed)[2],
                             const ParallelRunner* runner) {
  HeelLiftPlan plan;
  const std::size_t frames = legs[0].size();
  std::vector<double> raw[2];
  for (int l = 0; l < 2; ++l) {
    raw[l].assign(frames, 0.0);
    plan.axis[l].assign(frames, Vec3(1, 0, 0));
    plan.angle[l].assign(frames, 0.0);
  }
  if (!(max_angle > 0) || legs[1].size() != frames) return plan;
  std::vector<double> weight[2];
  for (int l = 0; l < 2; ++l) {
    weight[l].resize(frames);
    for (std::size_t f = 0; f < frames; ++f)
      weight[l][f] = heel_lift_weight(legs[l][f].ankle, legs[l][f].ball);
  }
  // Without the pose's weight (the smoothed fraction's bound) and with it (the planned lift's).
  auto unweighted_limit = [&](int l, std::size_t f) {
    return allowed[l].size() == frames ? max_angle * std::clamp(allowed[l][f], 0.0, 1.0)
                                       : max_angle;
  };
  auto limit = [&](int l, std::size_t f) { return unweighted_limit(l, f) * weight[l][f]; };
  // Frames are independent until the smoothing below.
  parallel_ranges(runner, static_cast<int>(frames), 64, [&](int begin, int end) {
    HeelLiftTurns turns[2];  // each leg's grid turns, kept while its limit stays
    for (std::size_t f = static_cast<std::size_t>(begin); f < static_cast<std::size_t>(end); ++f) {
      const ReachProblem* leg[2] = {&legs[0][f], &legs[1][f]};
      const bool short_of_reach =
          pelvis_drop_needed(leg[0]->hip, leg[0]->ankle, leg[0]->reach) > 0 ||
          pelvis_drop_needed(leg[1]->hip, leg[1]->ankle, leg[1]->reach) > 0;
      // The larger of the legs' least drops: the second leg's scan may stop at the first's.
      // Each leg's scanned drops, read again by its lift's scan (the same leg and limit).
      double drop = 0.0;
      HeelLiftGrid grid[2];
      if (short_of_reach) {
        const double first = drop_with_heel_lift(*leg[0], limit(0, f), 0.0, &grid[0], &turns[0]);
        drop =
            std::max(first, drop_with_heel_lift(*leg[1], limit(1, f), first, &grid[1], &turns[1]));
      }
      for (int l = 0; l < 2; ++l) {
        const HeelLift lift = heel_lift_for_drop(*leg[l], drop, limit(l, f), &grid[l], &turns[l]);
        raw[l][f] = lift.angle;
        plan.axis[l][f] = lift.axis;
      }
    }
  });
  auto smooth_leg = [&](int l) {
    // The lift as a fraction of the pose's weight (a raw lift is 0 where the weight is), then
    // the weight back on the smoothed fraction: never less than a frame asked for.
    std::vector<double> dilated(frames);
    for (std::size_t f = 0; f < frames; ++f)
      if (raw[l][f] > 0) raw[l][f] /= weight[l][f];
    dilate_max(raw[l], gaussian_radius(smoothing_frames), dilated);
    gaussian_smooth(dilated, smoothing_frames, plan.angle[l]);
    // The smoother's running sums leave ~1e-17 where no lift was asked for: that is none.
    for (std::size_t f = 0; f < frames; ++f) {
      const double a = std::clamp(plan.angle[l][f], 0.0, unweighted_limit(l, f)) * weight[l][f];
      plan.angle[l][f] = a < kNoLift ? 0.0 : a;
    }
  };
  // The legs' smoothing side by side (below ~512 frames a second thread costs about what it
  // saves, as for the fix's other leg loops).
  parallel_ranges(frames >= 512 ? runner : nullptr, 2, 1, [&](int begin, int end) {
    for (int l = begin; l < end; ++l) smooth_leg(l);
  });
  return plan;
}

}  // namespace ikfix::core
