// The scene-only parse (fbx::ParseDepth::scene) that the writer's read-back check uses: it must
// give read_scene exactly what a whole parse gives, build deferred nodes identically on demand,
// and refuse every damaged file a whole parse refuses, with the same message.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/error.hpp"
#include "io/fbx/fbx.hpp"
#include "io/file_util.hpp"
#include "test_data.hpp"

namespace fbx = ikfix::io::fbx;
using ikfix::io::InputError;

namespace {

std::vector<std::filesystem::path> binary_corpus_files() {
  std::vector<std::filesystem::path> files;
  const auto dir = ikfix::test::shared_data_dir() / "anim" / "fbx";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".fbx" && ikfix::io::read_file(e.path()).rfind("Kaydara", 0) == 0)
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string error_of(const std::string& data, fbx::ParseDepth depth) {
  try {
    fbx::parse(data, "d.fbx", depth);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Same names, properties (as stored), extents and children, building deferred nodes of `partial`
// first.
void expect_same_tree(fbx::Document& partial, fbx::Node& p, const fbx::Node& w,
                      std::size_t& deferred) {
  if (p.deferred) {
    ++deferred;
    EXPECT_TRUE(p.children.empty()) << p.name;
    fbx::parse_children(partial, p);
    EXPECT_FALSE(p.deferred) << p.name;
  }
  ASSERT_EQ(p.name, w.name);
  EXPECT_EQ(p.begin, w.begin) << p.name;
  EXPECT_EQ(p.end, w.end) << p.name;
  EXPECT_EQ(p.tail, w.tail) << p.name;
  ASSERT_EQ(p.props.size(), w.props.size()) << p.name;
  for (std::size_t k = 0; k < p.props.size(); ++k) {
    EXPECT_EQ(p.props[k].type, w.props[k].type) << p.name;
    EXPECT_EQ(p.props[k].offset, w.props[k].offset) << p.name;
    EXPECT_EQ(p.props[k].size, w.props[k].size) << p.name;
  }
  ASSERT_EQ(p.children.size(), w.children.size()) << p.name;
  for (std::size_t k = 0; k < p.children.size(); ++k)
    expect_same_tree(partial, p.children[k], w.children[k], deferred);
}

}  // namespace

TEST(FbxSceneParse, ReadsTheSameSceneAndBuildsDeferredNodesLikeAWholeParse) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto files = binary_corpus_files();
  ASSERT_GE(files.size(), 5u);
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    const std::string data = ikfix::io::read_file(path);
    const fbx::Document whole = fbx::parse(data, path.string());
    fbx::Document partial = fbx::parse(data, path.string(), fbx::ParseDepth::scene);
    const fbx::Scene a = fbx::read_scene(whole);
    const fbx::Scene b = fbx::read_scene(partial);
    ASSERT_EQ(a.models.size(), b.models.size());
    for (std::size_t m = 0; m < a.models.size(); ++m) {
      EXPECT_EQ(a.models[m].id, b.models[m].id);
      EXPECT_EQ(a.models[m].name, b.models[m].name);
      EXPECT_EQ(a.models[m].parent, b.models[m].parent);
      EXPECT_EQ(a.models[m].deforms, b.models[m].deforms);
      EXPECT_EQ(a.models[m].transform.rotation, b.models[m].transform.rotation);
      EXPECT_EQ(a.models[m].transform.pre_rotation, b.models[m].transform.pre_rotation);
    }
    ASSERT_EQ(a.curves.size(), b.curves.size());
    ASSERT_EQ(a.curve_nodes.size(), b.curve_nodes.size());
    for (std::size_t c = 0; c < a.curve_nodes.size(); ++c) {
      EXPECT_EQ(a.curve_nodes[c].curves, b.curve_nodes[c].curves);
      EXPECT_EQ(a.curve_nodes[c].model, b.curve_nodes[c].model);
      EXPECT_EQ(a.curve_nodes[c].defaults, b.curve_nodes[c].defaults);
    }
    ASSERT_EQ(a.takes.size(), b.takes.size());
    EXPECT_EQ(a.fps, b.fps);
    EXPECT_EQ(a.unit_scale_factor, b.unit_scale_factor);
    // A curve decodes the same once its node is built.
    fbx::Scene decoded = b;
    if (!decoded.curves.empty()) {
      fbx::Scene reference = a;
      const int last = static_cast<int>(decoded.curves.size()) - 1;
      fbx::parse_children(
          partial,
          partial.root.children[decoded.objects_index].children[decoded.curves[last].object]);
      fbx::decode_curve(partial, decoded, last);
      fbx::decode_curve(whole, reference, last);
      EXPECT_EQ(decoded.curves[last].keys->times, reference.curves[last].keys->times);
      EXPECT_EQ(decoded.curves[last].keys->values, reference.curves[last].keys->values);
    }
    // The scene parse really defers (AnimationCurves, at least), and every deferred node is built
    // as the whole parse built it.
    std::size_t deferred = 0;
    expect_same_tree(partial, partial.root, whole.root, deferred);
    EXPECT_GT(deferred, a.curves.size());
  }
}

