// `ikfix run` on FBX end to end: the real binary on the shared FBX files; the written file is
// read back (our reader and Assimp) and measured against the input. Blender opens the same
// outputs in tests/interop/fbx_blender_tests.cpp (label interop).
#include <cmath>
#include <set>

#include "core/fk.hpp"
#include "e2e_support.hpp"
#include "io/error.hpp"
#include "io/fbx/fbx.hpp"
#include "io/fbx_test_support.hpp"

namespace ikfix::test {
namespace {

std::filesystem::path fbx_clip(const std::string& name) {
  return shared_data_dir() / "anim" / "fbx" / name;
}

std::string_view source_of(const io::fbx::Document& doc, const io::fbx::Property& p) {
  return std::string_view(doc.data).substr(p.offset, p.size);
}

bool same_node(const io::fbx::Document& da, const io::fbx::Node& a, const io::fbx::Document& db,
               const io::fbx::Node& b) {
  if (a.name != b.name || a.props.size() != b.props.size() ||
      a.children.size() != b.children.size())
    return false;
  for (std::size_t k = 0; k < a.props.size(); ++k)
    if (a.props[k].type != b.props[k].type ||
        source_of(da, a.props[k]) != source_of(db, b.props[k]))
      return false;
  for (std::size_t k = 0; k < a.children.size(); ++k)
    if (!same_node(da, a.children[k], db, b.children[k])) return false;
  return true;
}

std::size_t count_nodes(const aiNode* n) {
  std::size_t c = 1;
  for (unsigned k = 0; k < n->mNumChildren; ++k) c += count_nodes(n->mChildren[k]);
  return c;
}

// Largest relative change of any joint-to-parent distance, the pelvis excepted (its translation
// is the fix's root motion).
double bone_length_change(const PosedClip& before, const PosedClip& after, int pelvis) {
  const auto& s = after.loaded.skeleton;
  double worst = 0;
  for (int f = 0; f < after.loaded.clip.frame_count; ++f)
    for (int j = 0; j < after.joints; ++j) {
      const int p = s.parents[j];
      if (p < 0 || j == pelvis) continue;
      const double a = glm::length(before.at(f, j) - before.at(f, p));
      const double b = glm::length(after.at(f, j) - after.at(f, p));
      if (a > 1e-6) worst = std::max(worst, std::abs(b - a) / a);
    }
  return worst;
}

struct RunResult {
  std::filesystem::path out;
  nlohmann::json report;
};

RunResult run_fbx(const std::filesystem::path& dir, const std::filesystem::path& input,
                  const std::string& terrain) {
  RunResult r;
  r.out = dir / (input.stem().string() + "." + terrain + ".fbx");
  const auto report_path = dir / (input.stem().string() + "." + terrain + ".json");
  const auto result = run_ikfix("run " + quoted(input) + " --terrain " +
                                quoted(bundled("terrain/" + terrain + ".obj")) + " -o " +
                                quoted(r.out) + " --report " + quoted(report_path));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  if (result.exit_code == 0) r.report = read_json(report_path);
  return r;
}

TEST(FbxRunE2E, CmuWalkOnStairsKeepsEverythingButTheFixedCurves) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("fbx_walk");
  const auto input = fbx_clip("cmu_07_01_walk_skeleton.fbx");
  const RunResult run = run_fbx(dir, input, "stairs");
  ASSERT_TRUE(std::filesystem::exists(run.out));
  EXPECT_EQ(run.report["format"], "fbx");
  EXPECT_EQ(run.report["frames"], 317);
  EXPECT_EQ(run.report["unit"]["source"], "guessed");
  EXPECT_EQ(run.report["legs"]["method"], "names");

