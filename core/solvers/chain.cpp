#include "core/solvers/chain.hpp"

#include <cmath>

namespace ikfix::core {

namespace {

// apply_bend_plane on N three-joint chains, each step for every chain before the next, so two
// chains' square roots and divisions overlap in the CPU (N = 2); one chain (N = 1) runs the same
// code. One middle joint: turning it about the axis is placing it at the same distance along
// and from the axis, on the pole side (no trigonometry, the hot path of every leg solve).
template <int N>
void bend_plane_of_three(Vec3* const chain[N], const Vec3* const pole_dir[N]) {
  Vec3 root[N], axis[N], pole_perp[N], side[N];
  double pole_perp_length[N] = {}, along[N] = {}, radius[N] = {};
  bool on[N];
  for (int c = 0; c < N; ++c) {
    pole_perp[c] = side[c] = Vec3(0);  // set below for the chains still on
    root[c] = chain[c][0];
    axis[c] = safe_normalize(chain[c][2] - root[c], Vec3(0));
    on[c] = axis[c] != Vec3(0);
  }
  for (int c = 0; c < N; ++c) {
    if (!on[c]) continue;
    pole_perp[c] = *pole_dir[c] - axis[c] * glm::dot(*pole_dir[c], axis[c]);
    pole_perp_length[c] = glm::length(pole_perp[c]);
    on[c] = pole_perp_length[c] > 1e-9;
  }
  for (int c = 0; c < N; ++c) {
    if (!on[c]) continue;
    const Vec3 rel = chain[c][1] - root[c];
    along[c] = glm::dot(rel, axis[c]);
    radius[c] = glm::length(rel - axis[c] * along[c]);
    on[c] = radius[c] > 1e-12;
  }
  for (int c = 0; c < N; ++c) {
    if (!on[c]) continue;
    // Re-orthogonalise: with a pole almost along the axis, pole_perp carries cancellation error.
    const Vec3 unit_side = pole_perp[c] / pole_perp_length[c];
    side[c] = safe_normalize(unit_side - axis[c] * glm::dot(unit_side, axis[c]), Vec3(0));
    on[c] = side[c] != Vec3(0);
  }
  for (int c = 0; c < N; ++c)
    if (on[c]) chain[c][1] = root[c] + axis[c] * along[c] + side[c] * radius[c];
}

}  // namespace

void apply_bend_plane_pair(std::span<Vec3> first, const Vec3& first_pole, std::span<Vec3> second,
                           const Vec3& second_pole) {
  if (first.size() != 3 || second.size() != 3) {
    apply_bend_plane(first, first_pole);
    apply_bend_plane(second, second_pole);
    return;
  }
  Vec3* const chains[2] = {first.data(), second.data()};
  const Vec3* const poles[2] = {&first_pole, &second_pole};
  bend_plane_of_three<2>(chains, poles);
}

void apply_bend_plane(std::span<Vec3> chain, const Vec3& pole_dir) {
  if (chain.size() < 3) return;
  if (chain.size() == 3) {
    Vec3* const chains[1] = {chain.data()};
    const Vec3* const poles[1] = {&pole_dir};
    bend_plane_of_three<1>(chains, poles);
    return;
  }
  const Vec3 root = chain.front();
  const Vec3 axis = safe_normalize(chain.back() - root, Vec3(0));
  if (axis == Vec3(0)) return;
  const Vec3 pole_perp = pole_dir - axis * glm::dot(pole_dir, axis);
  const double pole_perp_length = glm::length(pole_perp);
  if (!(pole_perp_length > 1e-9)) return;
  // Turn the whole chain rigidly about the root->end axis (the end is on the axis, so it stays)
  // until the joint farthest from the axis points to the pole. A rigid turn keeps every bone
  // length, also for chains longer than hip-knee-ankle.
  std::size_t far = 1;
  double far_radius = -1;
  for (std::size_t i = 1; i + 1 < chain.size(); ++i) {
    const Vec3 rel = chain[i] - root;
    const double radius = glm::length(rel - axis * glm::dot(rel, axis));
    if (radius > far_radius) {
      far_radius = radius;
      far = i;
    }
  }
  const Vec3 rel = chain[far] - root;
  const Vec3 offset = rel - axis * glm::dot(rel, axis);
  if (!(glm::length(offset) > 1e-12)) return;  // straight chain: nothing to turn
  const double angle =
      std::atan2(glm::dot(glm::cross(offset, pole_perp), axis), glm::dot(offset, pole_perp));
  const Quat turn = axis_angle(axis, angle);
  for (std::size_t i = 1; i + 1 < chain.size(); ++i) chain[i] = root + turn * (chain[i] - root);
}

TwoBoneLine two_bone_line(double d, const Vec3& axis, const Vec3& pole_dir) {
  TwoBoneLine line;
  line.d = d;
  line.axis = axis;
  line.side = pole_dir - line.axis * glm::dot(pole_dir, line.axis);
  line.side_length = glm::length(line.side);
  return line;
}

bool place_two_bone(std::span<Vec3> chain, const Vec3& end_ws, double a, double b,
                    const Vec3& pole_dir) {
  const Vec3 to_end = end_ws - chain[0];
  const double d = glm::length(to_end);
  if (d > a + b || d < std::abs(a - b)) return false;
  return place_two_bone(chain, end_ws, a, b, pole_dir,
                        two_bone_line(d, unit_or(to_end, d, Vec3(0)), pole_dir));
}

bool place_two_bone(std::span<Vec3> chain, const Vec3& end_ws, double a, double b,
                    const Vec3& pole_dir, const TwoBoneLine& line) {
  const Vec3 root = chain[0];
  const double d = line.d;
  if (d > a + b || d < std::abs(a - b)) return false;
  Vec3 axis = line.axis;
  Vec3 side = line.side;
  double side_length = line.side_length;
  if (axis == Vec3(0)) {
    // End on the root (equal bones, fully folded): the knee goes toward the pole (its part
    // across this axis, not the line's).
    axis = safe_normalize(chain[2] - chain[1], safe_normalize(chain[1] - root, Vec3(0, -1, 0)));
    side = pole_dir - axis * glm::dot(pole_dir, axis);
    side_length = glm::length(side);
  }
  // Fall back to the current bend when the pole is parallel to the axis.
  if (!(side_length > 1e-9)) {
    side = (chain[1] - root) - axis * glm::dot(chain[1] - root, axis);
    side_length = glm::length(side);
  }
  side = unit_or(side, side_length, Vec3(0));  // any_perpendicular only when needed (hot path)
  if (side == Vec3(0)) side = any_perpendicular(axis);
  if (d == 0.0) {
    chain[1] = root + side * a;
    chain[2] = end_ws;
    return true;
  }
  // Heron: h = sqrt((a+b-d)(d+b-a)(a+d-b)(a+b+d)) / (2d), cancellation-free on a straight leg;
  // x = (d^2 + (a-b)(a+b)) / (2d). (x, h) is rescaled to length a so the thigh stays exact even
  // where rounding makes x and h disagree (target almost on the hip).
  const double product = (a + b - d) * (d + b - a) * (a + d - b) * (a + b + d);
  const double h = std::sqrt(std::max(0.0, product)) / (2.0 * d);
  const double x = (d * d + (a - b) * (a + b)) / (2.0 * d);
  const double norm = std::sqrt(x * x + h * h);
  const double k = norm > 0 ? a / norm : 0.0;
  chain[1] = root + (axis * x + side * h) * k;
  chain[2] = end_ws;
  return true;
}

}  // namespace ikfix::core
