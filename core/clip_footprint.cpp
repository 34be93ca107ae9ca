#include "core/clip_footprint.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "core/fix/fix_parallel.hpp"
#include "core/fk.hpp"

namespace ikfix::core {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The world bounds of finite joint positions (empty: min > max).
struct JointBounds {
  XzBox box{kInf, kInf, -kInf, -kInf};
  double min_y = kInf, max_y = -kInf;

  void add(const Vec3& p) {
    box.min_x = std::min(box.min_x, p.x), box.max_x = std::max(box.max_x, p.x);
    box.min_z = std::min(box.min_z, p.z), box.max_z = std::max(box.max_z, p.z);
    min_y = std::min(min_y, p.y), max_y = std::max(max_y, p.y);
  }
  // Minima and maxima are exact: the bounds are the same bits however the frames were split.
  void add(const JointBounds& other) {
    box.min_x = std::min(box.min_x, other.box.min_x);
    box.max_x = std::max(box.max_x, other.box.max_x);
    box.min_z = std::min(box.min_z, other.box.min_z);
    box.max_z = std::max(box.max_z, other.box.max_z);
    min_y = std::min(min_y, other.min_y), max_y = std::max(max_y, other.max_y);
  }
};

// The vertical extent (world metres) of the subset's joints in the skeleton's rest pose; 0 when
// the skeleton has none or no joint is finite there.
double rest_vertical_extent(const Skeleton& skeleton, const JointSubset& subset,
                            const Transform& to_world) {
  if (skeleton.rest.size() != static_cast<std::size_t>(skeleton.joint_count())) return 0.0;
  std::vector<Transform> world(static_cast<std::size_t>(subset.size()));
  forward_kinematics(subset, skeleton.rest, to_world, world);
  JointBounds bounds;
  for (const Transform& t : world)
    if (is_finite(t.translation)) bounds.add(t.translation);
  return bounds.max_y > bounds.min_y ? bounds.max_y - bounds.min_y : 0.0;
}

JointBounds frame_bounds(const JointSubset& subset, const Clip& clip, const Transform& to_world,
                         int begin, int end) {
  JointBounds bounds;
  std::vector<Transform> world(static_cast<std::size_t>(subset.size()));
  for (int f = begin; f < end; ++f) {
    forward_kinematics(subset, clip.frame(f), to_world, world);
    for (const Transform& t : world)
      if (is_finite(t.translation)) bounds.add(t.translation);
  }
  return bounds;
}

}  // namespace

XzBox clip_footprint(const Skeleton& skeleton, const Clip& clip, const ClipSpace& space,
                     std::span<const int> joints, double view_margin_m,
                     const ParallelRunner* runner) {
  std::vector<int> wanted(joints.begin(), joints.end());
  if (wanted.empty()) {
    wanted.resize(static_cast<std::size_t>(skeleton.joint_count()));
    std::iota(wanted.begin(), wanted.end(), 0);
  }
  const JointSubset subset(skeleton, wanted);
  const Transform to_world = space.to_world();
  const JointBounds bounds = parallel_reduce_ordered(
      runner, clip.frame_count, kMinLightFramesPerRange, JointBounds{},
      [&](int begin, int end, JointBounds& partial) {
        partial = frame_bounds(subset, clip, to_world, begin, end);
      },
      [](JointBounds& total, const JointBounds& partial) { total.add(partial); });
  XzBox box = bounds.box;
  const double min_y = bounds.min_y, max_y = bounds.max_y;
  if (box.min_x > box.max_x) return box;
  // The legs' reach from the rest pose too (rigs stand in it): a clip that crouches or crawls
  // throughout has a small vertical extent, not short legs.
  const double extent = std::max(max_y - min_y, rest_vertical_extent(skeleton, subset, to_world));
  const double margin = kFootprintMargin + view_margin_m + 0.5 * extent;
  box.min_x -= margin, box.min_z -= margin, box.max_x += margin, box.max_z += margin;
  return box;
}

}  // namespace ikfix::core
