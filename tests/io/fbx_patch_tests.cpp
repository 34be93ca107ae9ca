// The FBX patch writer: edited joints read back as intended (our reader and Assimp), every
// other object keeps its bytes, Euler keys are continuous in each joint's own order, missing
// curves are created, and what cannot be written exactly is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/fk.hpp"
#include "io/clip_io.hpp"
#include "io/error.hpp"
#include "io/fbx/fbx.hpp"
#include "io/fbx/patch.hpp"
#include "io/fbx/verify.hpp"
#include "io/fbx_test_support.hpp"
#include "io/file_util.hpp"
#include "test_data.hpp"
#include "test_scratch.hpp"

namespace fbx = ikfix::io::fbx;
namespace core = ikfix::core;
using ikfix::io::InputError;
using ikfix::io::LoadedClip;

namespace {

std::filesystem::path fbx_file(const std::string& name) {
  return ikfix::test::shared_data_dir() / "anim" / "fbx" / name;
}

std::filesystem::path temp_file(const std::string& name) { return ikfix::test::scratch_path(name); }

// The stored bytes of a property (binary payload or ASCII text), or its replacement's marker.
std::string_view source_of(const fbx::Document& doc, const fbx::Property& p) {
  return std::string_view(doc.data).substr(p.offset, p.size);
}

// True when `a` (in doc_a) and `b` (in doc_b) have the same names, property bytes and children.
bool same_node(const fbx::Document& doc_a, const fbx::Node& a, const fbx::Document& doc_b,
               const fbx::Node& b) {
  if (a.name != b.name || a.props.size() != b.props.size() ||
      a.children.size() != b.children.size())
    return false;
  for (std::size_t k = 0; k < a.props.size(); ++k)
    if (a.props[k].type != b.props[k].type ||
        source_of(doc_a, a.props[k]) != source_of(doc_b, b.props[k]))
      return false;
  for (std::size_t k = 0; k < a.children.size(); ++k)
    if (!same_node(doc_a, a.children[k], doc_b, b.children[k])) return false;
  return true;
}

// A rotation that varies smoothly over the clip, up to `degrees`.
core::Quat wobble(int frame, double degrees, const core::Vec3& axis) {
  return core::axis_angle(glm::normalize(axis),
                          degrees * core::kPi / 180.0 * std::sin(0.05 * frame));
}

struct Edit {
  LoadedClip loaded;
  core::Clip edited;
  std::vector<char> changed;
};

// Turns `joints` by a wobble and lifts `translated` (if any) by a fraction of its offset.
Edit make_edit(const std::filesystem::path& path, const std::vector<std::string>& joints,
               const std::string& translated = "", const std::string& take = "") {
  Edit e;
  ikfix::io::ClipLoadOptions options;
  if (!take.empty()) options.take = take;
  e.loaded = ikfix::io::load_clip(path, options);
  e.edited = e.loaded.clip;
  e.changed.assign(e.loaded.skeleton.joint_count(), 0);
  for (const std::string& name : joints) {
    const int j = e.loaded.skeleton.find(name);
    EXPECT_GE(j, 0) << name;
    if (j < 0) continue;
    e.changed[j] = 1;
    for (int f = 0; f < e.edited.frame_count; ++f)
      e.edited.at(f, j).rotation =
          glm::normalize(wobble(f, 25.0, core::Vec3(1, 0.3, -0.2)) * e.edited.at(f, j).rotation);
  }
  if (!translated.empty()) {
    const int j = e.loaded.skeleton.find(translated);
    EXPECT_GE(j, 0) << translated;
    e.changed[j] = 1;
    for (int f = 0; f < e.edited.frame_count; ++f)
      e.edited.at(f, j).translation += core::Vec3(0.0, 0.5 * std::sin(0.03 * f), 0.1);
  }
  return e;
}

// Largest differences between a re-read take and the intended clip, over all joints.
void expect_reads_back(const std::filesystem::path& out, const Edit& e, double rotation_deg,
                       double relative_position) {
  ikfix::io::ClipLoadOptions options;
  options.take = std::to_string(e.loaded.take_index);
  const LoadedClip again = ikfix::io::load_clip(out, options);
  ASSERT_EQ(again.skeleton.names, e.loaded.skeleton.names);
  ASSERT_EQ(again.clip.frame_count, e.edited.frame_count);
  double max_rot = 0, max_pos = 0, size = 0;
  for (int f = 0; f < e.edited.frame_count; ++f)
    for (int j = 0; j < e.edited.joint_count; ++j) {
      const core::Transform& a = again.clip.at(f, j);
      const core::Transform& b = e.edited.at(f, j);
      max_rot = std::max(max_rot, ikfix::test::angle_deg(a.rotation, b.rotation));
      max_pos = std::max(max_pos, glm::length(a.translation - b.translation));
      size = std::max(size, glm::length(b.translation));
      if (!e.changed[j]) {
        // Untouched joints sample to exactly the same values.
        EXPECT_EQ(a.rotation, e.loaded.clip.at(f, j).rotation)
            << e.loaded.skeleton.names[j] << " frame " << f;
        EXPECT_EQ(a.translation, e.loaded.clip.at(f, j).translation)
            << e.loaded.skeleton.names[j] << " frame " << f;
      }
    }
  EXPECT_LE(max_rot, rotation_deg);
  EXPECT_LE(max_pos, relative_position * (1.0 + size));
}

// Objects that differ between the input and the output (by index; created objects excluded).
std::set<std::size_t> changed_objects(const fbx::Document& in, const fbx::Document& out) {
  const fbx::Node* a = in.root.child("Objects");
  const fbx::Node* b = out.root.child("Objects");
  std::set<std::size_t> diff;
  for (std::size_t k = 0; k < a->children.size(); ++k)
    if (!same_node(in, a->children[k], out, b->children[k])) diff.insert(k);
  return diff;
}

}  // namespace

