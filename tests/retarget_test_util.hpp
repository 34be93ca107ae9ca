#pragma once
// Building retarget inputs in tests: rest poses, leg rigs and bone maps written out by hand
// (from ../shared/data/retarget/pairs.json), so the transfer is tested apart from auto-mapping.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "core/fk.hpp"
#include "core/legs.hpp"
#include "core/retarget/bone_map.hpp"
#include "io/clip_io.hpp"

namespace ikfix::test {

struct NamedPair {
  std::string source, target, role;
};

inline core::BoneMap map_from_names(const core::Skeleton& source, const core::Skeleton& target,
                                    const std::vector<NamedPair>& named) {
  core::BoneMap map;
  for (const NamedPair& n : named) {
    core::BonePair p;
    p.source = source.find(n.source);
    p.target = target.find(n.target);
    p.role = n.role;
    p.provenance = core::MapProvenance::User;
    EXPECT_GE(p.source, 0) << n.source;
    EXPECT_GE(p.target, 0) << n.target;
    if (p.source >= 0 && p.target >= 0) map.pairs.push_back(p);
  }
  return map;
}

inline core::LegRig legs_of(const io::LoadedClip& clip) {
  const core::LegDetection d = core::detect_legs_at_rest(clip.skeleton, clip.space.to_world());
  EXPECT_TRUE(d.rig.has_value()) << d.error;
  return d.rig.value_or(core::LegRig{});
}

// CMU (cgspeed) names on both sides: the identity map of a CMU skeleton.
inline std::vector<NamedPair> cmu_identity_pairs() {
  std::vector<NamedPair> v = {{"Hips", "Hips", "hips"},    {"LowerBack", "LowerBack", "spine"},
                              {"Spine", "Spine", "spine"}, {"Spine1", "Spine1", "chest"},
                              {"Neck", "Neck", "neck"},    {"Neck1", "Neck1", "neck"},
                              {"Head", "Head", "head"}};
  for (std::string side : {"Left", "Right"}) {
    const std::string s = side == "Left" ? "left" : "right";
    const std::string c = side.substr(0, 1);
    v.push_back({c + "HipJoint", c + "HipJoint", s + "_hip_joint"});
    v.push_back({side + "UpLeg", side + "UpLeg", s + "_thigh"});
    v.push_back({side + "Leg", side + "Leg", s + "_shin"});
    v.push_back({side + "Foot", side + "Foot", s + "_foot"});
    v.push_back({side + "ToeBase", side + "ToeBase", s + "_toe"});
    v.push_back({side + "Shoulder", side + "Shoulder", s + "_clavicle"});
    v.push_back({side + "Arm", side + "Arm", s + "_upper_arm"});
    v.push_back({side + "ForeArm", side + "ForeArm", s + "_lower_arm"});
    v.push_back({side + "Hand", side + "Hand", s + "_hand"});
    v.push_back({side + "FingerBase", side + "FingerBase", s + "_index1"});
    v.push_back({side + "HandIndex1", side + "HandIndex1", s + "_index2"});
    v.push_back({c + "Thumb", c + "Thumb", s + "_thumb1"});
  }
  return v;
}

}  // namespace ikfix::test
