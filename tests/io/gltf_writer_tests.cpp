// glTF patch writer: unchanged input -> identical bytes; edits land on the edited joints only,
// everything else (samplers, accessors, buffer bytes, JSON text) stays as it was.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "core/math.hpp"
#include "gltf_test_support.hpp"
#include "io/clip_io.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/gltf/gltf.hpp"
#include "io/gltf/json_text.hpp"
#include "test_data.hpp"
#include "test_scratch.hpp"

namespace {

namespace fs = std::filesystem;
namespace gltf = ikfix::io::gltf;
namespace jt = ikfix::io::gltf::json_text;
using ikfix::core::Quat;
using ikfix::core::Vec3;
using ikfix::io::LoadedClip;

fs::path gltf_dir() { return ikfix::test::shared_data_dir() / "anim" / "gltf"; }

fs::path temp_dir(const std::string& name) { return ikfix::test::scratch_dir("gltfw_" + name); }

const gltf::TakeLayout& layout_of(const LoadedClip& c) {
  return *static_cast<const gltf::TakeLayout*>(c.document.get());
}
const gltf::Document& doc_of(const LoadedClip& c) { return *layout_of(c).document; }

double angle_deg(const Quat& a, const Quat& b) {
  return ikfix::core::rotation_angle(glm::normalize(glm::conjugate(a) * b)) * 180.0 /
         ikfix::core::kPi;
}

// Turns the named joints by a frame-dependent rotation; moves `translated` joints.
struct Edit {
  ikfix::core::Clip clip;
  std::vector<char> changed;
};
Edit edit_joints(const LoadedClip& c, const std::vector<std::string>& rotated,
                 const std::vector<std::string>& translated = {}) {
  Edit e{c.clip, std::vector<char>(c.skeleton.joint_count(), 0)};
  for (const auto& name : rotated) {
    const int j = c.skeleton.find(name);
    EXPECT_GE(j, 0) << name;
    e.changed[j] = 1;
    for (int f = 0; f < e.clip.frame_count; ++f)
      e.clip.at(f, j).rotation =
          e.clip.at(f, j).rotation *
          ikfix::core::axis_angle(glm::normalize(Vec3(1, 0.3, -0.2)), 0.3 * std::sin(0.4 * f + j));
  }
  for (const auto& name : translated) {
    const int j = c.skeleton.find(name);
    EXPECT_GE(j, 0) << name;
    e.changed[j] = 1;
    for (int f = 0; f < e.clip.frame_count; ++f)
      e.clip.at(f, j).translation += Vec3(0.01, -0.03 * std::cos(0.2 * f), 0.0);
  }
  return e;
}

std::string view_bytes(const gltf::Document& doc, int view_index) {
  const auto& view = doc.json["bufferViews"][view_index];
  const std::string_view buffer = doc.buffer_bytes(view["buffer"].get<int>());
  return std::string(
      buffer.substr(view.value("byteOffset", 0), view["byteLength"].get<std::size_t>()));
}

// Every channel of animation `a` whose (node, path) is not in `edited` keeps its sampler object,
// accessors, bufferViews and bytes.
void expect_untouched_channels_identical(const gltf::Document& in, const gltf::Document& out, int a,
                                         const std::set<std::pair<int, gltf::Path>>& edited) {
  const auto& ain = in.animations[a];
  const auto& aout = out.animations[a];
  ASSERT_GE(aout.channels.size(), ain.channels.size());
  for (std::size_t c = 0; c < ain.channels.size(); ++c) {
    const auto& ch = ain.channels[c];
    if (edited.count({ch.node, ch.path})) continue;
    EXPECT_EQ(aout.channels[c].sampler, ch.sampler);
    const auto& sin = in.json["animations"][a]["samplers"][ch.sampler];
    const auto& sout = out.json["animations"][a]["samplers"][ch.sampler];
    ASSERT_EQ(sin.dump(), sout.dump()) << "channel " << c;
    for (const char* key : {"input", "output"}) {
      const int acc = sin[key].get<int>();
      EXPECT_EQ(in.json["accessors"][acc].dump(), out.json["accessors"][acc].dump());
      const int view = in.json["accessors"][acc]["bufferView"].get<int>();
      EXPECT_EQ(in.json["bufferViews"][view].dump(), out.json["bufferViews"][view].dump());
      EXPECT_EQ(view_bytes(in, view), view_bytes(out, view)) << "accessor " << acc;
    }
  }
}

// The JSON text of every top-level member but the four the writer may touch is byte-identical,
// and the original accessors and bufferViews are unchanged prefixes of the new arrays.
void expect_json_text_kept(const gltf::Document& in, const gltf::Document& out) {
  const std::string_view tin = in.json_text(), tout = out.json_text();
  const auto top_in = jt::value_at(tin, 0), top_out = jt::value_at(tout, 0);
  for (const auto& [key, value] : in.json.items()) {
    const auto a = jt::member(tin, top_in, key);
    const auto b = jt::member(tout, top_out, key);
    ASSERT_TRUE(a && b) << key;
    const std::string_view sa = tin.substr(a->begin, a->end - a->begin),
                           sb = tout.substr(b->begin, b->end - b->begin);
    if (key == "animations" || key == "buffers") continue;
    if (key == "accessors" || key == "bufferViews") {
      const auto ea = jt::elements(tin, *a), eb = jt::elements(tout, *b);
      ASSERT_LE(ea.size(), eb.size());
      for (std::size_t i = 0; i < ea.size(); ++i)
        EXPECT_EQ(tin.substr(ea[i].begin, ea[i].end - ea[i].begin),
                  tout.substr(eb[i].begin, eb[i].end - eb[i].begin));
      continue;
    }
    EXPECT_EQ(sa, sb) << key;
  }
}

TEST(GltfWriter, NoEditGivesTheInputBytes) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("same");
  for (const char* file :
       {"CesiumMan.glb", "Fox.glb", "RiggedSimple_blender.glb", "SimpleSkin.gltf"}) {
    const std::string input = ikfix::io::read_file(gltf_dir() / file);
    ikfix::io::ClipLoadOptions options;
    const LoadedClip first = ikfix::io::load_clip(gltf_dir() / file);
    for (int take = 0; take < first.take_count; ++take) {
      options.take = std::to_string(take);
      const LoadedClip c = ikfix::io::load_clip(gltf_dir() / file, options);
      std::vector<char> none(c.skeleton.joint_count(), 0), all(c.skeleton.joint_count(), 1);
      const fs::path out = dir / (std::string("t") + std::to_string(take) + "_" + file);
      ikfix::io::save_clip(out, c, c.clip, none);
      EXPECT_EQ(ikfix::io::read_file(out), input) << file << " take " << take;
      // Flags set but nothing actually different: still the same bytes.
      ikfix::io::save_clip(out, c, c.clip, all);
      EXPECT_EQ(ikfix::io::read_file(out), input) << file << " take " << take;
    }
  }
  fs::remove_all(dir);
}