  // Our reader: same skeleton, take and frames; joints the fix does not touch are unchanged.
  const PosedClip before = pose_clip(input);
  const PosedClip after = pose_clip(run.out);
  const auto& s = after.loaded.skeleton;
  ASSERT_EQ(before.loaded.skeleton.names, s.names);
  EXPECT_EQ(after.loaded.take_name, before.loaded.take_name);
  EXPECT_EQ(after.loaded.take_count, before.loaded.take_count);
  ASSERT_EQ(after.loaded.clip.frame_count, before.loaded.clip.frame_count);
  const int pelvis = s.find(run.report["legs"]["pelvis"].get<std::string>());
  ASSERT_GE(pelvis, 0);
  EXPECT_LE(bone_length_change(before, after, pelvis), 1e-6)
      << "relative bone length change (float keys)";
  // The toes too: they bend at the ball where the toe tip (the file's *ToeBase_end) would go
  // into a riser.
  std::set<std::string> fixed{"Hips"};
  for (const char* side : {"left", "right"})
    for (const char* part : {"hip", "knee", "ankle", "toe"})
      fixed.insert(run.report["legs"][side][part].get<std::string>());
  for (int j = 0; j < after.joints; ++j) {
    if (fixed.count(s.names[j])) continue;
    for (int f = 0; f < after.loaded.clip.frame_count; ++f) {
      ASSERT_EQ(after.loaded.clip.at(f, j).rotation, before.loaded.clip.at(f, j).rotation)
          << s.names[j] << " frame " << f;
      ASSERT_EQ(after.loaded.clip.at(f, j).translation, before.loaded.clip.at(f, j).translation)
          << s.names[j];
    }
  }
  // The fix did something: the ankles moved.
  const int ankle = s.find(run.report["legs"]["left"]["ankle"].get<std::string>());
  double moved = 0;
  for (int f = 0; f < after.loaded.clip.frame_count; ++f)
    moved = std::max(moved, glm::length(after.at(f, ankle) - before.at(f, ankle)));
  EXPECT_GT(moved, 0.05);

  // The node tree: only the fixed joints' curves differ, every other object keeps its bytes.
  const io::fbx::Document a = io::fbx::read_file(input);
  const io::fbx::Document b = io::fbx::read_file(run.out);
  ASSERT_EQ(a.root.children.size(), b.root.children.size());
  for (std::size_t k = 0; k < a.root.children.size(); ++k) {
    if (a.root.children[k].name != "Objects") {
      EXPECT_TRUE(same_node(a, a.root.children[k], b, b.root.children[k]))
          << a.root.children[k].name;
    }
  }
  const io::fbx::Scene scene = io::fbx::read_scene(a);
  std::set<std::size_t> fixed_curves;
  for (const auto& cn : scene.curve_nodes)
    if (cn.model >= 0 && fixed.count(scene.models[cn.model].name) &&
        cn.channel != io::fbx::Channel::scaling)
      for (int c : cn.curves)
        if (c >= 0) fixed_curves.insert(scene.curves[c].object);
  const auto& oa = a.root.child("Objects")->children;
  const auto& ob = b.root.child("Objects")->children;
  ASSERT_EQ(oa.size(), ob.size());
  int rewritten = 0;
  for (std::size_t k = 0; k < oa.size(); ++k) {
    const bool same = same_node(a, oa[k], b, ob[k]);
    if (!fixed_curves.count(k)) {
      EXPECT_TRUE(same) << "object " << k << " (" << oa[k].name << ") changed";
    }
    rewritten += !same;
  }
  EXPECT_GE(rewritten, 7 * 3);  // six leg joints' and the pelvis' rotation curves at least

  // Assimp: same node tree, take and channel count; untouched channels keep their keys.
  AssimpFbx ia(input), ib(run.out);
  ASSERT_NE(ib.scene(), nullptr) << ib.error();
  EXPECT_EQ(count_nodes(ia.scene()->mRootNode), count_nodes(ib.scene()->mRootNode));
  ASSERT_EQ(ia.scene()->mNumAnimations, ib.scene()->mNumAnimations);
  const aiAnimation* x = ia.scene()->mAnimations[0];
  const aiAnimation* y = ib.scene()->mAnimations[0];
  EXPECT_STREQ(x->mName.C_Str(), y->mName.C_Str());
  ASSERT_EQ(x->mNumChannels, y->mNumChannels);
  for (unsigned c = 0; c < x->mNumChannels; ++c) {
    const std::string name = x->mChannels[c]->mNodeName.C_Str();
    ASSERT_EQ(name, y->mChannels[c]->mNodeName.C_Str());
    if (fixed.count(name)) {
      EXPECT_EQ(y->mChannels[c]->mNumRotationKeys, 317u) << name;
      continue;
    }
    ASSERT_EQ(x->mChannels[c]->mNumRotationKeys, y->mChannels[c]->mNumRotationKeys) << name;
    ASSERT_EQ(x->mChannels[c]->mNumPositionKeys, y->mChannels[c]->mNumPositionKeys) << name;
    for (unsigned k = 0; k < x->mChannels[c]->mNumRotationKeys; ++k)
      ASSERT_TRUE(x->mChannels[c]->mRotationKeys[k].mValue ==
                  y->mChannels[c]->mRotationKeys[k].mValue)
          << name;
  }
  // Running again gives the same bytes.
  const auto again = dir / "again.fbx";
  const auto r2 = run_ikfix("run " + quoted(input) + " --terrain " +
                            quoted(bundled("terrain/stairs.obj")) + " -o " + quoted(again));
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  EXPECT_TRUE(io::read_file(again) == io::read_file(run.out));
  std::filesystem::remove_all(dir);
}

TEST(FbxRunE2E, EveryHumanoidFileRunsOnStairsAndFlat) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("fbx_all");
  for (const char* name :
       {"cmu_01_01_forward_jumps_skeleton.fbx", "cmu_09_11_run_skeleton.fbx",
        "cmu_55_01_dance_whirl_skeleton.fbx", "kenney_character_maya_7700.fbx"}) {
    for (const char* terrain : {"stairs", "flat"}) {
      SCOPED_TRACE(std::string(name) + " on " + terrain);
      const auto input = fbx_clip(name);
      const RunResult run = run_fbx(dir, input, terrain);
      if (run.report.is_null()) continue;
      const PosedClip before = pose_clip(input);
      const PosedClip after = pose_clip(run.out);
      ASSERT_EQ(before.loaded.skeleton.names, after.loaded.skeleton.names);
      const int pelvis =
          after.loaded.skeleton.find(run.report["legs"]["pelvis"].get<std::string>());
      EXPECT_LE(bone_length_change(before, after, pelvis), 1e-6);
      AssimpFbx ib(run.out);
      ASSERT_NE(ib.scene(), nullptr) << ib.error();
      EXPECT_EQ(ib.scene()->mNumAnimations, AssimpFbx(input).scene()->mNumAnimations);
    }
  }
  std::filesystem::remove_all(dir);
}

