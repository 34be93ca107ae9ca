#pragma once
// Heel lift before hip drop. When an ankle target is beyond what its leg can reach from where
// the hip is (a foot on a lower step, a wide stance on a slope), a real person first goes up on
// the ball of the foot and only then crouches. This step turns such a foot about its ball (the
// toe joint, which stays where it is, so a planted ball does not move), heel up, within a limit,
// so that the pelvis has to drop only for what is left. All positions are world metres, Y up;
// angles radians.
#include <array>
#include <vector>

#include "core/math.hpp"
#include "core/parallel.hpp"

namespace ikfix::core {

// One leg on one frame, before the pelvis drop.
struct ReachProblem {
  Vec3 hip;          // hip joint, with the body's terrain shift, before any drop
  Vec3 ankle;        // ankle target
  Vec3 ball;         // the point the foot turns about (toe joint, or the toe tip without one)
  double reach = 0;  // metres the leg may span from hip to ankle
};

// Smallest downward pelvis shift that brings `target` within `reach` of `hip` (metres, >= 0).
// Horizontally out of reach, the drop that puts the hip at the target's height (best effort).
double pelvis_drop_needed(const Vec3& hip, const Vec3& target, double reach);

// A turn of the foot about the ball, heel up.
struct HeelLift {
  double angle = 0;    // radians, >= 0
  Vec3 axis{1, 0, 0};  // world, horizontal, through the ball; +angle raises the heel
};

// Lateral axis about which a positive turn raises the ankle above the ball; zero length when
// the ankle is straight above or below the ball (no heel to lift).
Vec3 heel_lift_axis(const Vec3& ankle, const Vec3& ball);

// The ankle after turning the foot by `lift` about `ball`.
Vec3 lifted_ankle(const Vec3& ankle, const Vec3& ball, const HeelLift& lift);

// How much of a heel lift a foot posed so takes, in [0, 1]: 1 while the ankle-to-ball line is
// within 60 degrees of horizontal, easing (smootherstep, C2) to 0 as the ankle comes straight
// above or below the ball. There the lift's axis (heel_lift_axis) turns half a turn as the ankle
// passes over the ball (a swing foot kicked back): the weight makes the lifted ankle a continuous
// function of the pose, where the unweighted lift would throw it across the ball in one frame.
// Lifting such a foot barely raises its ankle anyway.
double heel_lift_weight(const Vec3& ankle, const Vec3& ball);

// Smallest heel lift angle (radians, in [0, max_angle]) that puts the ankle at world height
// `height` or above when the foot turns about `ball` (axis heel_lift_axis): 0 when the ankle is
// there already, `max_angle` when even that is not enough (or there is no heel to lift). For a
// toe-held foot whose heel, over a step edge, would be below the tread it is over.
double heel_lift_to_height(const Vec3& ankle, const Vec3& ball, double height, double max_angle);

// The pelvis drops a scan of one leg found on its grid of lift angles (`drop[k]` at
// max_angle k / kSteps, metres), for the next scan of the same leg and limit to read instead of
// making them again: the same numbers, bit for bit.
struct HeelLiftGrid {
  static constexpr int kSteps = 64;
  std::array<double, kSteps + 1> drop;  // only [1 .. known] are read
  int known = 0;                        // drop[1 .. known] are made
};

// The half-angle sines and cosines of the grid's angles for one limit (`max_angle`), made on
// first use and kept while the limit stays: the scans of frames with the same limit (most: the
// full one) share them. The same numbers axis_angle makes from those angles.
struct HeelLiftTurns {
  double max_angle = -1;
  int known = 0;  // [1 .. known] are made
  std::array<double, HeelLiftGrid::kSteps + 1> sin_half, cos_half;
};

// Least pelvis drop the leg still needs with any heel lift up to `max_angle`. The scan stops
// once some lift needs a drop at or below `enough` and returns that drop, which may then be
// above the least: for a caller that takes the larger of the answer and `enough` (the other
// leg's drop), the result is the same. With the default 0 the answer is always the least.
// The drops scanned go into `grid` when given.
double drop_with_heel_lift(const ReachProblem& leg, double max_angle, double enough = 0.0,
                           HeelLiftGrid* grid = nullptr, HeelLiftTurns* turns = nullptr);

// Smallest heel lift (<= `max_angle`) after which the leg needs at most `allowed_drop`; the lift
// that needs least drop when none within the limit is enough; zero angle when the leg already
// reaches with `allowed_drop`. `grid`, when given, holds drops drop_with_heel_lift found for
// this leg and `max_angle`. `turns`, in both, when given: the grid's turns kept across calls.
HeelLift heel_lift_for_drop(const ReachProblem& leg, double allowed_drop, double max_angle,
                            const HeelLiftGrid* grid = nullptr, HeelLiftTurns* turns = nullptr);

// Heel lift per frame for both legs ([leg][frame]): on each frame the pelvis drop both legs
// still need once each may lift its heel, then for each leg the smallest lift that suffices for
// that drop (the leg that sets the drop lifts fully, the other only as far as it must).
// The angles are dilated, then smoothed (Gaussian sigma `smoothing_frames`), so a heel rises and
// settles without popping and never lifts less than a frame needs; at most `max_angle`.
// `allowed[leg][frame]` in [0, 1] scales the limit per frame (empty: 1 everywhere): 0 where the
// heel must not rise (it is the planted pivot, and turning about the ball would slide it), eased
// around such frames; the smoothed lift is scaled by it too, so it holds after smoothing.
// The limit is also scaled by each frame's heel_lift_weight, and the lift is smoothed as a
// fraction of that weight and multiplied back by it, so the weight's continuity carries over.
// Per frame in [0, 1]: 0 on every `held` frame (a heel that must stay down), rising smoothly
// (dilated, then Gaussian sigma `smoothing_frames`) to 1 away from them: the `allowed` above.
std::vector<double> heel_lift_allowance(const std::vector<char>& held, double smoothing_frames);

struct HeelLiftPlan {
  std::vector<double> angle[2];
  std::vector<Vec3> axis[2];
};
// The per-frame part runs on `runner`'s threads when given (same result bit for bit).
HeelLiftPlan plan_heel_lifts(const std::vector<ReachProblem> (&legs)[2], double max_angle,
                             double smoothing_frames, const std::vector<double> (&allowed)[2],
                             const ParallelRunner* runner = nullptr);

}  // namespace ikfix::core
