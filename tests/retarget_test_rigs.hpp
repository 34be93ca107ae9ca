#pragma once
// Small synthetic humanoids for bone-map tests: a T-pose skeleton whose joint names come from a
// naming function (Mixamo, Unreal, anonymous, ...), with its rest pose.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/retarget/bone_map.hpp"

namespace ikfix::test {

using core::RestPose;
using core::Skeleton;
using core::Transform;
using core::Vec3;

struct Joint {
  std::string name;
  std::string parent;  // "" for a root
  Vec3 offset;         // from the parent, metres, Y up, character facing +Z (left = +X)
  std::optional<Vec3> end;
};

inline Skeleton build(const std::vector<Joint>& joints) {
  Skeleton s;
  for (const auto& j : joints) {
    s.names.push_back(j.name);
    s.parents.push_back(j.parent.empty() ? -1 : s.find(j.parent));
    Transform t;
    t.translation = j.offset;
    s.rest.push_back(t);
    s.end_sites.push_back(j.end);
  }
  EXPECT_EQ(s.validate(), "");
  return s;
}

// A standing T-pose humanoid; `name` gives each canonical slot's joint name. `mirror` flips
// X and Z (the character faces -Z; its left is -X).
inline std::vector<Joint> humanoid(const std::function<std::string(const std::string&)>& name,
                                   bool mirror = false, int spine_count = 3) {
  const double m = mirror ? -1.0 : 1.0;
  auto v = [m](double x, double y, double z) { return Vec3(m * x, y, m * z); };
  std::vector<Joint> j;
  j.push_back({name("hips"), "", v(0, 1.0, 0), std::nullopt});
  std::string prev = name("hips");
  for (int i = 1; i <= spine_count; ++i) {
    j.push_back(
        {name("spine" + std::to_string(i)), prev, v(0, 0.3 / spine_count, 0), std::nullopt});
    prev = name("spine" + std::to_string(i));
  }
  const std::string chest = prev;
  j.push_back({name("neck"), chest, v(0, 0.12, 0), std::nullopt});
  j.push_back({name("head"), name("neck"), v(0, 0.1, 0), v(0, 0.2, 0)});
  for (int side = 0; side < 2; ++side) {
    const std::string s = side == 0 ? "l" : "r";
    const double x = side == 0 ? 1.0 : -1.0;
    j.push_back({name(s + "clav"), chest, v(x * 0.03, 0.08, 0), std::nullopt});
    j.push_back({name(s + "upper"), name(s + "clav"), v(x * 0.15, 0, 0), std::nullopt});
    j.push_back({name(s + "lower"), name(s + "upper"), v(x * 0.28, 0, 0), std::nullopt});
    j.push_back({name(s + "hand"), name(s + "lower"), v(x * 0.25, 0, 0), std::nullopt});
    j.push_back({name(s + "thumb1"), name(s + "hand"), v(x * 0.02, 0, 0.03), v(x * 0.03, 0, 0.02)});
    j.push_back({name(s + "index1"), name(s + "hand"), v(x * 0.09, 0, 0.01), std::nullopt});
    j.push_back({name(s + "index2"), name(s + "index1"), v(x * 0.04, 0, 0), v(x * 0.03, 0, 0)});
    j.push_back({name(s + "thigh"), name("hips"), v(x * 0.1, -0.05, 0), std::nullopt});
    j.push_back({name(s + "shin"), name(s + "thigh"), v(0, -0.43, 0.01), std::nullopt});
    j.push_back({name(s + "foot"), name(s + "shin"), v(0, -0.43, -0.01), std::nullopt});
    j.push_back({name(s + "toe"), name(s + "foot"), v(0, -0.07, 0.12), v(0, 0, 0.05)});
  }
  return j;
}

inline std::string mixamo(const std::string& slot) {
  static const std::map<std::string, std::string> k = {
      {"hips", "Hips"},         {"spine1", "Spine"},      {"spine2", "Spine1"},
      {"spine3", "Spine2"},     {"neck", "Neck"},         {"head", "Head"},
      {"clav", "Shoulder"},     {"upper", "Arm"},         {"lower", "ForeArm"},
      {"hand", "Hand"},         {"thumb1", "HandThumb1"}, {"index1", "HandIndex1"},
      {"index2", "HandIndex2"}, {"thigh", "UpLeg"},       {"shin", "Leg"},
      {"foot", "Foot"},         {"toe", "ToeBase"}};
  if (auto it = k.find(slot); it != k.end()) return "mixamorig:" + it->second;
  const std::string side = slot[0] == 'l' ? "Left" : "Right";
  return "mixamorig:" + side + k.at(slot.substr(1));
}

inline std::string unreal(const std::string& slot) {
  static const std::map<std::string, std::string> k = {
      {"hips", "pelvis"},     {"spine1", "spine_01"}, {"spine2", "spine_02"},
      {"spine3", "spine_03"}, {"neck", "neck_01"},    {"head", "head"},
      {"clav", "clavicle"},   {"upper", "upperarm"},  {"lower", "lowerarm"},
      {"hand", "hand"},       {"thumb1", "thumb_01"}, {"index1", "index_01"},
      {"index2", "index_02"}, {"thigh", "thigh"},     {"shin", "calf"},
      {"foot", "foot"},       {"toe", "ball"}};
  if (auto it = k.find(slot); it != k.end()) return it->second;
  return k.at(slot.substr(1)) + (slot[0] == 'l' ? "_l" : "_r");
}

// No anatomy words at all: "j<index>" in creation order.
inline std::function<std::string(const std::string&)> anonymous() {
  auto seen = std::make_shared<std::map<std::string, std::string>>();
  return [seen](const std::string& slot) {
    auto it = seen->find(slot);
    if (it == seen->end()) it = seen->emplace(slot, "j" + std::to_string(seen->size())).first;
    return it->second;
  };
}

struct Rig {
  Skeleton skeleton;
  RestPose rest;
  explicit Rig(std::vector<Joint> joints) : skeleton(build(joints)) {
    rest = core::make_rest_pose(skeleton, Transform{});
  }
  Rig(const Rig&) = delete;
};

}  // namespace ikfix::test
