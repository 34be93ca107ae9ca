#include "core/solvers/ccd.hpp"

#include "core/solvers/chain.hpp"

namespace ikfix::core {

bool CcdJob::validate() const {
  if (start_ws.size() < 2 || out_ws.size() != start_ws.size()) return false;
  if (!(tolerance > 0) || max_iterations < 1 || !is_finite(target_ws)) return false;
  for (const Vec3& p : start_ws)
    if (!is_finite(p)) return false;
  return !pole_dir_ws || is_finite(*pole_dir_ws);
}

bool CcdJob::run() const {
  if (!validate()) return false;
  const std::size_t n = start_ws.size();
  for (std::size_t i = 0; i < n; ++i) out_ws[i] = start_ws[i];
  int sweeps = 0;
  for (; sweeps < max_iterations; ++sweeps) {
    if (glm::length(out_ws[n - 1] - target_ws) <= tolerance) break;
    for (std::size_t i = n - 1; i-- > 0;) {
      const Vec3 pivot = out_ws[i];
      const Vec3 to_end = out_ws[n - 1] - pivot;
      const Vec3 to_target = target_ws - pivot;
      if (!(glm::length(to_end) > 1e-12) || !(glm::length(to_target) > 1e-12)) continue;
      const Quat r = rotation_between(glm::normalize(to_end), glm::normalize(to_target));
      for (std::size_t k = i + 1; k < n; ++k) out_ws[k] = pivot + r * (out_ws[k] - pivot);
    }
    if (pole_dir_ws) apply_bend_plane(out_ws, *pole_dir_ws);
  }
  const double r = glm::length(out_ws[n - 1] - target_ws);
  if (iterations) *iterations = sweeps;
  if (residual) *residual = r;
  if (reached) *reached = r <= tolerance;
  return true;
}

}  // namespace ikfix::core
