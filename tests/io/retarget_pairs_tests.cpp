// The automatic bone map on the real retargeting pairs (../shared/data/retarget/pairs.json):
// every expected pair reproduced, no wrong pair, no control/helper bone mapped. Prints the
// pair x (matched / wrong / missed) table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/retarget/bone_map.hpp"
#include "core/retarget/joint_names.hpp"
#include "io/bone_map_json.hpp"
#include "io/clip_io.hpp"
#include "test_data.hpp"

namespace {

namespace core = ikfix::core;
namespace fs = std::filesystem;

fs::path retarget_dir() { return ikfix::test::shared_data_dir() / "retarget"; }

struct Loaded {
  ikfix::io::LoadedClip clip;
  core::RestPose rest;
};

// A source clip, or (character = true) a target character with all its bones.
std::unique_ptr<Loaded> load(const fs::path& path, bool character = false) {
  auto out = std::make_unique<Loaded>();
  out->clip = character ? ikfix::io::load_character(path) : ikfix::io::load_clip(path);
  out->rest = core::make_rest_pose(out->clip.skeleton, out->clip.space.to_world());
  return out;
}

// One expected row: source joint (or none) -> target joint (or none), maybe the end of a joint.
struct Expected {
  std::optional<std::string> source, target;
  bool target_end = false;
};

// "%HipJoint" stands for LHipJoint and RHipJoint; "X_end (...)" for the end of X.
std::vector<Expected> expand(const nlohmann::json& map) {
  std::vector<Expected> out;
  for (const auto& row : map) {
    Expected e;
    if (!row[0].is_null()) e.source = row[0].get<std::string>();
    if (!row[1].is_null()) {
      std::string t = row[1].get<std::string>();
      if (const auto end = t.find("_end"); end != std::string::npos) {
        t = t.substr(0, end);
        e.target_end = true;
      }
      e.target = t;
    }
    const bool hip_joint =
        (e.source && e.source->front() == '%') || (e.target && e.target->front() == '%');
    if (!hip_joint) {
      out.push_back(e);
      continue;
    }
    for (const char* side : {"L", "R"}) {
      Expected s = e;
      if (s.source && s.source->front() == '%') s.source = side + s.source->substr(1);
      if (s.target && s.target->front() == '%') s.target = side + s.target->substr(1);
      out.push_back(s);
    }
  }
  return out;
}

// Joint `name` of `s`; pairs.json spells the barbarian's names with spaces (as Blender, FBX and
// glTF do), its BVH rest file with underscores.
int find_spelled(const core::Skeleton& s, const std::string& name) {
  auto underscored = [](std::string n) {
    for (char& c : n)
      if (c == ' ') c = '_';
    return n;
  };
  for (int j = 0; j < s.joint_count(); ++j)
    if (underscored(s.names[j]) == underscored(name)) return j;
  return -1;
}

struct Score {
  int matched = 0;         // expected pair reproduced (or expected "no partner" respected)
  int wrong = 0;           // a pair the expectation contradicts
  int missed = 0;          // expected pair left unmapped
  int helpers_mapped = 0;  // control/IK/helper/weapon bones in a pair
  std::vector<std::string> problems;
};

Score score(const core::BoneMap& map, const core::Skeleton& src, const core::Skeleton& tgt,
            const std::vector<Expected>& expected) {
  Score sc;
  for (const auto& e : expected) {
    const int s = e.source ? find_spelled(src, *e.source) : -1;
    const int t = e.target ? find_spelled(tgt, *e.target) : -1;
    if ((e.source && s < 0) || (e.target && t < 0)) {
      sc.problems.push_back("expected joint not in file: " + e.source.value_or("-") + " / " +
                            e.target.value_or("-"));
      ++sc.wrong;
      continue;
    }
    if (s >= 0) {
      const int p = map.pair_of_source(s);
      if (t < 0) {
        if (p < 0) {
          ++sc.matched;
        } else {
          ++sc.wrong;
          sc.problems.push_back(*e.source + " mapped to " + tgt.names[map.pairs[p].target] +
                                ", expected none");
        }
      } else if (p < 0) {
        ++sc.missed;
        sc.problems.push_back(*e.source + " unmapped, expected " + *e.target);
      } else if (map.pairs[p].target == t && map.pairs[p].target_end_site == e.target_end) {
        ++sc.matched;
      } else {
        ++sc.wrong;
        sc.problems.push_back(*e.source + " mapped to " + tgt.names[map.pairs[p].target] +
                              (map.pairs[p].target_end_site ? " (end)" : "") + ", expected " +
                              *e.target);
      }
    } else if (t >= 0) {
      if (map.pair_of_target(t) < 0) {
        ++sc.matched;
      } else {
        ++sc.wrong;
        sc.problems.push_back(*e.target + " is mapped, expected no partner");
      }
    }
  }
  for (const auto& p : map.pairs)
    if (core::parse_joint_name(tgt.names[p.target]).helper) {
      ++sc.helpers_mapped;
      sc.problems.push_back("helper mapped: " + tgt.names[p.target]);
    }
  return sc;
}

struct Case {
  std::string id;
  fs::path source;
  std::vector<fs::path> targets;  // the rest files: BVH, FBX, GLB (the same skeleton)
  std::vector<Expected> expected;
};

std::vector<Case> cases_from_pairs_json() {
  std::ifstream in(retarget_dir() / "pairs.json");
  const auto doc = nlohmann::json::parse(in);
  std::vector<Case> cases;
  std::vector<Expected> p2;
  for (const auto& pair : doc["pairs"]) {
    const std::string id = pair["id"];
    if (id == "P7" || id == "P8") continue;
    Case c;
    c.id = id;
    c.source = retarget_dir() / pair["source"]["file"].get<std::string>();
    for (const auto& f : pair["target"]["rest_files"])
      c.targets.push_back(retarget_dir() / f.get<std::string>());
    c.expected = expand(pair["map"]);
    if (id == "P2") p2 = c.expected;
    cases.push_back(c);
  }
  // P7 is P2 reversed: CesiumMan's own walk onto the CMU skeleton.
  Case p7;
  p7.id = "P7";
  p7.source = ikfix::test::shared_data_dir() / "anim" / "gltf" / "CesiumMan.glb";
  p7.targets = {retarget_dir() / "cmu_02_tpose_rest.bvh"};
  for (const auto& e : p2) {
    if (e.target_end) continue;
    p7.expected.push_back({e.target, e.source, false});
  }
  cases.push_back(p7);
  return cases;
}

TEST(RetargetPairs, AutoMapReproducesPairsJson) {
  IKFIX_REQUIRE_SHARED_DATA();
  std::printf("pair  matched  wrong  missed  helpers  excluded  (source -> target)\n");
  for (const Case& c : cases_from_pairs_json()) {
    const auto src = load(c.source);
    for (const fs::path& target : c.targets) {
      SCOPED_TRACE(c.id + " -> " + target.filename().string());
      const auto tgt = load(target, true);
      const core::BoneMap map = core::auto_map(src->rest, tgt->rest);
      const Score sc = score(map, src->clip.skeleton, tgt->clip.skeleton, c.expected);
      std::printf("%-4s  %7d  %5d  %6d  %7d  %8zu  (%s -> %s)\n", c.id.c_str(), sc.matched,
                  sc.wrong, sc.missed, sc.helpers_mapped, map.excluded_target.size(),
                  c.source.filename().c_str(), target.filename().c_str());
      for (const auto& p : sc.problems) std::printf("      %s\n", p.c_str());
      EXPECT_EQ(sc.wrong, 0);
      EXPECT_EQ(sc.missed, 0);
      EXPECT_EQ(sc.helpers_mapped, 0);
      EXPECT_GT(sc.matched, 10);
      EXPECT_TRUE(map.missing_roles.empty())
          << map.missing_roles.size() << " required roles missing";
      for (const auto& p : map.pairs) {
        EXPECT_GT(p.confidence, 0.0);
        EXPECT_LE(p.confidence, 1.0);
        EXPECT_FALSE(p.role.empty());
      }
      // `ikfix map --save` then `--map`: the same pairs, lists and roles come back.
      const auto saved = ikfix::io::bone_map_json(map, src->clip.skeleton, tgt->clip.skeleton);
      const core::BoneMap loaded = ikfix::io::bone_map_from_json(
          nlohmann::json::parse(saved.dump()), src->clip.skeleton, tgt->clip.skeleton, "map.json");
      ASSERT_EQ(loaded.pairs.size(), map.pairs.size());
      for (std::size_t i = 0; i < map.pairs.size(); ++i) {
        EXPECT_EQ(loaded.pairs[i].source, map.pairs[i].source);
        EXPECT_EQ(loaded.pairs[i].target, map.pairs[i].target);
        EXPECT_EQ(loaded.pairs[i].target_end_site, map.pairs[i].target_end_site);
        EXPECT_EQ(loaded.pairs[i].role, map.pairs[i].role);
      }
      EXPECT_EQ(loaded.unmapped_source, map.unmapped_source);
      EXPECT_EQ(loaded.unmapped_target, map.unmapped_target);
      EXPECT_EQ(loaded.excluded_target, map.excluded_target);
    }
  }
}

// The Kenney character as it ships (a Root and HipsCtrl above the hips; the reader's "rest" is
// a walk frame, one foot lifted): the same pairs as on its rest file, no control bone mapped.
TEST(RetargetPairs, FullCharactersKeepControlsUnmapped) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto src = load(ikfix::test::shared_data_dir() / "anim" / "bvh" / "cmu_02_01_walk.bvh");
  struct Full {
    const char* file;
    const char* rest;
  };
  // The barbarian's FBX is left out: FBX keeps no bone tails, so its 2-bone legs have no ankle.
  for (const Full& f : {Full{"kenney_character_maya_7700.fbx", "kenney_rest.bvh"}}) {
    SCOPED_TRACE(f.file);
    const auto full = load(ikfix::test::shared_data_dir() / "anim" / "fbx" / f.file, true);
    const auto rest = load(retarget_dir() / f.rest, true);
    const core::BoneMap on_full = core::auto_map(src->rest, full->rest);
    const core::BoneMap on_rest = core::auto_map(src->rest, rest->rest);
    EXPECT_TRUE(on_full.missing_roles.empty());
    // Same partner names (the BVH rest files spell spaces as underscores).
    auto spelled = [](std::string n) {
      for (char& c : n)
        if (c == ' ') c = '_';
      return n;
    };
    for (const auto& p : on_rest.pairs) {
      const int q = on_full.pair_of_source(p.source);
      ASSERT_GE(q, 0) << src->clip.skeleton.names[p.source];
      EXPECT_EQ(spelled(full->clip.skeleton.names[on_full.pairs[q].target]),
                rest->clip.skeleton.names[p.target])
          << src->clip.skeleton.names[p.source];
    }
    EXPECT_EQ(on_full.pairs.size(), on_rest.pairs.size());
    for (const auto& p : on_full.pairs) {
      const auto n = core::parse_joint_name(full->clip.skeleton.names[p.target]);
      EXPECT_FALSE(n.helper) << full->clip.skeleton.names[p.target];
    }
    // Every control/helper-named joint of the character is listed as excluded.
    for (int j = 0; j < full->clip.skeleton.joint_count(); ++j) {
      if (!core::parse_joint_name(full->clip.skeleton.names[j]).helper) continue;
      EXPECT_TRUE(std::count(on_full.excluded_target.begin(), on_full.excluded_target.end(), j))
          << full->clip.skeleton.names[j];
    }
  }
}

}  // namespace
