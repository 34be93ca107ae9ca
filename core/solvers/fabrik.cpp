#include "core/solvers/fabrik.hpp"

#include <algorithm>
#include <cmath>

#include "core/solvers/chain.hpp"

namespace ikfix::core {
namespace {

// True when place_two_bone(chain, target, a, b, pole) uses nothing of the chain but its root:
// the target is at a distance it can place exactly (not on the root) and the pole is not
// parallel to the root->target axis (the same tests place_two_bone makes). `line` is the
// root->target line with that pole (two_bone_line).
bool closing_step_ignores_pose(const TwoBoneLine& line, double a, double b) {
  const double d = line.d;
  if (!(d > 1e-12) || d > a + b || d < std::abs(a - b)) return false;
  return line.side_length > 1e-8;
}

// FABRIK converges linearly near full extension (the case that needs the closing step): the
// last pass's error ratio, kept for the passes left, predicts the final error. A margin of 4
// leaves the passes to chains that may still get there; measured on cmu_01_01 and cmu_02_01,
// fewer than 0.5% of the solves that would have converged stop early (their answer is then the
// exact placement instead of one within `tolerance` of it). The first ratio is taken over the
// first pass (from the aligned start): on cmu_01_01 over the benchmark's bumps, 4041 of 5504
// leg solves then stop after one pass instead of two, and the 1070 that converge do so in the
// same number of passes as when the test waited for two.
bool will_not_converge(double previous_error, double error, int passes_left, double tolerance) {
  const double ratio = error / previous_error;
  if (!(ratio < 1.0)) return true;
  double predicted = error;  // error * ratio^passes_left, without a libm pow per solve
  for (int i = 0; i < passes_left; ++i) predicted *= ratio;
  return predicted > 4.0 * tolerance;
}

}  // namespace

bool FabrikJob::validate() const {
  if (start_ws.size() < 2 || lengths.size() + 1 != start_ws.size() ||
      out_ws.size() != start_ws.size())
    return false;
  if (!(tolerance > 0) || max_iterations < 1 || !is_finite(target_ws)) return false;
  for (double l : lengths)
    if (!(l >= 0) || !std::isfinite(l)) return false;
  for (const Vec3& p : start_ws)
    if (!is_finite(p)) return false;
  if (pole_dir_ws && !is_finite(*pole_dir_ws)) return false;
  return true;
}

namespace {

// One job's solve, in steps: begin() up to the alignment, align(), settle() up to the passes,
// pass() one pass (false once they stop), finish() the closing step and the outputs. run()
// takes the steps in a row; run_fabrik_pair takes each step of two solves in turn. The same
// code either way, so the same bits.
class FabrikSolve {
 public:
  explicit FabrikSolve(const FabrikJob& job) : job_(job), n_(job.start_ws.size()) {}

  // False when the job does not validate (nothing written).
  bool begin();
  // After begin() returned true: the chain turned about the root toward the target.
  void align();
  // After begin() returned true. Leaves the bend plane to the caller (bend_plane_pole).
  void settle();
  // After settle(): the pole whose bend plane the chain is to be turned into before the passes
  // (apply_bend_plane on the job's out_ws), or null.
  const Vec3* bend_plane_pole() const { return planar_ ? job_.pole_dir_ws : nullptr; }
  // One forward+backward pass; false (and no pass made) once the passes stop.
  bool pass();
  void finish();

 private:
  // Direction from a to b, or the previous bone's direction when a and b coincide (a folded
  // chain or a target on a joint must not lose a bone), or the chain's overall direction.
  Vec3 dir(const Vec3& from, const Vec3& to, std::size_t bone) const {
    const Vec3 d = to - from;
    const double len = glm::length(d);
    if (len > 1e-12 && std::isfinite(len)) return d / len;  // the common case: no fallback work
    const Vec3 fallback =
        bone < n_ - 1 ? job_.start_ws[bone + 1] - job_.start_ws[bone] : Vec3(0, -1, 0);
    return safe_normalize(fallback, safe_normalize(job_.target_ws - root_, Vec3(0, -1, 0)));
  }

