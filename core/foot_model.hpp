#pragma once
// The foot as a viewer sees it: every point of a leg's foot that must stay out of the terrain,
// not only the ankle and ball joints the solver drives. A foot is its ankle, heel (on the sole
// under the ankle), ball (toe joint), toe tip (the toe bone's end) and, for a character with a
// skinned mesh, its sole (the vertices skinned to the foot and toe bones below the ankle: the
// lowest, and the outline of the rest).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/legs.hpp"
#include "core/math.hpp"
#include "core/skeleton.hpp"
#include "core/skin.hpp"

namespace ikfix::core {

enum class FootPointKind : std::uint8_t { Ankle, Heel, Ball, ToeTip, Sole };

// "ankle", "heel", "ball", "toe_tip", "sole": the names reports and check use.
const char* foot_point_name(FootPointKind kind);

// A point carried rigidly by one joint: its world position on a frame is
// transform_point(world[joint], offset_ls). `offset_ls` is in the joint's local frame, clip units.
struct RigidFootPoint {
  FootPointKind kind = FootPointKind::Ankle;
  int joint = -1;
  Vec3 offset_ls{0.0};
};

// Where the toe tip comes from.
enum class ToeTipSource : std::uint8_t {
  EndSite,    // the toe's end site (BVH End Site; FBX/glTF "*_end" leaf folded into it), or
              // the toe's one child when that child is a leaf joint (an "*_end" bone a clip
              // keeps as a joint): the toe bone's end either way
  Estimated,  // no end site: the ball plus the foot's forward direction times
              // kEstimatedToeFraction of the foot's horizontal length (ankle to ball)
  None,       // neither a toe joint nor an end site: the foot is its ankle and heel
};
const char* toe_tip_source_name(ToeTipSource source);  // "end site", "estimated", "none"

// Toe length (ball to tip) as a fraction of the ankle-to-ball horizontal length, for feet whose
// toe has no end site: an adult's toes are about 0.4 of the heel-to-ball span's ankle part.
inline constexpr double kEstimatedToeFraction = 0.4;

// One leg's foot. Rigid points come first in the order ankle, heel, ball (when the leg has a toe
// joint or the ankle an end site), toe tip (unless None); the sole's vertices after them.
struct FootModel {
  int hip = -1;
  int knee = -1;
  int ankle = -1;
  int toe = -1;  // -1: no toe joint
  std::vector<RigidFootPoint> points;
  ToeTipSource tip_source = ToeTipSource::None;
  double toe_length_m = 0;   // ball to tip at rest, metres (0 without a tip)
  double sole_height_m = 0;  // at rest: the sole's height below the ankle, metres (>= 0)
  // Indices into Skin::vertices (ascending) of the foot's skinned vertices measured, named
  // "sole": the foot's vertices are those whose influences on the ankle and its descendants
  // weigh at least half (when none do, the shin's vertices at or below the ankle at rest); of
  // them, the lowest band at rest spread over the sole, and the outline of those below the
  // ankle at rest (its front, sides and back, which a riser or a slope reaches before the
  // sole; see build_foot_model). Empty without a skin.
  std::vector<int> sole_vertices;
  // Whether the sole came from the shin (the ankle has no skinned vertices): its vertices turn
  // with the shin bone, not with the ankle's rotation, so where they go depends on the leg's
  // solve (shin_sole_clearance.hpp).
  bool sole_on_shin = false;

  int point_count() const { return static_cast<int>(points.size() + sole_vertices.size()); }
  FootPointKind kind(int i) const {
    return i < static_cast<int>(points.size()) ? points[i].kind : FootPointKind::Sole;
  }
};

// Builds the foot of `leg` from the skeleton's rest pose placed in the world by `to_world` (the
// clip's ClipSpace::to_world()). `skin` may be null. Heel: the ankle projected straight down to
// the sole height at rest (the lowest of ball, toe tip and sole vertices, never above the ankle).
// Sole vertices: the lowest quarter of the foot's height below the ankle, at most 32 spread over
// it (farthest-point sampling); then every other vertex of the foot below the ankle when at most
// 64 are, else the one farthest out along each of 64 directions spread over the sphere.
FootModel build_foot_model(const Skeleton& skeleton, const Leg& leg, const Transform& to_world,
                           const Skin* skin = nullptr);

// World positions (metres, Y up) of every point of `foot` (FootModel order) on one frame.
// `world`: FK world transforms of every joint of that frame. `skin` as given to build_foot_model.
// `out` is resized to foot.point_count().
void pose_foot_points(const FootModel& foot, const Skin* skin, std::span<const Transform> world,
                      std::vector<Vec3>& out);

// The position of `p` given the transform of its joint (world metres).
inline Vec3 pose_rigid_point(const RigidFootPoint& p, const Transform& joint_world) {
  return transform_point(joint_world, p.offset_ls);
}

// The inverse of transform_point: `world_point` in `t`'s local frame (t's scale must be nonzero).
inline Vec3 inverse_transform_point(const Transform& t, const Vec3& world_point) {
  return (glm::inverse(t.rotation) * (world_point - t.translation)) / t.scale;
}

}  // namespace ikfix::core
