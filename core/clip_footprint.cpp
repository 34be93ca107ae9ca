#include "core/clip_footprint.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "core/fk.hpp"

namespace ikfix::core {
namespace {

// The vertical extent (world metres) of the subset's joints in the skeleton's rest pose; 0 when
// the skeleton has none or no joint is finite there.
double rest_vertical_extent(const Skeleton& skeleton, const JointSubset& subset,
                            const Transform& to_world) {
  if (skeleton.rest.size() != static_cast<std::size_t>(skeleton.joint_count())) return 0.0;
  std::vector<Transform> world(static_cast<std::size_t>(subset.size()));
  forward_kinematics(subset, skeleton.rest, to_world, world);
  double min_y = std::numeric_limits<double>::infinity(), max_y = -min_y;
  for (const Transform& t : world) {
    if (!is_finite(t.translation)) continue;
    min_y = std::min(min_y, t.translation.y), max_y = std::max(max_y, t.translation.y);
  }
  return max_y > min_y ? max_y - min_y : 0.0;
}

}  // namespace

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
  // The legs' reach from the rest pose too (rigs stand in it): a clip that crouches or crawls
  // throughout has a small vertical extent, not short legs.
  const double extent = std::max(max_y - min_y, rest_vertical_extent(skeleton, subset, to_world));
  const double margin = kFootprintMargin + view_margin_m + 0.5 * extent;
  box.min_x -= margin, box.min_z -= margin, box.max_x += margin, box.max_z += margin;
  return box;
}

}  // namespace ikfix::core