TEST(FbxPatch, EditedLegsReadBackAndEverythingElseKeepsItsBytes) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto in = fbx_file("cmu_07_01_walk_skeleton.fbx");
  const Edit e = make_edit(in, {"LeftUpLeg", "LeftLeg", "LeftFoot"}, "Hips");
  const auto out = temp_file("walk_patched.fbx");
  ikfix::io::save_clip(out, e.loaded, e.edited, e.changed);
  expect_reads_back(out, e, 1e-4, 1e-6);

  const fbx::Document a = fbx::read_file(in);
  const fbx::Document b = fbx::read_file(out);
  // Same top-level layout; only Objects changed, and only the edited joints' curves in it.
  ASSERT_EQ(a.root.children.size(), b.root.children.size());
  for (std::size_t k = 0; k < a.root.children.size(); ++k) {
    if (a.root.children[k].name != "Objects") {
      EXPECT_TRUE(same_node(a, a.root.children[k], b, b.root.children[k]))
          << a.root.children[k].name;
    }
  }
  const fbx::Scene scene = fbx::read_scene(a);
  std::set<std::size_t> expected;  // the curves of the edited joints' R (and Hips' T) curve nodes
  for (const fbx::CurveNode& cn : scene.curve_nodes) {
    if (cn.model < 0) continue;
    const std::string& name = scene.models[cn.model].name;
    const bool rot =
        cn.channel == fbx::Channel::rotation &&
        (name == "LeftUpLeg" || name == "LeftLeg" || name == "LeftFoot" || name == "Hips");
    const bool trans = cn.channel == fbx::Channel::translation && name == "Hips";
    if (rot || trans)
      for (int c : cn.curves)
        if (c >= 0) expected.insert(scene.curves[c].object);
  }
  EXPECT_EQ(expected.size(), 15u);
  EXPECT_EQ(changed_objects(a, b), expected);
  // Same number of objects: nothing created for joints that already had curves.
  EXPECT_EQ(a.root.child("Objects")->children.size(), b.root.child("Objects")->children.size());

  // Assimp reads the same structure: nodes, the take, channels and (for untouched joints) keys.
  ikfix::test::AssimpFbx before(in), after(out);
  ASSERT_NE(after.scene(), nullptr) << after.error();
  ASSERT_EQ(before.scene()->mNumAnimations, after.scene()->mNumAnimations);
  const aiAnimation* x = before.scene()->mAnimations[0];
  const aiAnimation* y = after.scene()->mAnimations[0];
  ASSERT_EQ(x->mNumChannels, y->mNumChannels);
  for (unsigned c = 0; c < x->mNumChannels; ++c) {
    const std::string name = x->mChannels[c]->mNodeName.C_Str();
    EXPECT_EQ(name, y->mChannels[c]->mNodeName.C_Str());
    const bool edited =
        name == "LeftUpLeg" || name == "LeftLeg" || name == "LeftFoot" || name == "Hips";
    if (edited) {
      EXPECT_EQ(y->mChannels[c]->mNumRotationKeys, static_cast<unsigned>(e.edited.frame_count))
          << name;
      continue;
    }
    ASSERT_EQ(x->mChannels[c]->mNumRotationKeys, y->mChannels[c]->mNumRotationKeys) << name;
    for (unsigned k = 0; k < x->mChannels[c]->mNumRotationKeys; ++k)
      EXPECT_TRUE(x->mChannels[c]->mRotationKeys[k].mValue ==
                  y->mChannels[c]->mRotationKeys[k].mValue)
          << name;
  }
}

