// io::save_new_take: a new take written into a copy of a character file (FBX binary and ASCII,
// GLB, glTF, BVH) reads back as the clip that was given, and every other part of the file is as
// it was (existing takes, meshes, skins, control nodes).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/fk.hpp"
#include "io/clip_io.hpp"
#include "io/error.hpp"
#include "io/fbx/fbx.hpp"
#include "io/file_util.hpp"
#include "io/gltf/gltf.hpp"
#include "test_data.hpp"
#include "test_scratch.hpp"

namespace {

namespace fs = std::filesystem;
namespace fbx = ikfix::io::fbx;
using ikfix::core::Clip;
using ikfix::core::Quat;
using ikfix::core::Transform;
using ikfix::core::Vec3;
using ikfix::io::LoadedClip;

fs::path data_dir() { return ikfix::test::shared_data_dir(); }

fs::path out_dir() {
  static const fs::path dir = ikfix::test::scratch_dir("new_take");
  return dir;
}

// A walk-like motion on the character: legs, spine and arms swing about their rest rotations,
// the first joint named like a pelvis (or the first root's child) moves forward.
struct Motion {
  Clip clip;
  std::vector<char> animated;
};
Motion make_motion(const LoadedClip& c, int frames, const std::vector<std::string>& swinging,
                   const std::string& pelvis) {
  Motion m;
  m.clip.fps = c.clip.fps;
  m.clip.frame_count = frames;
  m.clip.joint_count = c.skeleton.joint_count();
  m.animated.assign(c.skeleton.joint_count(), 0);
  const int hips = c.skeleton.find(pelvis);
  EXPECT_GE(hips, 0) << pelvis;
  const double leg = 0.3 / c.space.metres_per_unit;  // 30 cm a second, in file units
  for (int f = 0; f < frames; ++f)
    for (int j = 0; j < c.skeleton.joint_count(); ++j) {
      Transform t = c.skeleton.rest[j];
      const double phase = 2.0 * ikfix::core::kPi * f / 24.0 + j;
      for (const std::string& name : swinging)
        if (c.skeleton.names[j] == name) {
          t.rotation = t.rotation * ikfix::core::axis_angle(glm::normalize(Vec3(1.0, 0.3 * j, 0.2)),
                                                            0.5 * std::sin(phase));
          m.animated[j] = 1;
        }
      if (j == hips) {
        t.translation += Vec3(0.0, 0.05 * leg * std::sin(phase), leg * f / c.clip.fps);
        m.animated[j] = 1;
      }
      m.clip.locals.push_back(t);
    }
  return m;
}

double angle_deg(const Quat& a, const Quat& b) {
  return ikfix::core::rotation_angle(glm::normalize(glm::conjugate(a) * b)) * 180.0 /
         ikfix::core::kPi;
}

// The take read back equals the clip: local rotations (float keys: 1e-4 degrees), translations
// and world positions (`position_tolerance` of the skeleton's size).
void expect_reads_back(const LoadedClip& back, const LoadedClip& character, const Motion& m,
                       double position_tolerance = 1e-6) {
  ASSERT_EQ(back.skeleton.names, character.skeleton.names);
  ASSERT_EQ(back.clip.frame_count, m.clip.frame_count);
  double size = 0.0;
  {
    std::vector<Transform> world(character.skeleton.joint_count());
    ikfix::core::forward_kinematics(character.skeleton, character.skeleton.rest, Transform{},
                                    world);
    Vec3 lo(1e300), hi(-1e300);
    for (const auto& w : world) {
      lo = glm::min(lo, w.translation);
      hi = glm::max(hi, w.translation);
    }
    size = glm::length(hi - lo);
  }
  double worst_rot = 0.0, worst_pos = 0.0;
  std::vector<Transform> a(character.skeleton.joint_count()), b(character.skeleton.joint_count());
  for (int f = 0; f < m.clip.frame_count; ++f) {
    ikfix::core::forward_kinematics(character.skeleton, m.clip.frame(f), Transform{}, a);
    ikfix::core::forward_kinematics(back.skeleton, back.clip.frame(f), Transform{}, b);
    for (int j = 0; j < character.skeleton.joint_count(); ++j) {
      worst_rot =
          std::max(worst_rot, angle_deg(m.clip.at(f, j).rotation, back.clip.at(f, j).rotation));
      worst_pos = std::max(worst_pos, glm::length(a[j].translation - b[j].translation) / size);
    }
  }
  EXPECT_LT(worst_rot, 1e-4);
  EXPECT_LT(worst_pos, position_tolerance);
}

// The Maya Kenney's Models carry scale noise (up to 1.8e-5) against its bind-pose rest; scales
// within 1e-6 of the Model's get no curve, which moves joints by a few 1e-6 of the size.
constexpr double kMayaScaleNoise = 5e-6;

// Properties of two FBX nodes, decoded, and their children, recursively: equal?
bool same_node(const fbx::Document& da, const fbx::Node& a, const fbx::Document& db,
               const fbx::Node& b) {
  if (a.name != b.name || a.props.size() != b.props.size() ||
      a.children.size() != b.children.size())
    return false;
  for (std::size_t p = 0; p < a.props.size(); ++p) {
    const fbx::Property& pa = a.props[p];
    const fbx::Property& pb = b.props[p];
    if (pa.is_array() != pb.is_array()) return false;
    if (pa.is_array()) {
      if (fbx::as_doubles(da, pa) != fbx::as_doubles(db, pb)) return false;
    } else if (pa.type == 'S' || pa.type == 'W' || pa.type == 'R') {
      if (fbx::as_string(da, pa) != fbx::as_string(db, pb)) return false;
    } else if (fbx::as_double(da, pa) != fbx::as_double(db, pb)) {
      return false;
    }
  }
  for (std::size_t c = 0; c < a.children.size(); ++c)
    if (!same_node(da, a.children[c], db, b.children[c])) return false;
  return true;
}

bool is_animation_object(const std::string& name) {
  return name == "AnimationStack" || name == "AnimationLayer" || name == "AnimationCurveNode" ||
         name == "AnimationCurve";
}

// Every top-level node but Objects, Connections, Definitions and Takes is unchanged; every
// object of `before` (animation objects too, unless `takes_replaced`) is in `after` unchanged,
// and so is every connection between kept objects.
void expect_rest_of_file_kept(const fs::path& before_path, const fs::path& after_path,
                              bool takes_replaced) {
  const fbx::Document before = fbx::read_file(before_path);
  const fbx::Document after = fbx::read_file(after_path);
  EXPECT_EQ(before.encoding, after.encoding);
  EXPECT_EQ(before.version, after.version);
  for (const fbx::Node& n : before.root.children) {
    if (n.name == "Objects" || n.name == "Connections" || n.name == "Definitions" ||
        n.name == "Takes")
      continue;
    const fbx::Node* m = after.root.child(n.name);
    ASSERT_NE(m, nullptr) << n.name;
    EXPECT_TRUE(same_node(before, n, after, *m)) << n.name;
  }
  std::map<std::int64_t, const fbx::Node*> after_objects;
  for (const fbx::Node& o : after.root.child("Objects")->children)
    if (!o.props.empty()) after_objects[fbx::as_int(after, o.props[0])] = &o;
  int kept = 0;
  std::set<std::int64_t> dropped;
  for (const fbx::Node& o : before.root.child("Objects")->children) {
    if (o.props.empty()) continue;
    const std::int64_t id = fbx::as_int(before, o.props[0]);
    if (takes_replaced && is_animation_object(o.name)) {
      EXPECT_EQ(after_objects.count(id), 0u) << o.name << " " << id << " should be gone";
      dropped.insert(id);
      continue;
    }
    const auto it = after_objects.find(id);
    ASSERT_NE(it, after_objects.end()) << o.name << " " << id;
    EXPECT_TRUE(same_node(before, o, after, *it->second)) << o.name << " " << id;
    ++kept;
  }
  EXPECT_GT(kept, 0);
  std::set<std::string> after_links;
  for (const fbx::Node& c : after.root.child("Connections")->children)
    if (c.props.size() >= 3)
      after_links.insert(std::to_string(fbx::as_int(after, c.props[1])) + ">" +
                         std::to_string(fbx::as_int(after, c.props[2])));
  for (const fbx::Node& c : before.root.child("Connections")->children) {
    if (c.props.size() < 3) continue;
    const std::int64_t child = fbx::as_int(before, c.props[1]),
                       parent = fbx::as_int(before, c.props[2]);
    if (dropped.count(child) || dropped.count(parent)) continue;
    EXPECT_TRUE(after_links.count(std::to_string(child) + ">" + std::to_string(parent)))
        << child << " > " << parent;
  }
}

const std::vector<std::string> kKenneySwing = {"LeftUpLeg", "LeftLeg", "RightUpLeg", "RightLeg",
                                               "Spine",     "LeftArm", "RightArm"};

TEST(NewTake, FbxCharacterWithoutTakesGetsOne) {
  IKFIX_REQUIRE_SHARED_DATA();
  const fs::path in = data_dir() / "retarget/kenney_rest.fbx";
  const LoadedClip character = ikfix::io::load_character(in);
  const Motion m = make_motion(character, 30, kKenneySwing, "Hips");
  const fs::path out = out_dir() / "kenney_rest_walk.fbx";
  ikfix::io::save_new_take(out, character, m.clip, m.animated, "Walk", false);
  ikfix::io::ClipLoadOptions walk;
  walk.take = "Walk";
  const LoadedClip back = ikfix::io::load_character(out, walk);
  EXPECT_EQ(back.take_count, 1);
  EXPECT_EQ(back.take_name, "Walk");
  expect_reads_back(back, character, m);
  expect_rest_of_file_kept(in, out, false);
}

TEST(NewTake, FbxCharacterKeepsItsTakeOrReplacesIt) {
  IKFIX_REQUIRE_SHARED_DATA();
  const fs::path in = data_dir() / "anim/fbx/kenney_character_maya_7700.fbx";
  const LoadedClip character = ikfix::io::load_character(in);
  Motion m = make_motion(character, 48, kKenneySwing, "Hips");
  // This file's Models were saved mid-stride, away from the bind-pose rest: a joint without
  // curves would show that pose in the new take, so every joint is animated.
  m.animated.assign(m.animated.size(), 1);
  const fs::path out = out_dir() / "kenney_maya_walk.fbx";
  ikfix::io::save_new_take(out, character, m.clip, m.animated, "Walk", false);
  ikfix::io::ClipLoadOptions walk;
  walk.take = "Walk";
  const LoadedClip back = ikfix::io::load_character(out, walk);
  EXPECT_EQ(back.take_count, 2);
  expect_reads_back(back, character, m, kMayaScaleNoise);
  // The file's own take is untouched.
  ikfix::io::ClipLoadOptions first;
  first.take = "Take 001";
  const LoadedClip original = ikfix::io::load_character(in, first),
                   kept = ikfix::io::load_character(out, first);
  ASSERT_EQ(original.clip.locals.size(), kept.clip.locals.size());
  for (std::size_t k = 0; k < original.clip.locals.size(); ++k) {
    EXPECT_EQ(original.clip.locals[k].translation, kept.clip.locals[k].translation);
    EXPECT_EQ(original.clip.locals[k].rotation, kept.clip.locals[k].rotation);
  }
  expect_rest_of_file_kept(in, out, false);
  // The name is taken now.
  const LoadedClip again = ikfix::io::load_character(out);
  EXPECT_THROW(
      ikfix::io::save_new_take(out_dir() / "twice.fbx", again, m.clip, m.animated, "Walk", false),
      ikfix::io::InputError);

  const fs::path replaced = out_dir() / "kenney_maya_walk_only.fbx";
  ikfix::io::save_new_take(replaced, character, m.clip, m.animated, "Walk", true);
  const LoadedClip only = ikfix::io::load_character(replaced);
  EXPECT_EQ(only.take_count, 1);
  EXPECT_EQ(only.take_name, "Walk");
  expect_reads_back(only, character, m, kMayaScaleNoise);
  expect_rest_of_file_kept(in, replaced, true);
}

// Nothing in FBX orders Objects: a file may list its animation objects before its Models. When
// the new take replaces them, the Models move up in Objects, and the writer's self-check (which
// builds only the edited Models of the written file) must still find them: HumanIK joints have
// PreRotations, which a Model read without its properties lacks.
TEST(NewTake, FbxTakesReplacedThatComeBeforeTheModels) {
  IKFIX_REQUIRE_SHARED_DATA();
  const fs::path source = data_dir() / "anim/fbx/maya_humanik_rig_7400_binary.fbx";
  const fs::path in = out_dir() / "humanik_animation_first.fbx";
  {
    fbx::Document doc = fbx::read_file(source);
    ASSERT_EQ(doc.encoding, fbx::Encoding::binary);
    fbx::Node* objects = doc.root.child("Objects");
    ASSERT_NE(objects, nullptr);
    auto is_animation = [](const fbx::Node& o) { return o.name.rfind("Animation", 0) == 0; };
    ASSERT_TRUE(std::any_of(objects->children.begin(), objects->children.end(), is_animation));
    std::stable_partition(objects->children.begin(), objects->children.end(), is_animation);
    // The same id written again: Objects is then written from the tree, in the new order.
    for (fbx::Node& o : objects->children)
      if (o.name == "Model") {
        fbx::set_value(o.props[0], fbx::as_int(doc, o.props[0]));
        break;
      }
    fbx::save(in, doc);
  }
  const LoadedClip character = ikfix::io::load_character(in);
  std::vector<std::string> swing;
  for (const char* n : {"LeftUpLeg", "LeftLeg", "RightUpLeg", "RightLeg", "Spine", "LeftArm"})
    swing.push_back(std::string("Character1_") + n);
  const Motion m = make_motion(character, 30, swing, "Character1_Hips");
  // Every Model of the patched scene is still where the scene says it is.
  fbx::ClipDocument work = *static_cast<const fbx::ClipDocument*>(character.document.get());
  fbx::add_take(work, "Walk", m.clip, m.animated, true);
  const fbx::Node& objects = work.doc.root.children[work.scene.objects_index];
  for (const fbx::Model& model : work.scene.models) {
    ASSERT_LT(model.object, objects.children.size()) << model.name;
    const fbx::Node& o = objects.children[model.object];
    EXPECT_EQ(o.name, "Model") << model.name;
    if (o.name == "Model") {
      EXPECT_EQ(fbx::as_int(work.doc, o.props[0]), model.id) << model.name;
    }
  }
  const fs::path replaced = out_dir() / "humanik_animation_first_walk_only.fbx";
  ikfix::io::save_new_take(replaced, character, m.clip, m.animated, "Walk", true);
  const LoadedClip only = ikfix::io::load_character(replaced);
  EXPECT_EQ(only.take_count, 1);
  EXPECT_EQ(only.take_name, "Walk");
  expect_reads_back(only, character, m);
}

TEST(NewTake, AsciiFbxCharacter) {
  IKFIX_REQUIRE_SHARED_DATA();
  const fs::path in = data_dir() / "anim/fbx/maya_humanik_character_7500_ascii.fbx";
  const LoadedClip character = ikfix::io::load_character(in);
  std::vector<std::string> swing;
  for (const char* n : {"LeftUpLeg", "LeftLeg", "RightUpLeg", "RightLeg", "Spine", "LeftArm"})
    swing.push_back(std::string("Character1_") + n);
  const Motion m = make_motion(character, 30, swing, "Character1_Hips");
  const fs::path out = out_dir() / "humanik_walk.fbx";
  ikfix::io::save_new_take(out, character, m.clip, m.animated, "Walk", false);
  ikfix::io::ClipLoadOptions walk;
  walk.take = "Walk";
  const LoadedClip back = ikfix::io::load_character(out, walk);
  EXPECT_EQ(back.take_count, character.take_count + 1);
  expect_reads_back(back, character, m);
  expect_rest_of_file_kept(in, out, false);
  EXPECT_EQ(fbx::read_file(out).encoding, fbx::Encoding::ascii);
}

TEST(NewTake, GlbCharacterWithoutAnimationGetsOne) {
  IKFIX_REQUIRE_SHARED_DATA();
  const fs::path in = data_dir() / "retarget/kenney_rest.glb";
  const LoadedClip character = ikfix::io::load_character(in);
  const Motion m = make_motion(character, 30, kKenneySwing, "Hips");
  const fs::path out = out_dir() / "kenney_rest_walk.glb";
  ikfix::io::save_new_take(out, character, m.clip, m.animated, "Walk", false);
  const LoadedClip back = ikfix::io::load_character(out);
  EXPECT_EQ(back.take_name, "Walk");
  EXPECT_EQ(back.take_count, 1);
  expect_reads_back(back, character, m);
  // The original bytes of the BIN chunk come first; every JSON member but the lists that grow
  // is as it was.
  const ikfix::io::gltf::Document before = ikfix::io::gltf::read_file(in),
                                  after = ikfix::io::gltf::read_file(out);
  EXPECT_EQ(after.buffer_bytes(0).substr(0, before.buffer_bytes(0).size()), before.buffer_bytes(0));
  for (const auto& [key, value] : before.json.items()) {
    if (key == "accessors" || key == "bufferViews" || key == "buffers") continue;
    EXPECT_EQ(after.json[key], value) << key;
  }
  for (std::size_t k = 0; k < before.json["accessors"].size(); ++k)
    EXPECT_EQ(after.json["accessors"][k], before.json["accessors"][k]);
}

TEST(NewTake, GltfCharacterKeepsItsAnimationOrReplacesIt) {
  IKFIX_REQUIRE_SHARED_DATA();
  struct Case {
    const char* name;
    const char* pelvis;
  };
  for (const Case& c : {Case{"anim/gltf/CesiumMan.glb", "Skeleton_torso_joint_1"},
                        Case{"anim/gltf/SimpleSkin.gltf", "node_1"}}) {
    const std::string name = c.name;
    SCOPED_TRACE(name);
    const fs::path in = data_dir() / name;
    const LoadedClip character = ikfix::io::load_character(in);
    const Motion m = make_motion(character, 20, {character.skeleton.names.back()}, c.pelvis);
    const fs::path out = out_dir() / ("added_" + fs::path(name).filename().string());
    ikfix::io::save_new_take(out, character, m.clip, m.animated, "Added", false);
    const auto after = ikfix::io::gltf::read_file(out);
    ASSERT_EQ(after.animations.size(), 2u);
    const auto before = ikfix::io::gltf::read_file(in);
    EXPECT_EQ(after.json["animations"][0], before.json["animations"][0]);
    ikfix::io::ClipLoadOptions added;
    added.take = "Added";
    expect_reads_back(ikfix::io::load_character(out, added), character, m);
    ikfix::io::save_new_take(out, character, m.clip, m.animated, "Added", true);
    EXPECT_EQ(ikfix::io::gltf::read_file(out).animations.size(), 1u);
  }
}

TEST(NewTake, BvhCharacterIsWrittenWithTheNewMotion) {
  IKFIX_REQUIRE_SHARED_DATA();
  const LoadedClip character = ikfix::io::load_character(data_dir() / "retarget/kenney_rest.bvh");
  const Motion m = make_motion(character, 30, kKenneySwing, "Hips");
  const fs::path out = out_dir() / "kenney_rest_walk.bvh";
  ikfix::io::save_new_take(out, character, m.clip, m.animated, "Walk", false);
  ikfix::io::ClipLoadOptions same;
  same.metres_per_unit = character.space.metres_per_unit;
  const LoadedClip back = ikfix::io::load_character(out, same);
  expect_reads_back(back, character, m);
  // Same hierarchy text: the rest file's OFFSETs and channel order.
  const std::string text = ikfix::io::read_file(out);
  EXPECT_NE(text.find("CHANNELS 6 Xposition Yposition Zposition"), std::string::npos);
}

// A 120 fps clip (CMU mocap) into a file whose frame rate is lower: keys at the clip's own times,
// which Assimp reads back key for key (checked inside save_new_take), and the take spans the
// clip's duration at the file's rate.
TEST(NewTake, FbxTakeKeepsTheClipsOwnFrameRate) {
  IKFIX_REQUIRE_SHARED_DATA();
  const LoadedClip character = ikfix::io::load_character(data_dir() / "retarget/kenney_rest.fbx");
  ASSERT_LT(character.clip.fps, 120.0);
  LoadedClip at_120 = character;
  at_120.clip.fps = 120.0;
  const Motion m = make_motion(at_120, 121, kKenneySwing, "Hips");  // one second
  const fs::path out = out_dir() / "kenney_rest_120.fbx";
  ikfix::io::save_new_take(out, character, m.clip, m.animated, "Mocap", false);
  const LoadedClip back = ikfix::io::load_character(out);
  EXPECT_EQ(back.clip.fps, character.clip.fps);
  EXPECT_EQ(back.clip.frame_count, static_cast<int>(std::lround(character.clip.fps)) + 1);
  // The last frame (t = 1 s) is the clip's last frame.
  const int last = back.clip.frame_count - 1;
  for (int j = 0; j < back.skeleton.joint_count(); ++j)
    EXPECT_LT(angle_deg(back.clip.at(last, j).rotation, m.clip.at(120, j).rotation), 1e-4)
        << back.skeleton.names[j];
}

// A scale that leaves the Model's gets Lcl Scaling curves.
TEST(NewTake, FbxScaleIsWrittenWhenItChanges) {
  IKFIX_REQUIRE_SHARED_DATA();
  const fs::path in = data_dir() / "anim/fbx/kenney_character_maya_7700.fbx";
  const LoadedClip character = ikfix::io::load_character(in);
  Motion m = make_motion(character, 12, kKenneySwing, "Hips");
  m.animated.assign(m.animated.size(), 1);  // see FbxCharacterKeepsItsTakeOrReplacesIt
  const int hand = character.skeleton.find("LeftHand");
  ASSERT_GE(hand, 0);
  for (int f = 0; f < m.clip.frame_count; ++f) m.clip.at(f, hand).scale *= 1.0 + 0.05 * f;
  const fs::path out = out_dir() / "kenney_scaled_hand.fbx";
  ikfix::io::save_new_take(out, character, m.clip, m.animated, "Grow", false);
  ikfix::io::ClipLoadOptions grow;
  grow.take = "Grow";
  const LoadedClip back = ikfix::io::load_character(out, grow);
  expect_reads_back(back, character, m, kMayaScaleNoise);
  for (int f = 0; f < m.clip.frame_count; ++f)
    EXPECT_LT(glm::length(back.clip.at(f, hand).scale - m.clip.at(f, hand).scale),
              1e-6 * glm::length(m.clip.at(f, hand).scale));
}

TEST(NewTake, RefusesWhatItCannotWrite) {
  IKFIX_REQUIRE_SHARED_DATA();
  const LoadedClip character = ikfix::io::load_character(data_dir() / "retarget/kenney_rest.fbx");
  Motion m = make_motion(character, 5, kKenneySwing, "Hips");
  EXPECT_THROW(
      ikfix::io::save_new_take(out_dir() / "x.glb", character, m.clip, m.animated, "Walk", false),
      ikfix::io::InputError);
  EXPECT_THROW(
      ikfix::io::save_new_take(out_dir() / "x.fbx", character, m.clip, m.animated, "", false),
      ikfix::io::InputError);
  m.clip.at(2, character.skeleton.find("LeftLeg")).rotation.x = std::nan("");
  try {
    ikfix::io::save_new_take(out_dir() / "x.fbx", character, m.clip, m.animated, "Walk", false);
    FAIL() << "a NaN was written";
  } catch (const ikfix::io::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("LeftLeg"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(out_dir() / "x.fbx"));
}

}  // namespace
