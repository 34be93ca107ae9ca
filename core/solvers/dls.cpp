#include "core/solvers/dls.hpp"

#include <algorithm>
#include <cmath>

#include "core/solvers/chain.hpp"

namespace ikfix::core {

namespace {

// Solves A x = b for a symmetric positive definite 3 x 3 A (upper triangle a00 a01 a02 a11 a12
// a22) by Cholesky. A = sum_i(|r_i|^2 I - r_i r_i^T) + lambda^2 I with lambda > 0 is positive
// definite, so every pivot is > 0; a pivot that rounding leaves at or below 0 gives x = 0 (no
// step) instead of a NaN.
Vec3 solve_spd3(const double a[6], const Vec3& b) {
  const double l00 = a[0] > 0 ? std::sqrt(a[0]) : 0.0;
  if (!(l00 > 0)) return Vec3(0.0);
  const double l10 = a[1] / l00, l20 = a[2] / l00;
  const double p11 = a[3] - l10 * l10;
  if (!(p11 > 0)) return Vec3(0.0);
  const double l11 = std::sqrt(p11);
  const double l21 = (a[4] - l20 * l10) / l11;
  const double p22 = a[5] - l20 * l20 - l21 * l21;
  if (!(p22 > 0)) return Vec3(0.0);
  const double l22 = std::sqrt(p22);
  // L z = b, then L^T x = z.
  const double z0 = b.x / l00;
  const double z1 = (b.y - l10 * z0) / l11;
  const double z2 = (b.z - l20 * z0 - l21 * z1) / l22;
  const double x2 = z2 / l22;
  const double x1 = (z1 - l21 * x2) / l11;
  const double x0 = (z0 - l10 * x1 - l20 * x2) / l00;
  return Vec3(x0, x1, x2);
}

// y = (J J^T + lambda^2 I)^-1 d_e for the chain's ball joints: joint i's three columns of J are
// the world axes crossed with r_i = end - joint i, so J J^T = sum_i (|r_i|^2 I - r_i r_i^T).
// Joint i's rotation vector is then J_i^T y = r_i x y.
Vec3 damped_solve(std::span<const Vec3> chain_ws, const Vec3& error_ws, double lambda) {
  const Vec3 end = chain_ws.back();
  double a[6] = {0, 0, 0, 0, 0, 0};
  for (std::size_t i = 0; i + 1 < chain_ws.size(); ++i) {
    const Vec3 r = end - chain_ws[i];
    const double rr = glm::dot(r, r);
    a[0] += rr - r.x * r.x;
    a[1] -= r.x * r.y;
    a[2] -= r.x * r.z;
    a[3] += rr - r.y * r.y;
    a[4] -= r.y * r.z;
    a[5] += rr - r.z * r.z;
  }
  const double l2 = lambda * lambda;
  a[0] += l2;
  a[3] += l2;
  a[5] += l2;
  return solve_spd3(a, error_ws);
}

// Joint i's turn of a step: rotation vector (r_i x y) * scale as a quaternion.
Quat joint_turn(std::span<const Vec3> chain_ws, const Vec3& end_ws, std::size_t i, const Vec3& y,
                double scale) {
  const Vec3 omega = glm::cross(end_ws - chain_ws[i], y) * scale;
  const double angle = glm::length(omega);
  return angle > 0 ? axis_angle(omega / angle, angle) : identity_quat();
}

// A damped step: y and the factor that keeps every joint's turn within the angle limit. The
// turns of the first kKeptTurns joints, once stepped_end has made them, are kept for apply_step
// (a leg's two turns are not made twice); longer chains' further turns are made again, the same
// way (the same bits).
struct DlsStep {
  static constexpr std::size_t kKeptTurns = 7;
  Vec3 y{0.0};
  double scale = 1;
  Quat turns[kKeptTurns];
};

DlsStep make_step(std::span<const Vec3> chain_ws, const Vec3& target_ws, double lambda,
                  double max_error, double max_angle) {
  DlsStep step;
  Vec3 error = target_ws - chain_ws.back();
  const double error_length = glm::length(error);
  if (error_length > max_error) error *= max_error / error_length;
  step.y = damped_solve(chain_ws, error, lambda);
  double largest = 0;
  for (std::size_t i = 0; i + 1 < chain_ws.size(); ++i)
    largest = std::max(largest, glm::length(glm::cross(chain_ws.back() - chain_ws[i], step.y)));
  if (largest > max_angle) step.scale = max_angle / largest;
  return step;
}

// Where the end goes under the step (the chain unchanged): the joints are turned from the last
// to the root, each about its own place, which the turns after it (its descendants) never move.
Vec3 stepped_end(std::span<const Vec3> chain_ws, DlsStep& step) {
  const Vec3 end = chain_ws.back();
  Vec3 moved = end;
  for (std::size_t i = chain_ws.size() - 1; i-- > 0;) {
    const Quat turn = joint_turn(chain_ws, end, i, step.y, step.scale);
    if (i < DlsStep::kKeptTurns) step.turns[i] = turn;
    moved = chain_ws[i] + turn * (moved - chain_ws[i]);
  }
  return moved;
}

// The step applied to the chain after stepped_end (whose turns it takes), in its order and
// arithmetic (the same end, bit for bit). Rotations only: every bone keeps its length.
void apply_step(std::span<Vec3> chain_ws, const DlsStep& step) {
  const Vec3 end = chain_ws.back();
  const std::size_t n = chain_ws.size();
  for (std::size_t i = n - 1; i-- > 0;) {
    const Quat turn =
        i < DlsStep::kKeptTurns ? step.turns[i] : joint_turn(chain_ws, end, i, step.y, step.scale);
    for (std::size_t k = i + 1; k < n; ++k)
      chain_ws[k] = chain_ws[i] + turn * (chain_ws[k] - chain_ws[i]);
  }
}

double chain_length(std::span<const Vec3> chain_ws) {
  double total = 0;
  for (std::size_t i = 0; i + 1 < chain_ws.size(); ++i)
    total += glm::length(chain_ws[i + 1] - chain_ws[i]);
  return total;
}

// Out of reach: every bone straight toward the target (or, for a target on the root, along the
// chain's own first bone that has a direction, else down).
void stretch_toward(std::span<Vec3> chain_ws, std::span<const Vec3> start_ws,
                    const Vec3& target_ws) {
  Vec3 fallback(0, -1, 0);
  for (std::size_t i = start_ws.size() - 1; i-- > 0;)
    fallback = safe_normalize(start_ws[i + 1] - start_ws[i], fallback);
  const Vec3 axis = safe_normalize(target_ws - start_ws[0], fallback);
  for (std::size_t i = 1; i < chain_ws.size(); ++i)
    chain_ws[i] = chain_ws[i - 1] + axis * glm::length(start_ws[i] - start_ws[i - 1]);
}

// A chain lying straight along its root->end line cannot bend toward a target on that line (the
// end's velocity along the line is zero for every joint: J has no such direction). Bend it
// slightly at the first middle joint, toward the pole's side (any side without one): the root
// turns the chain by +0.1 rad, the middle joint turns the rest back by -0.2 rad.
void unbend_straight(std::span<Vec3> chain_ws, const Vec3* pole_dir_ws, double length) {
  if (chain_ws.size() < 3) return;
  const Vec3 root = chain_ws[0];
  const Vec3 line = safe_normalize(chain_ws.back() - root, Vec3(0));
  if (line == Vec3(0)) return;
  for (std::size_t i = 1; i + 1 < chain_ws.size(); ++i) {
    const Vec3 rel = chain_ws[i] - root;
    if (glm::length(rel - line * glm::dot(rel, line)) > 1e-9 * length) return;
  }
  const Vec3 side =
      safe_normalize(pole_dir_ws ? *pole_dir_ws - line * glm::dot(*pole_dir_ws, line) : Vec3(0),
                     any_perpendicular(line));
  const Vec3 hinge = glm::normalize(glm::cross(line, side));
  const Quat out = axis_angle(hinge, 0.1), back = axis_angle(hinge, -0.2);
  for (std::size_t k = 1; k < chain_ws.size(); ++k) chain_ws[k] = root + out * (chain_ws[k] - root);
  for (std::size_t k = 2; k < chain_ws.size(); ++k)
    chain_ws[k] = chain_ws[1] + back * (chain_ws[k] - chain_ws[1]);
}

}  // namespace

bool DlsJob::validate() const {
  if (start_ws.size() < 2 || out_ws.size() != start_ws.size()) return false;
  if (!(tolerance > 0) || max_iterations < 1 || !is_finite(target_ws)) return false;
  if (!(min_damping > 0) || !(initial_damping >= min_damping) || !(max_damping >= initial_damping))
    return false;
  if (!std::isfinite(max_damping) || !(max_step > 0) || !std::isfinite(max_step)) return false;
  if (!(max_step_angle > 0) || !std::isfinite(max_step_angle)) return false;
  for (const Vec3& p : start_ws)
    if (!is_finite(p)) return false;
  return !pole_dir_ws || is_finite(*pole_dir_ws);
}

bool DlsJob::run() const {
  if (!validate()) return false;
  for (std::size_t i = 0; i < start_ws.size(); ++i) out_ws[i] = start_ws[i];
  const double length = chain_length(start_ws);
  int steps = 0;
  if (glm::length(target_ws - start_ws[0]) >= length) {
    stretch_toward(out_ws, start_ws, target_ws);
  } else {
    unbend_straight(out_ws, pole_dir_ws, length);
    if (pole_dir_ws) apply_bend_plane(out_ws, *pole_dir_ws);
    double lambda = initial_damping * length;
    double error = glm::length(target_ws - out_ws.back());
    for (; steps < max_iterations && error > tolerance; ++steps) {
      DlsStep step = make_step(out_ws, target_ws, lambda, max_step * length, max_step_angle);
      if (glm::length(target_ws - stepped_end(out_ws, step)) < error) {
        apply_step(out_ws, step);
        if (pole_dir_ws) apply_bend_plane(out_ws, *pole_dir_ws);
        error = glm::length(target_ws - out_ws.back());
        lambda = std::max(lambda * 0.25, min_damping * length);
      } else if (lambda >= max_damping * length) {
        ++steps;  // the most damped step does not help either: a least-squares pose
        break;
      } else {
        lambda = std::min(lambda * 4.0, max_damping * length);
      }
    }
  }
  const double r = glm::length(out_ws.back() - target_ws);
  if (iterations) *iterations = steps;
  if (residual) *residual = r;
  if (reached) *reached = r <= tolerance;
  return true;
}

}  // namespace ikfix::core