TEST(GltfWriter, CesiumManLegEditsLandExactlyAndNothingElseMoves) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("cesium");
  const LoadedClip in = ikfix::io::load_clip(gltf_dir() / "CesiumMan.glb");
  const std::vector<std::string> legs = {"leg_joint_L_1", "leg_joint_L_2", "leg_joint_L_3",
                                         "leg_joint_R_1", "leg_joint_R_2", "leg_joint_R_3"};
  const Edit e = edit_joints(in, legs, {"Skeleton_torso_joint_1"});
  const fs::path out_path = dir / "out.glb";
  ikfix::io::save_clip(out_path, in, e.clip, e.changed);
  const LoadedClip out = ikfix::io::load_clip(out_path);
  ASSERT_EQ(out.clip.frame_count, in.clip.frame_count);
  ASSERT_EQ(out.skeleton.names, in.skeleton.names);
  EXPECT_EQ(out.clip.fps, in.clip.fps);
  double worst_deg = 0, worst_m = 0;
  for (int f = 0; f < in.clip.frame_count; ++f)
    for (int j = 0; j < in.skeleton.joint_count(); ++j) {
      const auto& want = e.clip.at(f, j);
      const auto& got = out.clip.at(f, j);
      if (e.changed[j]) {
        worst_deg = std::max(worst_deg, angle_deg(want.rotation, got.rotation));
        worst_m = std::max(worst_m, glm::length(want.translation - got.translation));
      } else {
        EXPECT_EQ(got.rotation, in.clip.at(f, j).rotation) << in.skeleton.names[j];
        EXPECT_EQ(got.translation, in.clip.at(f, j).translation) << in.skeleton.names[j];
        EXPECT_EQ(got.scale, in.clip.at(f, j).scale) << in.skeleton.names[j];
      }
    }
  std::printf(
      "[ patch ] CesiumMan edited joints: max rotation error %.3g deg, translation %.3g m\n",
      worst_deg, worst_m);
  EXPECT_LE(worst_deg, 0.01);
  EXPECT_LE(worst_m, 1e-6);

  const gltf::Document& din = doc_of(in);
  const gltf::Document& dout = doc_of(out);
  std::set<std::pair<int, gltf::Path>> edited;
  for (const auto& name : legs)
    edited.insert({layout_of(in).joint_nodes[in.skeleton.find(name)], gltf::Path::rotation});
  edited.insert({3, gltf::Path::translation});
  expect_untouched_channels_identical(din, dout, 0, edited);
  expect_json_text_kept(din, dout);
  // Edited channels keep their index and now point at LINEAR samplers with new accessors.
  EXPECT_EQ(dout.animations[0].channels.size(), din.animations[0].channels.size());
  EXPECT_EQ(dout.animations[0].samplers.size(), din.animations[0].samplers.size());
  // The original BIN bytes are a prefix of the new BIN chunk; buffer 0 grew by the new data only.
  ASSERT_TRUE(dout.has_bin_chunk);
  EXPECT_EQ(dout.file_bytes.substr(dout.bin_offset, din.bin_length),
            din.file_bytes.substr(din.bin_offset, din.bin_length));
  const std::size_t new_bytes = dout.buffers[0].byte_length - din.buffers[0].byte_length;
  // One time accessor + 6 rotations (16 B/frame) + 1 translation (12 B/frame), 48 frames.
  EXPECT_EQ(new_bytes, 48u * (4 + 6 * 16 + 12));
  EXPECT_EQ(dout.bin_length % 4, 0u);
  fs::remove_all(dir);
}