// BVH <-> FBX twin: the CMU BVH and the Blender-made FBX of the same take are not exact twins
// (Blender simplified the FBX curves: feet differ by up to 5 mm, 6 cm on frame 0), so the test
// makes an exact twin: the FBX file with every joint rewritten, through ikfix's own patch writer,
// to the BVH's motion (each joint's world rotation is the BVH joint's times a constant that maps
// the FBX bone onto the BVH bone). Fixed onto the same terrain, both must put the feet in the
// same places on every frame.
TEST(FbxRunE2E, BvhAndFbxTwinsAreFixedAlike) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("fbx_twin");
  const auto bvh = shared_data_dir() / "anim" / "bvh" / "cmu_01_01_forward_jumps.bvh";
  const io::LoadedClip a = io::load_clip(bvh);
  const io::LoadedClip b = io::load_clip(fbx_clip("cmu_01_01_forward_jumps_skeleton.fbx"));
  ASSERT_EQ(a.clip.frame_count, b.clip.frame_count);
  const auto& sa = a.skeleton;
  const auto& sb = b.skeleton;
  const int nb = sb.joint_count();
  std::vector<int> in_a(nb, -1);
  for (int j = 0; j < nb; ++j) in_a[j] = sa.find(sb.names[j]);
  // Per FBX joint: the constant C with R_fbx = R_bvh * C, from its child bone's direction.
  std::vector<core::Quat> c_of(nb, core::identity_quat());
  std::vector<core::Transform> wa0(sa.joint_count()), wb0(nb);
  core::forward_kinematics(sa, a.clip.frame(0), a.space.to_world(), wa0);
  core::forward_kinematics(sb, b.clip.frame(0), b.space.to_world(), wb0);
  for (int j = 0; j < nb; ++j) {
    if (in_a[j] < 0) continue;
    c_of[j] = glm::normalize(glm::inverse(wa0[in_a[j]].rotation) * wb0[j].rotation);
    for (int c = 0; c < nb; ++c) {
      if (sb.parents[c] != j || in_a[c] < 0) continue;
      const core::Vec3 da = sa.rest[in_a[c]].translation, db = sb.rest[c].translation;
      if (glm::length(da) < 1e-6 || glm::length(db) < 1e-6) continue;
      c_of[j] = core::rotation_between(glm::normalize(db), glm::normalize(da));
      break;
    }
  }
  core::Clip twin = b.clip;
  std::vector<core::Transform> wa(sa.joint_count()), wb(nb);
  const int hips = sb.find("Hips");
  for (int f = 0; f < twin.frame_count; ++f) {
    core::forward_kinematics(sa, a.clip.frame(f), a.space.to_world(), wa);
    for (int j = 0; j < nb; ++j) {
      const int p = sb.parents[j];
      const core::Transform parent = p < 0 ? b.space.to_world() : wb[p];
      core::Transform& local = twin.at(f, j);
      if (in_a[j] >= 0) {
        local.rotation =
            glm::normalize(glm::inverse(parent.rotation) * (wa[in_a[j]].rotation * c_of[j]));
        if (j == hips)
          local.translation =
              (glm::inverse(parent.rotation) * (wa[in_a[j]].translation - parent.translation)) /
              parent.scale;
      }
      wb[j] = core::compose(parent, local);
    }
  }
  std::vector<char> changed(nb, 0);
  for (int j = 0; j < nb; ++j) changed[j] = in_a[j] >= 0;
  const auto twin_path = dir / "twin.fbx";
  io::save_clip(twin_path, b, twin, changed);

  const char* feet[] = {"LeftFoot", "RightFoot", "LeftToeBase", "RightToeBase"};
  auto worst_feet = [&](const PosedClip& x, const PosedClip& y) {
    double worst = 0;
    for (int f = 0; f < x.loaded.clip.frame_count; ++f)
      for (const char* foot : feet)
        worst = std::max(worst, glm::length(x.at(f, x.loaded.skeleton.find(foot)) -
                                            y.at(f, y.loaded.skeleton.find(foot))));
    return worst;
  };
  EXPECT_LE(worst_feet(pose_clip(bvh), pose_clip(twin_path)), 1e-4) << "the twin is not a twin";
  // Flat ground only: on the stairs the fixed twins' feet have differed by up to 109 mm since the
  // fix places plants and keeps every foot point out (issue 16), steps that read each file's own
  // toe tips (the BVH End Site, the FBX "_end" leaf) rather than the joints this test matches; why
  // they decide so differently there is not yet explained (tests/bench/README.md, issue 16).
  for (const char* terrain : {"flat"}) {
    SCOPED_TRACE(terrain);
    const auto out_bvh = dir / (std::string("fixed.") + terrain + ".bvh");
    const auto r1 = run_ikfix("run " + quoted(bvh) + " --terrain " +
                              quoted(bundled(std::string("terrain/") + terrain + ".obj")) + " -o " +
                              quoted(out_bvh));
    ASSERT_EQ(r1.exit_code, 0) << r1.output;
    const RunResult r2 = run_fbx(dir, twin_path, terrain);
    ASSERT_FALSE(r2.report.is_null());
    const double worst = worst_feet(pose_clip(out_bvh), pose_clip(r2.out));
    EXPECT_LE(worst, 1e-3) << "feet of the fixed twins differ by " << worst * 1000 << " mm";
    std::printf("  twin on %s: feet within %.4f mm on every frame\n", terrain, worst * 1000);
  }
  std::filesystem::remove_all(dir);
}