TEST(FbxPatch, EulerKeysAreContinuousInTheJointsOwnOrder) {
  IKFIX_REQUIRE_SHARED_DATA();
  // A full turn about the joint's local axes over the clip: the written angles must unwrap.
  const auto in = fbx_file("cmu_09_11_run_skeleton.fbx");
  Edit e = make_edit(in, {});
  const int j = e.loaded.skeleton.find("RightLeg");
  ASSERT_GE(j, 0);
  e.changed[j] = 1;
  for (int f = 0; f < e.edited.frame_count; ++f)
    e.edited.at(f, j).rotation =
        glm::normalize(core::axis_angle(glm::normalize(core::Vec3(0.2, 1, 0.1)),
                                        2.0 * core::kPi * f / (e.edited.frame_count - 1)) *
                       e.edited.at(f, j).rotation);
  const auto out = temp_file("run_turn.fbx");
  ikfix::io::save_clip(out, e.loaded, e.edited, e.changed);
  expect_reads_back(out, e, 1e-4, 1e-6);
  // The KeyValueFloat arrays of RightLeg's rotation: no jump between frames.
  fbx::Document doc = fbx::read_file(out);
  fbx::Scene scene = fbx::read_scene(doc);
  const int model = scene.model_by_id.begin()->second;  // any; find RightLeg below
  (void)model;
  int right_leg = -1;
  for (std::size_t m = 0; m < scene.models.size(); ++m)
    if (scene.models[m].name == "RightLeg") right_leg = static_cast<int>(m);
  ASSERT_GE(right_leg, 0);
  const int layer = scene.takes[0].layers[0];
  bool found = false;
  for (const fbx::CurveNode& cn : scene.curve_nodes) {
    if (cn.model != right_leg || cn.channel != fbx::Channel::rotation || cn.layer != layer)
      continue;
    found = true;
    std::vector<float> v[3];
    for (int a = 0; a < 3; ++a) {
      ASSERT_GE(cn.curves[a], 0);
      fbx::decode_curve(doc, scene, cn.curves[a]);
      v[a] = scene.curves[cn.curves[a]].keys->values;
      ASSERT_EQ(v[a].size(), static_cast<std::size_t>(e.edited.frame_count));
    }
    // Each triple is the equivalent nearest the previous one: no angle wraps, and the other
    // Euler branch (x + 180, 180 - y, z + 180 for XYZ) is never closer.
    for (std::size_t k = 1; k < v[0].size(); ++k) {
      double d_same = 0, d_other = 0;
      const double other[3] = {v[0][k] + 180.0, 180.0 - v[1][k], v[2][k] + 180.0};
      for (int a = 0; a < 3; ++a) {
        EXPECT_LT(std::abs(v[a][k] - v[a][k - 1]), 180.0f) << "key " << k;
        d_same += std::pow(v[a][k] - v[a][k - 1], 2);
        d_other += std::pow(std::remainder(other[a] - v[a][k - 1], 360.0), 2);
      }
      EXPECT_LE(d_same, d_other + 1e-3) << "key " << k;
    }
  }
  EXPECT_TRUE(found);
}