TEST(GltfWriter, FoxTwoTakesAtOnceLeaveTheThirdAsItWas) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("fox");
  ikfix::io::ClipLoadOptions walk_opt, run_opt;
  walk_opt.take = "Walk";
  run_opt.take = "Run";
  const LoadedClip walk = ikfix::io::load_clip(gltf_dir() / "Fox.glb", walk_opt);
  // Both takes must share one document: load the second from the first's document.
  const auto doc = layout_of(walk).document;
  gltf::Take run_take = gltf::extract_take(doc, 2);
  LoadedClip run = walk;
  run.take_name = run_take.name;
  run.take_index = 2;
  run.skeleton = run_take.skeleton;
  run.clip = run_take.clip;
  run.document = std::make_shared<const gltf::TakeLayout>(run_take.layout);
  const std::vector<std::string> legs = {"b_LeftLeg01_015", "b_LeftLeg02_016", "b_RightFoot01_021"};
  // b_LeftFoot02_018 has no channel: Run gets a new one.
  std::vector<std::string> run_joints = legs;
  run_joints.push_back("b_LeftFoot02_018");
  const Edit ew = edit_joints(walk, legs), er = edit_joints(run, run_joints, {"b_Hip_01"});
  const ikfix::io::TakeEdit edits[2] = {{&walk, &ew.clip, ew.changed},
                                        {&run, &er.clip, er.changed}};
  const fs::path out_path = dir / "fox.glb";
  ikfix::io::save_takes(out_path, edits);
  const auto out = std::make_shared<const gltf::Document>(gltf::read_file(out_path));
  // Survey's JSON text is byte-identical.
  const auto tin = doc->json_text(), tout = out->json_text();
  const auto ain = jt::elements(tin, *jt::member(tin, jt::value_at(tin, 0), "animations"));
  const auto aout = jt::elements(tout, *jt::member(tout, jt::value_at(tout, 0), "animations"));
  EXPECT_EQ(tin.substr(ain[0].begin, ain[0].end - ain[0].begin),
            tout.substr(aout[0].begin, aout[0].end - aout[0].begin));
  expect_json_text_kept(*doc, *out);
  for (int a : {1, 2}) {
    const Edit& e = a == 1 ? ew : er;
    const gltf::Take t = gltf::extract_take(out, a);
    double worst = 0;
    for (int f = 0; f < t.clip.frame_count; ++f)
      for (int j = 0; j < t.skeleton.joint_count(); ++j)
        worst = std::max(worst, angle_deg(e.clip.at(f, j).rotation, t.clip.at(f, j).rotation));
    EXPECT_LE(worst, 0.01) << a;
    std::set<std::pair<int, gltf::Path>> edited;
    for (const auto& name : legs)
      edited.insert({layout_of(walk).joint_nodes[walk.skeleton.find(name)], gltf::Path::rotation});
    if (a == 2) edited.insert({4, gltf::Path::translation});
    expect_untouched_channels_identical(*doc, *out, a, edited);
  }
  // b_LeftFoot02_018 had no rotation channel in Run: one was added.
  EXPECT_EQ(out->animations[2].channels.size(), doc->animations[2].channels.size() + 1);
  EXPECT_EQ(out->animations[1].channels.size(), doc->animations[1].channels.size());
  fs::remove_all(dir);
}

