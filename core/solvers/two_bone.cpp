#include "core/solvers/two_bone.hpp"

#include <algorithm>
#include <cmath>

#include "core/solvers/chain.hpp"

namespace ikfix::core {

bool TwoBoneJob::validate() const {
  return out_mid_ws && out_end_ws && is_finite(root_ws) && is_finite(mid_ws) && is_finite(end_ws) &&
         is_finite(target_ws) && tolerance > 0 && (!pole_dir_ws || is_finite(*pole_dir_ws));
}

bool TwoBoneJob::run() const {
  if (!validate()) return false;
  const double a = glm::length(mid_ws - root_ws);
  const double b = glm::length(end_ws - mid_ws);
  Vec3 chain[3] = {root_ws, mid_ws, end_ws};
  const Vec3 bend = pole_dir_ws ? *pole_dir_ws : mid_ws - root_ws;
  // Clamp the distance into the reachable shell, then place exactly.
  const Vec3 to_target = target_ws - root_ws;
  const double d = glm::length(to_target);
  const Vec3 target_axis = unit_or(to_target, d, Vec3(0));
  Vec3 axis = target_axis;  // fallback computed only when needed
  if (axis == Vec3(0)) axis = safe_normalize(end_ws - root_ws, Vec3(0, -1, 0));
  const double reach = std::clamp(d, std::abs(a - b), a + b);
  // A target in reach is the placement's end: its line from the root is the one in hand (a
  // square root and a division fewer than place_two_bone making it again).
  const bool placed =
      reach == d ? place_two_bone(chain, target_ws, a, b, bend, two_bone_line(d, target_axis, bend))
                 : place_two_bone(chain, root_ws + axis * reach, a, b, bend);
  if (!placed) {
    // Zero-length bones: nothing can move meaningfully.
    chain[1] = root_ws + axis * a;
    chain[2] = chain[1] + axis * b;
  }
  *out_mid_ws = chain[1];
  *out_end_ws = chain[2];
  const double r = glm::length(chain[2] - target_ws);
  if (residual) *residual = r;
  if (reached) *reached = r <= tolerance;
  return true;
}

}  // namespace ikfix::core