TEST(FbxPatch, AsciiPreRotationJointsAreWrittenAsText) {
  IKFIX_REQUIRE_SHARED_DATA();
  // joint1 has PreRotation (0, 0, 90): the written Lcl Rotation must take it out.
  const auto in = fbx_file("sausage_3takes_maya_7500_ascii.fbx");
  const Edit e = make_edit(in, {"joint1", "joint2"}, "", "spin");
  const auto out = temp_file("sausage_spin.fbx");
  ikfix::io::save_clip(out, e.loaded, e.edited, e.changed);
  expect_reads_back(out, e, 1e-4, 1e-6);
  // The other two takes are untouched.
  for (const char* take : {"wiggle", "deform"}) {
    ikfix::io::ClipLoadOptions options;
    options.take = take;
    const LoadedClip a = ikfix::io::load_clip(in, options);
    const LoadedClip b = ikfix::io::load_clip(out, options);
    for (std::size_t k = 0; k < a.clip.locals.size(); ++k) {
      EXPECT_EQ(a.clip.locals[k].rotation, b.clip.locals[k].rotation);
      EXPECT_EQ(a.clip.locals[k].translation, b.clip.locals[k].translation);
    }
  }
  // Outside the rewritten key arrays the text is the same, line for line.
  const std::string a = ikfix::io::read_file(in);
  const std::string b = ikfix::io::read_file(out);
  auto lines = [](const std::string& s) {
    std::vector<std::string> v;
    std::size_t start = 0;
    for (std::size_t k = 0; k <= s.size(); ++k)
      if (k == s.size() || s[k] == '\n') {
        v.push_back(s.substr(start, k - start));
        start = k + 1;
      }
    return v;
  };
  const auto la = lines(a), lb = lines(b);
  ASSERT_EQ(la.size(), lb.size());
  int differing = 0;
  for (std::size_t k = 0; k < la.size(); ++k)
    if (la[k] != lb[k]) {
      ++differing;
      const std::string& line = lb[k];
      const bool key_line =
          line.find("a: ") != std::string::npos || line.find("*") != std::string::npos;
      EXPECT_TRUE(key_line) << "line " << k + 1 << ": " << line.substr(0, 80);
    }
  EXPECT_GT(differing, 0);
  EXPECT_LE(differing,
            2 * 3 * 5 * 2);  // 2 joints x 3 curves x 5 arrays x (size line + values line)
}

TEST(FbxPatch, MissingCurvesAreCreatedAndCounted) {
  IKFIX_REQUIRE_SHARED_DATA();
  // Blender does not animate its "_end" leaf bones: rotating one needs a new curve node and
  // three curves, connected to the Model and the take's layer.
  const auto in = fbx_file("cmu_07_01_walk_skeleton.fbx");
  const Edit e = make_edit(in, {"LeftToeBase_end"});
  const fbx::Document a = fbx::read_file(in);
  const fbx::Scene sa = fbx::read_scene(a);
  int end_model = -1;
  for (std::size_t m = 0; m < sa.models.size(); ++m)
    if (sa.models[m].name == "LeftToeBase_end") end_model = static_cast<int>(m);
  ASSERT_GE(end_model, 0);
  if (fbx::curve_node_of(sa, end_model, fbx::Channel::rotation, sa.takes[0].layers[0]) >= 0)
    GTEST_SKIP() << "LeftToeBase_end is animated in this file";
  const auto out = temp_file("walk_new_curves.fbx");
  ikfix::io::save_clip(out, e.loaded, e.edited, e.changed);
  expect_reads_back(out, e, 1e-4, 1e-6);
  const fbx::Document b = fbx::read_file(out);
  EXPECT_EQ(b.root.child("Objects")->children.size(), a.root.child("Objects")->children.size() + 4);
  EXPECT_EQ(b.root.child("Connections")->children.size(),
            a.root.child("Connections")->children.size() + 5);
  auto count_of = [](const fbx::Document& d, const std::string& type) -> std::int64_t {
    for (const fbx::Node& t : d.root.child("Definitions")->children)
      if (t.name == "ObjectType" && fbx::as_string(d, t.props[0]) == type)
        return fbx::as_int(d, t.child("Count")->props[0]);
    return -1;
  };
  EXPECT_EQ(count_of(b, "AnimationCurve"), count_of(a, "AnimationCurve") + 3);
  EXPECT_EQ(count_of(b, "AnimationCurveNode"), count_of(a, "AnimationCurveNode") + 1);
  EXPECT_EQ(fbx::as_int(b, b.root.child("Definitions")->child("Count")->props[0]),
            fbx::as_int(a, a.root.child("Definitions")->child("Count")->props[0]) + 4);
}