TEST(GltfWriter, SimpleSkinGetsAnEmbeddedBufferAndANewChannel) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("simpleskin");
  const LoadedClip in = ikfix::io::load_clip(gltf_dir() / "SimpleSkin.gltf");
  const Edit e = edit_joints(in, {"node_1", "node_2"});  // node 1 has no channel
  ikfix::io::save_clip(dir / "skin.gltf", in, e.clip, e.changed);
  const LoadedClip out = ikfix::io::load_clip(dir / "skin.gltf");
  const gltf::Document& d = doc_of(out);
  ASSERT_EQ(d.buffers.size(), 5u);
  EXPECT_EQ(d.buffers[4].source, gltf::BufferSource::data_uri);
  EXPECT_EQ(d.animations[0].channels.size(), 2u);
  for (int f = 0; f < in.clip.frame_count; ++f)
    for (int j : {1, 2})
      EXPECT_LE(angle_deg(e.clip.at(f, j).rotation, out.clip.at(f, j).rotation), 1e-4);
  expect_json_text_kept(doc_of(in), d);
  fs::remove_all(dir);
}

TEST(GltfWriter, StepSamplersThatAreEditedBecomeLinearOthersKeepTheirMode) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("rigged");
  const LoadedClip in = ikfix::io::load_clip(gltf_dir() / "RiggedSimple_blender.glb");
  const Edit e = edit_joints(in, {"Root"});
  ikfix::io::save_clip(dir / "r.glb", in, e.clip, e.changed);
  const LoadedClip out = ikfix::io::load_clip(dir / "r.glb");
  const auto& din = doc_of(in);
  const auto& dout = doc_of(out);
  int step_before = 0, step_after = 0;
  for (const auto& s : din.animations[0].samplers)
    step_before += s.interpolation == gltf::Interpolation::step;
  for (const auto& s : dout.animations[0].samplers)
    step_after += s.interpolation == gltf::Interpolation::step;
  EXPECT_EQ(step_after, step_before - 1);  // Root's rotation sampler was STEP
  for (int f = 0; f < in.clip.frame_count; ++f)
    EXPECT_LE(angle_deg(e.clip.at(f, 1).rotation, out.clip.at(f, 1).rotation), 1e-4);
  expect_untouched_channels_identical(din, dout, 0, {{3, gltf::Path::rotation}});
  fs::remove_all(dir);
}

TEST(GltfWriter, SharedSamplersAreLeftAloneAndANewOneIsAdded) {
  ikfix::test::MiniGltf m;
  const int root = m.add_node("root", -1);
  const int a = m.add_node("a", root, {0, 1, 0});
  m.add_node("b", a, {0, 1, 0});
  const int t = m.add_floats({0, 1, 2}, "SCALAR", 1);
  const int r = m.add_floats(
      {0, 0, 0, 1, 0, 0.3826834f, 0, 0.9238795f, 0, 0.7071068f, 0, 0.7071068f}, "VEC4", 4);
  m.add_animation("spin", {{1, "rotation", t, r, "LINEAR"}});
  m.json["animations"][0]["channels"].push_back(
      {{"sampler", 0}, {"target", {{"node", 2}, {"path", "rotation"}}}});
  const auto doc = std::make_shared<const gltf::Document>(m.parse());
  const gltf::Take take = gltf::extract_take(doc, 0);
  ikfix::core::Clip edited = take.clip;
  std::vector<char> changed(3, 0);
  changed[2] = 1;
  for (int f = 0; f < edited.frame_count; ++f)
    edited.at(f, 2).rotation = ikfix::core::axis_angle(Vec3(1, 0, 0), 0.1 * f);
  const gltf::TakeEdit edit{&take.layout, &take.clip, &edited, changed};
  const std::string bytes = gltf::write(*doc, {&edit, 1}, "mini.gltf");
  const auto out = std::make_shared<const gltf::Document>(gltf::parse(bytes, "mini.gltf"));
  ASSERT_EQ(out->animations[0].samplers.size(), 2u);
  EXPECT_EQ(out->animations[0].channels[0].sampler, 0);
  EXPECT_EQ(out->animations[0].channels[1].sampler, 1);
  EXPECT_EQ(out->json["animations"][0]["samplers"][0].dump(),
            doc->json["animations"][0]["samplers"][0].dump());
  const gltf::Take back = gltf::extract_take(out, 0);
  for (int f = 0; f < 3; ++f) {
    EXPECT_EQ(back.clip.at(f, 1).rotation, take.clip.at(f, 1).rotation);
    EXPECT_LE(angle_deg(back.clip.at(f, 2).rotation, edited.at(f, 2).rotation), 1e-5);
  }
  // The new time accessor has min/max, as the spec requires for sampler inputs.
  const auto& time_acc =
      out->json["accessors"][out->json["animations"][0]["samplers"][1]["input"].get<int>()];
  EXPECT_EQ(time_acc["min"][0].get<double>(), 0.0);
  EXPECT_EQ(time_acc["max"][0].get<double>(), 2.0);
}

