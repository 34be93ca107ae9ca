#include "core/retarget/limb_reach.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ikfix::core {

std::vector<ArmChain> arm_chains(const BoneMap& map, std::span<const Transform> source_rest,
                                 const Skeleton& target, std::span<const Transform> target_rest) {
  std::vector<ArmChain> arms;
  for (const char* side : {"left", "right"}) {
    const int u = map.pair_with_role(std::string(side) + "_upper_arm");
    const int l = map.pair_with_role(std::string(side) + "_lower_arm");
    const int h = map.pair_with_role(std::string(side) + "_hand");
    if (u < 0 || l < 0 || h < 0) continue;
    ArmChain c;
    c.source_upper = map.pairs[u].source;
    c.source_hand = map.pairs[h].source;
    c.target_upper = map.pairs[u].target;
    c.target_lower = map.pairs[l].target;
    c.target_hand = map.pairs[h].target;
    if (target.parents[c.target_lower] != c.target_upper ||
        target.parents[c.target_hand] != c.target_lower)
      continue;
    const int source_lower = map.pairs[l].source;
    c.source_length =
        glm::length(source_rest[source_lower].translation -
                    source_rest[c.source_upper].translation) +
        glm::length(source_rest[c.source_hand].translation - source_rest[source_lower].translation);
    c.target_length = glm::length(target_rest[c.target_lower].translation -
                                  target_rest[c.target_upper].translation) +
                      glm::length(target_rest[c.target_hand].translation -
                                  target_rest[c.target_lower].translation);
    if (c.source_length > 1e-9 && c.target_length > 1e-9) arms.push_back(c);
  }
  return arms;
}

void reach_arms(std::span<const ArmChain> arms, const Skeleton& target,
                std::span<const Transform> source_world, std::span<Transform> world,
                std::span<Transform> locals, const Transform& target_to_world, double weight) {
  if (weight <= 0) return;
  for (const ArmChain& c : arms) {
    const Vec3 u = world[c.target_upper].translation;
    const Vec3 e = world[c.target_lower].translation;
    const Vec3 h = world[c.target_hand].translation;
    const double a = glm::length(e - u), b = glm::length(h - e);
    if (a < 1e-9 || b < 1e-9) continue;
    // Where the source's hand is, in arm lengths from the shoulder, on the target's arm.
    const Vec3 source_reach =
        source_world[c.source_hand].translation - source_world[c.source_upper].translation;
    const Vec3 goal_full = u + source_reach * (c.target_length / c.source_length);
    const Vec3 goal = h + weight * (goal_full - h);
    // Elbow: interior angle that puts the hand at the goal's distance (kept off the singular
    // straight and folded arms so the bend plane stays defined).
    const double d =
        std::clamp(glm::length(goal - u), std::abs(a - b) + 1e-6 * (a + b), (a + b) * (1 - 1e-9));
    const double wanted = std::acos(std::clamp((a * a + b * b - d * d) / (2 * a * b), -1.0, 1.0));
    const double current = angle_between(glm::normalize(u - e), glm::normalize(h - e));
    Vec3 axis = glm::cross(e - u, h - e);
    if (glm::length(axis) < 1e-12 * a * b) {
      // Straight arm: bend about the elbow's own hinge as the rest pose holds it (its local X).
      axis = world[c.target_lower].rotation * Vec3(1, 0, 0);
      axis -= glm::normalize(h - e) * glm::dot(axis, glm::normalize(h - e));
      if (glm::length(axis) < 1e-9) axis = any_perpendicular(glm::normalize(h - e));
    }
    axis = glm::normalize(axis);
    const Quat bend = axis_angle(axis, current - wanted);
    const Vec3 hand_bent = e + bend * (h - e);
    const Quat swing = rotation_between(safe_normalize(hand_bent - u, Vec3(0, 1, 0)),
                                        safe_normalize(goal - u, Vec3(0, 1, 0)));
    const Quat upper_rot = glm::normalize(swing * world[c.target_upper].rotation);
    const Quat lower_rot = glm::normalize(swing * bend * world[c.target_lower].rotation);
    const Quat hand_rot = world[c.target_hand].rotation;
    // Locals, top down; the hand keeps its world rotation.
    const int parent = target.parents[c.target_upper];
    const Transform& parent_world = parent < 0 ? target_to_world : world[parent];
    locals[c.target_upper].rotation =
        glm::normalize(glm::inverse(parent_world.rotation) * upper_rot);
    locals[c.target_lower].rotation = glm::normalize(glm::inverse(upper_rot) * lower_rot);
    locals[c.target_hand].rotation = glm::normalize(glm::inverse(lower_rot) * hand_rot);
    // World transforms of the chain and everything below it (parents come before children, so
    // a joint is below the chain when its parent is: one pass, not a walk up per joint).
    std::vector<char> below(target.joint_count() - c.target_upper, 0);
    below[0] = 1;
    for (int j = c.target_upper; j < target.joint_count(); ++j) {
      const int p = target.parents[j];
      if (j > c.target_upper && (p < c.target_upper || !below[p - c.target_upper])) continue;
      below[j - c.target_upper] = 1;
      world[j] = compose(p < 0 ? target_to_world : world[p], locals[j]);
    }
  }
}

}  // namespace ikfix::core