TEST(FbxPatch, ChangedScaleIsRefusedAndNothingIsWritten) {
  IKFIX_REQUIRE_SHARED_DATA();
  Edit e = make_edit(fbx_file("cmu_07_01_walk_skeleton.fbx"), {"LeftLeg"});
  const int j = e.loaded.skeleton.find("LeftLeg");
  e.edited.at(5, j).scale = core::Vec3(1.5);
  const auto out = temp_file("walk_scaled.fbx");
  std::filesystem::remove(out);
  try {
    ikfix::io::save_clip(out, e.loaded, e.edited, e.changed);
    ADD_FAILURE() << "a scale change was written";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("changed scale at frame 5"), std::string::npos)
        << err.what();
  }
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(FbxPatch, AssimpCheckCatchesAWrongPatch) {
  IKFIX_REQUIRE_SHARED_DATA();
  // Patch a take, then claim a different intended pose: the check must fail, naming the joint.
  Edit e = make_edit(fbx_file("cmu_07_01_walk_skeleton.fbx"), {"RightFoot"});
  auto cd = std::make_shared<fbx::ClipDocument>(
      *static_cast<const fbx::ClipDocument*>(e.loaded.document.get()));
  std::vector<fbx::PatchedTake> patched{fbx::patch_take(*cd, 0, e.edited, e.changed)};
  patched[0].space = e.loaded.space;
  const std::string bytes = fbx::write(cd->doc);
  const fbx::VerifyReport ok = fbx::verify_with_assimp(bytes, "x.fbx", *cd, patched);
  EXPECT_GT(ok.keys_checked, 300);
  EXPECT_LT(ok.max_position_error_m, 1e-5);
  EXPECT_LT(ok.max_rotation_error_deg, 1e-3);
  core::Clip wrong = e.edited;
  const int j = e.loaded.skeleton.find("RightFoot");
  wrong.at(100, j).rotation =
      glm::normalize(core::axis_angle(core::Vec3(0, 1, 0), 0.01) * wrong.at(100, j).rotation);
  patched[0].edited = &wrong;
  try {
    fbx::verify_with_assimp(bytes, "x.fbx", *cd, patched);
    ADD_FAILURE() << "a 0.57 degree mismatch passed the check";
  } catch (const InputError& err) {
    const std::string what = err.what();
    EXPECT_NE(what.find("'RightFoot' frame 100"), std::string::npos) << what;
  }
}