TEST(GltfWriter, MatrixNodesCannotBeAnimated) {
  IKFIX_REQUIRE_SHARED_DATA();
  const LoadedClip in = ikfix::io::load_clip(gltf_dir() / "CesiumMan.glb");
  const Edit e = edit_joints(in, {"Armature"});
  try {
    ikfix::io::save_clip(ikfix::test::scratch_path("never_written.glb"), in, e.clip, e.changed);
    FAIL() << "expected InputError";
  } catch (const ikfix::io::InputError& error) {
    EXPECT_NE(std::string(error.what()).find("'Armature'"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("matrix"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(fs::exists(ikfix::test::scratch_path("never_written.glb")));
}

TEST(GltfWriter, ExternalBuffersReadBackFromWhereverTheOutputIs) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("elsewhere");
  fs::create_directories(dir / "in");
  auto json = nlohmann::ordered_json::parse(ikfix::io::read_file(gltf_dir() / "SimpleSkin.gltf"));
  for (std::size_t i = 0; i < json["buffers"].size(); ++i) {
    const std::string uri = json["buffers"][i]["uri"];
    ikfix::io::write_file_atomic(dir / "in" / ("part " + std::to_string(i) + ".bin"),
                                 *gltf::base64_decode(uri.substr(uri.find(',') + 1)));
    json["buffers"][i]["uri"] = "part%20" + std::to_string(i) + ".bin";
  }
  ikfix::io::write_file_atomic(dir / "in" / "skin.gltf", json.dump(1));
  const LoadedClip in = ikfix::io::load_clip(dir / "in" / "skin.gltf");
  // Same folder, nothing edited: the same bytes.
  std::vector<char> none(in.skeleton.joint_count(), 0);
  ikfix::io::save_clip(dir / "in" / "copy.gltf", in, in.clip, none);
  EXPECT_EQ(ikfix::io::read_file(dir / "in" / "copy.gltf"),
            ikfix::io::read_file(dir / "in" / "skin.gltf"));
  // A folder above the input's: the uris point down at the input's files.
  const Edit e = edit_joints(in, {"node_2"});
  ikfix::io::save_clip(dir / "skin.gltf", in, e.clip, e.changed);
  const LoadedClip above = ikfix::io::load_clip(dir / "skin.gltf");
  EXPECT_EQ(doc_of(above).buffers[0].uri, "in/part%200.bin");
  // A folder beside it: a uri back up out of the output's folder would be refused on reading
  // (io/gltf/uri_file.hpp), so the buffers are embedded.
  ikfix::io::save_clip(dir / "out" / "skin.gltf", in, e.clip, e.changed);
  const LoadedClip out = ikfix::io::load_clip(dir / "out" / "skin.gltf");
  EXPECT_EQ(doc_of(out).buffers[0].source, gltf::BufferSource::data_uri);
  for (const LoadedClip* written : {&above, &out})
    for (int f = 0; f < in.clip.frame_count; ++f)
      EXPECT_LE(angle_deg(e.clip.at(f, 2).rotation, written->clip.at(f, 2).rotation), 1e-4);
  fs::remove_all(dir);
}

}  // namespace
