#include "core/clip_footprint.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "core/fk.hpp"

namespace ikfix::core {

XzBox clip_footprint(const Skeleton& skeleton, const Clip& clip, const ClipSpace& space,
                     std::span<const int> joints, double view_margin_m) {
  std::vector<int> wanted(joints.begin(), joints.end());
  if (wanted.empty()) {
    wanted.resize(static_cast<std::size_t>(skeleton.joint_count()));
    std::iota(wanted.begin(), wanted.end(), 0);
  }
  const JointSubset subset(skeleton, wanted);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  XzBox box{kInf, kInf, -kInf, -kInf};
  double min_y = kInf, max_y = -kInf;
  std::vector<Transform> world(static_cast<std::size_t>(subset.size()));
  const Transform to_world = space.to_world();
  for (int f = 0; f < clip.frame_count; ++f) {
    forward_kinematics(subset, clip.frame(f), to_world, world);
    for (const Transform& t : world) {
      const Vec3& p = t.translation;
      if (!is_finite(p)) continue;
      box.min_x = std::min(box.min_x, p.x), box.max_x = std::max(box.max_x, p.x);
      box.min_z = std::min(box.min_z, p.z), box.max_z = std::max(box.max_z, p.z);
      min_y = std::min(min_y, p.y), max_y = std::max(max_y, p.y);
    }
  }
  if (box.min_x > box.max_x) return box;
  const double margin = kFootprintMargin + view_margin_m + 0.5 * (max_y - min_y);
  box.min_x -= margin, box.min_z -= margin, box.max_x += margin, box.max_z += margin;
  return box;
}

}  // namespace ikfix::core