// The check every save runs (our reader): the same patch passes it with the same errors as
// Assimp's, a wrong intended pose fails it naming joint and frame, and so do damaged bytes.
TEST(FbxPatch, ReadbackCheckAgreesWithAssimpAndCatchesAWrongPatch) {
  IKFIX_REQUIRE_SHARED_DATA();
  Edit e = make_edit(fbx_file("cmu_07_01_walk_skeleton.fbx"), {"RightFoot"}, "Hips");
  auto cd = std::make_shared<fbx::ClipDocument>(
      *static_cast<const fbx::ClipDocument*>(e.loaded.document.get()));
  std::vector<fbx::PatchedTake> patched{fbx::patch_take(*cd, 0, e.edited, e.changed)};
  patched[0].space = e.loaded.space;
  const std::string bytes = fbx::write(cd->doc);
  const fbx::VerifyReport ours = fbx::verify_readback(bytes, "x.fbx", *cd, patched);
  const fbx::VerifyReport assimp = fbx::verify_with_assimp(bytes, "x.fbx", *cd, patched);
  EXPECT_EQ(ours.keys_checked, assimp.keys_checked);
  EXPECT_LT(ours.max_position_error_m, 1e-5);
  EXPECT_LT(ours.max_rotation_error_deg, 1e-3);
  EXPECT_NEAR(ours.max_position_error_m, assimp.max_position_error_m, 1e-5);

  core::Clip wrong = e.edited;
  const int j = e.loaded.skeleton.find("RightFoot");
  wrong.at(100, j).rotation =
      glm::normalize(core::axis_angle(core::Vec3(0, 1, 0), 0.01) * wrong.at(100, j).rotation);
  std::vector<fbx::PatchedTake> claimed = patched;
  claimed[0].edited = &wrong;
  try {
    fbx::verify_readback(bytes, "x.fbx", *cd, claimed);
    ADD_FAILURE() << "a 0.57 degree mismatch passed the check";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("'RightFoot' frame 100"), std::string::npos)
        << err.what();
  }
  // A pelvis off at one frame (at least 1 mm: the Hips sit under scaled group nodes).
  wrong = e.edited;
  wrong.at(7, e.loaded.skeleton.find("Hips")).translation.x +=
      0.001 / e.loaded.space.metres_per_unit;
  claimed[0].edited = &wrong;
  EXPECT_THROW(fbx::verify_readback(bytes, "x.fbx", *cd, claimed), InputError);
  // Bytes cut short do not parse: the check names the file.
  try {
    fbx::verify_readback(bytes.substr(0, bytes.size() / 2), "x.fbx", *cd, patched);
    ADD_FAILURE() << "a truncated file passed the check";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("x.fbx"), std::string::npos) << err.what();
  }
}

TEST(FbxPatch, SeveralTakesOfOneFileAreWrittenTogether) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto in = fbx_file("sausage_3takes_maya_7500_ascii.fbx");
  const Edit wiggle = make_edit(in, {"joint3"}, "", "wiggle");
  const Edit spin = make_edit(in, {"joint2"}, "", "spin");
  const auto out = temp_file("sausage_two_takes.fbx");
  const ikfix::io::TakeEdit edits[2] = {{&wiggle.loaded, &wiggle.edited, wiggle.changed},
                                        {&spin.loaded, &spin.edited, spin.changed}};
  ikfix::io::save_takes(out, edits);
  expect_reads_back(out, wiggle, 1e-4, 1e-6);
  expect_reads_back(out, spin, 1e-4, 1e-6);
}

TEST(FbxPatch, MissingCurvesAreCreatedInAsciiFilesToo) {
  IKFIX_REQUIRE_SHARED_DATA();
  // 3ds Max file: Bone005 has no rotation animation and Bone002 no translation animation.
  const auto in = fbx_file("max_skin_zup_7500_ascii.fbx");
  const Edit e = make_edit(in, {"Bone005", "Bone003"}, "Bone002");
  const auto out = temp_file("max_new_curves.fbx");
  ikfix::io::save_clip(out, e.loaded, e.edited, e.changed);  // includes the Assimp check
  expect_reads_back(out, e, 1e-4, 1e-6);
  const fbx::Document a = fbx::read_file(in);
  const fbx::Document b = fbx::read_file(out);
  EXPECT_EQ(b.encoding, fbx::Encoding::ascii);
  // Bone005 R and Bone002 T: two curve nodes and six curves.
  EXPECT_EQ(b.root.child("Objects")->children.size(), a.root.child("Objects")->children.size() + 8);
  // The text before the Objects section is untouched except the Definitions counts.
  const std::string ta = ikfix::io::read_file(in), tb = ikfix::io::read_file(out);
  const std::size_t defs = ta.find("Definitions:");
  ASSERT_NE(defs, std::string::npos);
  EXPECT_EQ(ta.compare(0, defs, tb, 0, defs), 0);
}

