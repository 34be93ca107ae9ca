// Bone maps as JSON: save then load gives the same map (pairs by name, roles, end-site pairs,
// confidences, excluded joints), loaded pairs are the user's, and every bad file is refused
// with a message naming the file and the problem.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "io/bone_map_json.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "retarget_test_rigs.hpp"
#include "test_scratch.hpp"

namespace {

namespace core = ikfix::core;
namespace io = ikfix::io;
using ikfix::test::humanoid;
using ikfix::test::Joint;
using ikfix::test::Rig;
using ikfix::test::Vec3;

// A source humanoid and a target with a 2-bone leg (end-site foot pairs), a control bone and
// a weapon, so every field of the format is exercised.
struct Pair {
  Rig src{humanoid(ikfix::test::mixamo)};
  Rig tgt{[] {
    auto j = humanoid(ikfix::test::unreal);
    j.insert(j.begin(), Joint{"HipsCtrl", "", Vec3(0), std::nullopt});
    j[1].parent = "HipsCtrl";
    j.push_back({"weapon_l", "hand_l", Vec3(0.1, 0, 0), Vec3(0, 0, 1)});
    return j;
  }()};
};

std::filesystem::path temp_path(const std::string& name) {
  return ikfix::test::scratch_path("bone_map_" + name);
}

TEST(BoneMapJson, SaveThenLoadGivesTheSameMap) {
  const Pair p;
  const core::BoneMap map = core::auto_map(p.src.rest, p.tgt.rest);
  ASSERT_FALSE(map.pairs.empty());
  ASSERT_FALSE(map.excluded_target.empty());
  const auto path = temp_path("roundtrip.json");
  io::save_bone_map(path, map, p.src.skeleton, p.tgt.skeleton, "walk.bvh", "hero.fbx");
  const core::BoneMap loaded = io::load_bone_map(path, p.src.skeleton, p.tgt.skeleton);
  ASSERT_EQ(loaded.pairs.size(), map.pairs.size());
  for (std::size_t i = 0; i < map.pairs.size(); ++i) {
    EXPECT_EQ(loaded.pairs[i].source, map.pairs[i].source);
    EXPECT_EQ(loaded.pairs[i].target, map.pairs[i].target);
    EXPECT_EQ(loaded.pairs[i].target_end_site, map.pairs[i].target_end_site);
    EXPECT_EQ(loaded.pairs[i].role, map.pairs[i].role);
    EXPECT_EQ(loaded.pairs[i].confidence, map.pairs[i].confidence);
    EXPECT_EQ(loaded.pairs[i].provenance, core::MapProvenance::User);
  }
  EXPECT_EQ(loaded.unmapped_source, map.unmapped_source);
  EXPECT_EQ(loaded.unmapped_target, map.unmapped_target);
  EXPECT_EQ(loaded.excluded_target, map.excluded_target);
  EXPECT_EQ(loaded.missing_roles, map.missing_roles);
  // Saving the loaded map again gives the same file except for the provenance.
  auto a = io::bone_map_json(map, p.src.skeleton, p.tgt.skeleton);
  auto b = io::bone_map_json(loaded, p.src.skeleton, p.tgt.skeleton);
  for (auto& pair : a["pairs"]) pair["provenance"] = "user";
  EXPECT_EQ(a.dump(), b.dump());
  std::filesystem::remove(path);
}

TEST(BoneMapJson, EndSitePairsSurviveTheRoundTrip) {
  const Rig src(humanoid(ikfix::test::mixamo));
  const Rig tgt({{"bassin", "", Vec3(0, 1.0, 0), std::nullopt},
                 {"torse", "bassin", Vec3(0, 0.3, 0), Vec3(0, 0.3, 0)},
                 {"jambe gauche", "bassin", Vec3(0.1, -0.05, 0), std::nullopt},
                 {"pied gauche", "jambe gauche", Vec3(0, -0.45, 0.05), Vec3(0, -0.45, -0.05)},
                 {"jambe droite", "bassin", Vec3(-0.1, -0.05, 0), std::nullopt},
                 {"pied droit", "jambe droite", Vec3(0, -0.45, 0.05), Vec3(0, -0.45, -0.05)}});
  const core::BoneMap map = core::auto_map(src.rest, tgt.rest);
  const auto json = io::bone_map_json(map, src.skeleton, tgt.skeleton);
  const core::BoneMap loaded = io::bone_map_from_json(nlohmann::json::parse(json.dump()),
                                                      src.skeleton, tgt.skeleton, "m.json");
  int end_pairs = 0;
  for (const auto& pair : loaded.pairs) end_pairs += pair.target_end_site;
  EXPECT_EQ(end_pairs, 2);
  EXPECT_TRUE(loaded.missing_roles.empty());
}

// Each bad map must be refused naming the file and what is wrong.
TEST(BoneMapJson, BadFilesAreRefusedWithAReason) {
  const Pair p;
  struct Bad {
    const char* text;
    const char* expected;
  };
  const Bad cases[] = {
      {"not json", "not valid JSON"},
      {"[]", "must be a JSON object"},
      {R"({"schema": "qtmesh-bonemap-v1", "pairs": []})", "schema"},
      {R"({"schema": "ikfix-bone-map-v1"})", "\"pairs\" must be an array"},
      {R"({"schema": "ikfix-bone-map-v1", "pairs": [3]})", "pair 1: must be an object"},
      {R"({"schema": "ikfix-bone-map-v1", "pairs": [{"source": "NoSuchJoint", "target": "pelvis"}]})",
       "pair 1: no joint named 'NoSuchJoint' in the source skeleton"},
      {R"({"schema": "ikfix-bone-map-v1", "pairs": [{"source": "mixamorig:Hips", "target": "Pelvis"}]})",
       "no joint named 'Pelvis' in the target skeleton"},
      {R"({"schema": "ikfix-bone-map-v1", "pairs": [{"source": "mixamorig:Hips", "target": 7}]})",
       "\"target\" must be a joint name"},
      {R"({"schema": "ikfix-bone-map-v1", "pairs": [{"source": "mixamorig:Hips", "target": "pelvis"},
          {"source": "mixamorig:Hips", "target": "spine_01"}]})",
       "pair 2: source joint 'mixamorig:Hips' is paired twice"},
      {R"({"schema": "ikfix-bone-map-v1", "pairs": [{"source": "mixamorig:Hips", "target": "pelvis"},
          {"source": "mixamorig:Spine", "target": "pelvis"}]})",
       "target joint 'pelvis' is paired twice"},
      {R"({"schema": "ikfix-bone-map-v1", "pairs": [{"source": "mixamorig:Hips", "target": "pelvis", "confidence": 3}]})",
       "confidence"},
      {R"({"schema": "ikfix-bone-map-v1", "pairs": [{"source": "mixamorig:Hips", "target": "pelvis", "role": 1}]})",
       "\"role\" must be a string"},
      {R"({"schema": "ikfix-bone-map-v1", "pairs": [], "excluded_target": ["Nope"]})",
       "no joint named 'Nope'"},
      {R"({"schema": "ikfix-bone-map-v1", "pairs": [{"source": "mixamorig:Hips", "target": "pelvis"}],
          "excluded_target": ["pelvis"]})",
       "'pelvis' is also paired"},
  };
  const auto path = temp_path("bad.json");
  for (const Bad& bad : cases) {
    SCOPED_TRACE(bad.text);
    io::write_file_atomic(path, bad.text);
    try {
      io::load_bone_map(path, p.src.skeleton, p.tgt.skeleton);
      ADD_FAILURE() << "accepted";
    } catch (const io::InputError& e) {
      EXPECT_EQ(e.file(), path.string());
      EXPECT_NE(std::string(e.what()).find(bad.expected), std::string::npos) << e.what();
    }
  }
  std::filesystem::remove(path);
  EXPECT_THROW(io::load_bone_map(temp_path("missing.json"), p.src.skeleton, p.tgt.skeleton),
               io::InputError);
}

TEST(BoneMapJson, AHandWrittenMapIsTheUsers) {
  const Pair p;
  const auto json = nlohmann::json::parse(R"({"schema": "ikfix-bone-map-v1", "pairs": [
      {"source": "mixamorig:Hips", "target": "pelvis", "role": "hips"},
      {"source": "mixamorig:LeftUpLeg", "target": "thigh_l", "role": "left_thigh", "confidence": 0.5}]})");
  const core::BoneMap map =
      io::bone_map_from_json(json, p.src.skeleton, p.tgt.skeleton, "mine.json");
  ASSERT_EQ(map.pairs.size(), 2u);
  EXPECT_EQ(map.pairs[0].provenance, core::MapProvenance::User);
  EXPECT_EQ(map.pairs[0].confidence, 1.0);
  EXPECT_EQ(map.pairs[1].confidence, 0.5);
  // Roles not given are missing; joints not given are unmapped.
  EXPECT_EQ(map.missing_roles.size(), core::required_roles().size() - 2);
  EXPECT_EQ(map.unmapped_source.size(), p.src.skeleton.names.size() - 2);
  EXPECT_EQ(map.unmapped_target.size(), p.tgt.skeleton.names.size() - 2);
}

}  // namespace