  const FabrikJob& job_;
  const std::size_t n_;
  Vec3 root_{0.0};
  // The root->target vector and its length, made once: the steps that need them (the
  // alignment, the line test, the closing-step test) would each make exactly the same again.
  Vec3 to_target_{0.0};
  double distance_ = 0, total_ = 0;
  bool passes_run_ = false;  // within reach: begin() set the passes up
  int passes_ = 0;
  double r_ = -1;  // the end's final distance from the target, once known
  bool closing_has_pole_ = false, closing_decides_ = false, planar_ = false;
  TwoBoneLine closing_line_;
  double previous_error_ = 0;
  // The end's distance from the target when the passes stop early (the end has not moved
  // since); negative when they ran out (the last pass moved it).
  double end_error_ = -1;
};

bool FabrikSolve::begin() {
  if (!job_.validate()) return false;
  const std::size_t n = n_;
  const std::span<Vec3> out_ws = job_.out_ws;
  const Vec3& target_ws = job_.target_ws;
  for (std::size_t i = 0; i < n; ++i) out_ws[i] = job_.start_ws[i];
  const Vec3 root = root_ = job_.start_ws[0];
  double total = 0;
  for (double l : job_.lengths) total += l;
  total_ = total;
  to_target_ = target_ws - root;
  const double distance = distance_ = glm::length(to_target_);
  if (distance >= total) {
    // Out of reach: stretch straight toward the target.
    const Vec3 axis = dir(root, target_ws, 0);
    for (std::size_t i = 1; i < n; ++i) out_ws[i] = out_ws[i - 1] + axis * job_.lengths[i - 1];
    return true;
  }
  passes_run_ = true;
  return true;
}

void FabrikSolve::align() {
  if (!passes_run_) return;
  const std::size_t n = n_;
  const std::span<Vec3> out_ws = job_.out_ws;
  const Vec3& root = root_;
  const Vec3& to_target = to_target_;
  const double distance = distance_;
  if (job_.align_start && n == 3) {
    const Vec3 from = out_ws[n - 1] - root;
    const double from_length = glm::length(from);
    if (from_length > 1e-12 && distance > 1e-12) {
      // glm::normalize(v) is v * (1 / length(v)): the same bits from the lengths in hand.
      const Quat turn = rotation_between(from * (1.0 / from_length), to_target * (1.0 / distance));
      for (std::size_t i = 1; i < n; ++i) out_ws[i] = root + turn * (out_ws[i] - root);
    }
  }
}

void FabrikSolve::settle() {
  if (!passes_run_) return;
  const std::size_t n = n_;
  const std::span<Vec3> out_ws = job_.out_ws;
  const Vec3* pole_dir_ws = job_.pole_dir_ws;
  const Vec3& root = root_;
  const double distance = distance_, total = total_;
  // A chain lying straight along the root->target line cannot bend by itself (every pass
  // keeps it on the line): break the symmetry by turning it slightly toward the pole.
  const Vec3 line = unit_or(to_target_, distance, Vec3(0));
  {
    double off_line = 0;
    for (std::size_t i = 1; i + 1 < n; ++i) {
      const Vec3 rel = out_ws[i] - root;
      off_line = std::max(off_line, glm::length(rel - line * glm::dot(rel, line)));
    }
    if (n > 2 && line != Vec3(0) && off_line < 1e-9 * std::max(total, 1e-12)) {
      Vec3 side = pole_dir_ws ? *pole_dir_ws - line * glm::dot(*pole_dir_ws, line) : Vec3(0);
      side = safe_normalize(side, any_perpendicular(line));
      const Quat nudge = axis_angle(glm::normalize(glm::cross(line, side)), 0.1);
      for (std::size_t i = 1; i < n; ++i) out_ws[i] = root + nudge * (out_ws[i] - root);
    }
  }
  // With a pole, the closing step places the knee from the root, the target and the pole
  // alone (when that placement is well defined), so passes that will not reach `tolerance`
  // anyway change nothing: stop as soon as the convergence rate says so.
  // The closing step's root->target line and pole across it, made once for the test and the
  // step itself (two square roots and a division fewer a solve that closes).
  closing_has_pole_ = job_.exact_final_step && n == 3 && pole_dir_ws;
  if (closing_has_pole_) closing_line_ = two_bone_line(distance, line, *pole_dir_ws);
  closing_decides_ = closing_has_pole_ &&
                     closing_step_ignores_pose(closing_line_, job_.lengths[0], job_.lengths[1]);
  // Three joints: turned into the pole's plane once, the chain stays in it through every pass
  // (each pass moves a joint along a line between points of the plane root, knee, target;
  // the end already points at the target), so the plane is applied once here, not per pass.
  planar_ = n == 3 && pole_dir_ws && job_.align_start;
}

bool FabrikSolve::pass() {
  if (!passes_run_ || end_error_ >= 0 || passes_ >= job_.max_iterations) return false;
  const std::size_t n = n_;
  const std::span<Vec3> out_ws = job_.out_ws;
  const Vec3& target_ws = job_.target_ws;
  const std::span<const double> lengths = job_.lengths;
  const double tolerance = job_.tolerance;
  const double error = glm::length(out_ws[n - 1] - target_ws);
  if (error <= tolerance ||
      (closing_decides_ && passes_ >= 1 &&
       will_not_converge(previous_error_, error, job_.max_iterations - passes_, tolerance))) {
    end_error_ = error;
    return false;
  }
  previous_error_ = error;
  // Backward: end to target, walk to the root (the root itself is put back by the forward
  // pass, so its backward position is not computed).
  out_ws[n - 1] = target_ws;
  for (std::size_t i = n - 1; i-- > 1;)
    out_ws[i] = out_ws[i + 1] + dir(out_ws[i + 1], out_ws[i], i) * lengths[i];
  // Forward: root back in place, walk to the end.
  out_ws[0] = root_;
  for (std::size_t i = 1; i < n; ++i)
    out_ws[i] = out_ws[i - 1] + dir(out_ws[i - 1], out_ws[i], i - 1) * lengths[i - 1];
  if (job_.pole_dir_ws && !planar_) apply_bend_plane(out_ws, *job_.pole_dir_ws);
  ++passes_;
  return true;
}

void FabrikSolve::finish() {
  const std::size_t n = n_;
  const std::span<Vec3> out_ws = job_.out_ws;
  const Vec3& target_ws = job_.target_ws;
  if (passes_run_) {
    if (end_error_ < 0) end_error_ = glm::length(out_ws[n - 1] - target_ws);
    if (job_.exact_final_step && n == 3 && end_error_ > job_.tolerance) {
      // Keep the bend the iterations found (or the pole's when given).
      // The root is back in place (out_ws[0] == root): the line made in begin() is this one.
      if (closing_has_pole_)
        place_two_bone(out_ws, target_ws, job_.lengths[0], job_.lengths[1], *job_.pole_dir_ws,
                       closing_line_);
      else
        place_two_bone(out_ws, target_ws, job_.lengths[0], job_.lengths[1], out_ws[1] - root_);
    } else if (planar_ && passes_ > 0) {
      // A knee that crossed the hip-ankle line in the passes goes back to the pole's side (the
      // end stays where it is).
      apply_bend_plane(out_ws, *job_.pole_dir_ws);
      r_ = end_error_;  // a three-joint bend plane moves only the knee
    } else {
      r_ = end_error_;
    }
  }
  if (r_ < 0) r_ = glm::length(out_ws[n - 1] - target_ws);
  if (job_.iterations) *job_.iterations = passes_;
  if (job_.residual) *job_.residual = r_;
  if (job_.reached) *job_.reached = r_ <= job_.tolerance;
}

}  // namespace

bool FabrikJob::run() const {
  FabrikSolve solve(*this);
  if (!solve.begin()) return false;
  solve.align();
  solve.settle();
  if (const Vec3* pole = solve.bend_plane_pole()) apply_bend_plane(out_ws, *pole);
  while (solve.pass()) {
  }
  solve.finish();
  return true;
}

void run_fabrik_pair(const FabrikJob& a, const FabrikJob& b, bool ok[2]) {
  FabrikSolve first(a), second(b);
  ok[0] = first.begin();
  ok[1] = second.begin();
  if (ok[0]) first.align();
  if (ok[1]) second.align();
  if (ok[0]) first.settle();
  if (ok[1]) second.settle();
  const Vec3* first_pole = ok[0] ? first.bend_plane_pole() : nullptr;
  const Vec3* second_pole = ok[1] ? second.bend_plane_pole() : nullptr;
  if (first_pole && second_pole) {
    apply_bend_plane_pair(a.out_ws, *first_pole, b.out_ws, *second_pole);
  } else {
    if (first_pole) apply_bend_plane(a.out_ws, *first_pole);
    if (second_pole) apply_bend_plane(b.out_ws, *second_pole);
  }
  // A pass of one, then of the other (as each step above): their square roots and divisions
  // (each step a chain of them) overlap in the CPU instead of waiting on each other's.
  bool first_on = ok[0], second_on = ok[1];
  while (first_on || second_on) {
    if (first_on) first_on = first.pass();
    if (second_on) second_on = second.pass();
  }
  if (ok[0]) first.finish();
  if (ok[1]) second.finish();
}

}  // namespace ikfix::core