TEST(FbxPatch, RotationPivotsAndOffsetsAreReadAndWrittenExactly) {
  IKFIX_REQUIRE_SHARED_DATA();
  // No corpus leg has pivots, so give one to a CMU leg: RotationPivot, RotationOffset,
  // ScalingPivot and a PostRotation on LeftLeg. Reading must agree with Assimp (which bakes
  // pivots when FBX pivots are not preserved), and a rotation edit must land where the core
  // put the joint: the writer compensates the pivot with Lcl Translation keys.
  fbx::Document doc = fbx::read_file(fbx_file("cmu_07_01_walk_skeleton.fbx"));
  fbx::Node* objects = doc.root.child("Objects");
  bool found = false;
  for (fbx::Node& o : objects->children) {
    if (o.name != "Model" || fbx::object_name(fbx::as_string(doc, o.props[1])) != "LeftLeg")
      continue;
    fbx::Node* props = o.child("Properties70");
    ASSERT_NE(props, nullptr);
    auto vector_p = [&](const char* name, double x, double y, double z) {
      props->children.push_back(
          fbx::make_node("P", {std::string(name), std::string("Vector3D"), std::string("Vector"),
                               std::string(), x, y, z}));
    };
    vector_p("RotationPivot", 0.3, 1.2, -0.4);
    vector_p("RotationOffset", 0.1, -0.2, 0.05);
    vector_p("ScalingPivot", -0.5, 0.25, 0.0);
    vector_p("PostRotation", 5.0, -10.0, 15.0);
    found = true;
  }
  ASSERT_TRUE(found);
  const auto pivoted = temp_file("walk_pivots.fbx");
  fbx::save(pivoted, doc);

  // Reading: LeftLeg's local transform equals the FBX formula evaluated with 4x4 matrices,
  // T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S * Sp^-1. (Assimp 5.2.5 is no
  // reference here: with pivots it moves the animation to "_$AssimpFbx$_" channels whose
  // nodes it does not create when pivots are not preserved.)
  const LoadedClip lc = ikfix::io::load_clip(pivoted);
  auto cd = std::make_shared<fbx::ClipDocument>(
      *static_cast<const fbx::ClipDocument*>(lc.document.get()));
  const int leg = lc.skeleton.find("LeftLeg");
  const int model = cd->joint_models[leg];
  const fbx::ModelTransform& mt = cd->scene.models[model].transform;
  const int layer = fbx::take_layer(*cd, 0);
  const fbx::TakeTiming timing = fbx::take_timing(*cd, 0);
  auto translate = [](const glm::dvec3& v) { return glm::translate(glm::dmat4(1.0), v); };
  auto rotate = [](const glm::dvec3& deg, fbx::RotationOrder order) {
    return glm::mat4_cast(fbx::euler_to_quat(deg, order));
  };
  double worst = 0;
  for (int f : {0, 40, 120, 316}) {
    const std::int64_t t = timing.time_of(f);
    const glm::dvec3 T = fbx::channel_value(*cd, model, fbx::Channel::translation, layer, t);
    const glm::dvec3 R = fbx::channel_value(*cd, model, fbx::Channel::rotation, layer, t);
    const glm::dvec3 S = fbx::channel_value(*cd, model, fbx::Channel::scaling, layer, t);
    const glm::dmat4 m =
        translate(T) * translate(mt.rotation_offset) * translate(mt.rotation_pivot) *
        rotate(mt.pre_rotation, fbx::RotationOrder::xyz) * rotate(R, mt.rotation_order) *
        glm::inverse(rotate(mt.post_rotation, fbx::RotationOrder::xyz)) *
        translate(-mt.rotation_pivot) * translate(mt.scaling_offset) * translate(mt.scaling_pivot) *
        glm::scale(glm::dmat4(1.0), S) * translate(-mt.scaling_pivot);
    const core::Transform& ours = lc.clip.at(f, leg);
    const glm::dmat4 o = translate(ours.translation) * glm::mat4_cast(ours.rotation) *
                         glm::scale(glm::dmat4(1.0), ours.scale);
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) worst = std::max(worst, std::abs(m[c][r] - o[c][r]));
  }
  EXPECT_LT(worst, 1e-9);

  // Writing: rotate LeftLeg; its translation keys absorb the pivot so the edit is exact.
  const Edit e = make_edit(pivoted, {"LeftLeg"});
  const auto out = temp_file("walk_pivots_fixed.fbx");
  ikfix::io::save_clip(out, e.loaded, e.edited, e.changed);  // includes the Assimp check
  expect_reads_back(out, e, 1e-4, 1e-6);
}