TEST(FbxRunE2E, BadInputsExitTwoWithOneLineAndNoOutput) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("fbx_bad");
  // A damaged copy of a real file and a file that is not FBX at all.
  const std::string good = io::read_file(fbx_clip("cmu_09_11_run_skeleton.fbx"));
  io::write_file_atomic(dir / "truncated.fbx", std::string_view(good).substr(0, good.size() / 2));
  io::write_file_atomic(dir / "garbage.fbx", "this is not a 3D file\n");
  struct Case {
    std::filesystem::path path;
    const char* says;
  };
  const Case cases[] = {
      {shared_data_dir() / "anim" / "unsupported" / "maya_humanik_rig_6100_binary.fbx",
       "FBX 6.1 is not supported"},
      {shared_data_dir() / "anim" / "unsupported" / "maya_humanik_character_6100_ascii.fbx",
       "FBX 6.1 is not supported"},
      {fbx_clip("spider_static_meshes.fbx"), "no skeleton"},
      {fbx_clip("maya_humanik_character_7500_ascii.fbx"), "no animation"},
      {fbx_clip("slime_maya_7500_ascii.fbx"), "no two legs"},
      {dir / "truncated.fbx", "truncated"},
      {dir / "garbage.fbx", "not an FBX file"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path.filename().string());
    const auto out = dir / ("out_" + c.path.filename().string());
    const auto r = run_ikfix("run " + quoted(c.path) + " --terrain " +
                             quoted(bundled("terrain/stairs.obj")) + " -o " + quoted(out));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    std::string text = r.output;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    EXPECT_EQ(text.find('\n'), std::string::npos) << "more than one line: " << r.output;
    EXPECT_NE(text.find(c.path.filename().string()), std::string::npos) << text;
    EXPECT_NE(text.find(c.says), std::string::npos) << text;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test