TEST(FbxSceneParse, APartialDocumentWritesBackByteForByteButNotChanged) {
  IKFIX_REQUIRE_SHARED_DATA();
  for (const auto& path : binary_corpus_files()) {
    SCOPED_TRACE(path.filename().string());
    const std::string data = ikfix::io::read_file(path);
    fbx::Document partial = fbx::parse(data, path.string(), fbx::ParseDepth::scene);
    EXPECT_TRUE(fbx::write(partial) == data);
    // A changed node whose children were never built cannot be written: its bytes are stale.
    fbx::Node& objects = *partial.root.child("Objects");
    for (fbx::Node& o : objects.children)
      if (o.deferred && !o.props.empty()) {
        fbx::set_value(o.props[0], std::int64_t{12345});
        EXPECT_THROW(fbx::write(partial), std::logic_error);
        break;
      }
  }
}

TEST(FbxSceneParse, DamageInsideDeferredNodesIsRefusedAsByAWholeParse) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto path = ikfix::test::shared_data_dir() / "anim" / "fbx" / "cmu_09_11_run_skeleton.fbx";
  const std::string original = ikfix::io::read_file(path);
  const fbx::Document whole = fbx::parse(original, path.string());
  // Cuts anywhere, including inside the AnimationCurves the scene parse does not build.
  for (double f : {0.00001, 0.001, 0.1, 0.5, 0.9, 0.999}) {
    const std::string cut =
        original.substr(0, static_cast<std::size_t>(f * static_cast<double>(original.size())));
    const std::string what = error_of(cut, fbx::ParseDepth::all);
    EXPECT_NE(what, "") << "cut at " << cut.size();
    EXPECT_EQ(error_of(cut, fbx::ParseDepth::scene), what) << "cut at " << cut.size();
  }
  // A KeyTime record (inside an AnimationCurve) whose end offset points past its curve, and one
  // whose property list length is off by one: both are structural damage the scene parse sees.
  const fbx::Node& objects = *whole.root.child("Objects");
  const fbx::Node* curve = nullptr;
  for (const fbx::Node& o : objects.children)
    if (o.name == "AnimationCurve" && o.child("KeyTime")) curve = &o;
  ASSERT_NE(curve, nullptr);
  const fbx::Node& key_time = *curve->child("KeyTime");
  const std::size_t word = whole.wide_offsets() ? 8 : 4;
  for (std::size_t field : {std::size_t{0}, 2 * word}) {
    std::string damaged = original;
    const std::uint64_t wrong =
        field == 0 ? curve->end + 1 : key_time.props[0].size + 2;  // the list is 1 + size bytes
    if (word == 8)
      std::memcpy(damaged.data() + key_time.begin + field, &wrong, 8);
    else {
      const auto narrow = static_cast<std::uint32_t>(wrong);
      std::memcpy(damaged.data() + key_time.begin + field, &narrow, 4);
    }
    const std::string what = error_of(damaged, fbx::ParseDepth::all);
    EXPECT_NE(what, "") << "field " << field;
    EXPECT_EQ(error_of(damaged, fbx::ParseDepth::scene), what) << "field " << field;
  }
}

TEST(FbxSceneParse, OnlyTheListedModelsAreBuiltWhenAsked) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto path = ikfix::test::shared_data_dir() / "anim" / "fbx" / "cmu_07_01_walk_skeleton.fbx";
  const std::string data = ikfix::io::read_file(path);
  const fbx::Document whole = fbx::parse(data, path.string());
  const fbx::Scene a = fbx::read_scene(whole);
  ASSERT_GE(a.models.size(), 3u);
  const std::vector<std::uint32_t> listed{a.models[1].object, a.models[2].object};
  const fbx::Document partial = fbx::parse(data, path.string(), fbx::ParseDepth::scene, listed);
  const fbx::Scene b = fbx::read_scene(partial);
  ASSERT_EQ(a.models.size(), b.models.size());
  int differing = 0;
  for (std::size_t m = 0; m < a.models.size(); ++m) {
    const fbx::Node& node = partial.root.children[b.objects_index].children[b.models[m].object];
    const bool built = m == 1 || m == 2;
    EXPECT_EQ(node.deferred, !built) << m;
    EXPECT_EQ(a.models[m].name, b.models[m].name);
    EXPECT_EQ(a.models[m].parent, b.models[m].parent);
    if (built) {
      EXPECT_EQ(a.models[m].transform.translation, b.models[m].transform.translation);
      EXPECT_EQ(a.models[m].transform.rotation, b.models[m].transform.rotation);
      EXPECT_EQ(a.models[m].transform.pre_rotation, b.models[m].transform.pre_rotation);
    } else {
      differing += a.models[m].transform.translation != b.models[m].transform.translation;
    }
  }
  EXPECT_GT(differing, 0);  // the others were not read (their Properties70 was not built)
}
