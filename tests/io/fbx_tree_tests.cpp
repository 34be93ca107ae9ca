// FBX node tree: byte-exact round trips on the real files, edits that touch only what changed,
// and clean errors on damaged, foreign and FBX 6.1 input.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "io/error.hpp"
#include "io/fbx/fbx.hpp"
#include "io/file_util.hpp"
#include "test_data.hpp"

namespace fbx = ikfix::io::fbx;
using ikfix::io::InputError;

namespace {

std::vector<std::filesystem::path> corpus_fbx_files() {
  std::vector<std::filesystem::path> files;
  const auto dir = ikfix::test::shared_data_dir() / "anim" / "fbx";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".fbx") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string error_of(const std::string& data, const std::string& name) {
  try {
    fbx::parse(data, name);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::size_t count_nodes(const fbx::Node& n) {
  std::size_t c = 1;
  for (const auto& k : n.children) c += count_nodes(k);
  return c;
}

// Every array property below `n`, decoded (checks zlib and ASCII array contents).
void decode_all_arrays(const fbx::Document& doc, const fbx::Node& n, std::size_t& arrays) {
  for (const auto& p : n.props)
    if (p.is_array()) {
      const auto v = fbx::as_doubles(doc, p);
      EXPECT_EQ(v.size(), fbx::array_size(doc, p)) << n.name;
      ++arrays;
    }
  for (const auto& c : n.children) decode_all_arrays(doc, c, arrays);
}

fbx::Node* find_first(fbx::Node& n, const std::string& name) {
  if (n.name == name) return &n;
  for (auto& c : n.children)
    if (auto* f = find_first(c, name)) return f;
  return nullptr;
}

}  // namespace

TEST(FbxTree, EveryCorpusFileRoundTripsByteForByte) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto files = corpus_fbx_files();
  ASSERT_GE(files.size(), 14u);
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    const std::string original = ikfix::io::read_file(path);
    const fbx::Document doc = fbx::parse(original, path.string());
    EXPECT_GE(doc.version, 7400u);
    EXPECT_GT(count_nodes(doc.root), 50u);
    EXPECT_TRUE(doc.root.child("Objects") != nullptr);
    EXPECT_TRUE(doc.root.child("Connections") != nullptr);
    const std::string again = fbx::write(doc);
    ASSERT_EQ(again.size(), original.size());
    EXPECT_TRUE(again == original);
    std::size_t arrays = 0;
    decode_all_arrays(doc, doc.root, arrays);
    if (path.filename().string().find("humanik") == std::string::npos) {
      EXPECT_GT(arrays, 0u);
    }
  }
}

TEST(FbxTree, ReplacedArrayIsReadBackAndEverythingElseIsKept) {
  IKFIX_REQUIRE_SHARED_DATA();
  for (const char* name : {"cmu_07_01_walk_skeleton.fbx", "kenney_character_maya_7700.fbx",
                           "sausage_3takes_maya_7500_ascii.fbx"}) {
    SCOPED_TRACE(name);
    const auto path = ikfix::test::shared_data_dir() / "anim" / "fbx" / name;
    fbx::Document doc = fbx::read_file(path);
    fbx::Node* curve = find_first(doc.root, "KeyValueFloat");
    ASSERT_NE(curve, nullptr);
    const auto before = fbx::as_doubles(doc, curve->props[0]);
    std::vector<float> values(before.size() + 3);
    for (std::size_t k = 0; k < values.size(); ++k)
      values[k] = 0.25f * static_cast<float>(k) - 1.5f;
    fbx::set_value(curve->props[0], values);
    const std::string written = fbx::write(doc);
    const fbx::Document again = fbx::parse(written, "again");
    // Same tree shape.
    EXPECT_EQ(count_nodes(again.root), count_nodes(doc.root));
    fbx::Node* curve2 = find_first(const_cast<fbx::Node&>(again.root), "KeyValueFloat");
    ASSERT_NE(curve2, nullptr);
    const auto after = fbx::as_doubles(again, curve2->props[0]);
    ASSERT_EQ(after.size(), values.size());
    for (std::size_t k = 0; k < values.size(); ++k)
      EXPECT_EQ(after[k], static_cast<double>(values[k]));
    // Writing the re-read document again is byte-exact.
    EXPECT_TRUE(fbx::write(again) == written);
  }
}

TEST(FbxTree, CreatedNodesAreWrittenAndReadBack) {
  IKFIX_REQUIRE_SHARED_DATA();
  for (const char* name : {"cmu_07_01_walk_skeleton.fbx", "kenney_character_maya_7700.fbx",
                           "max_skin_zup_7500_ascii.fbx"}) {
    SCOPED_TRACE(name);
    const auto path = ikfix::test::shared_data_dir() / "anim" / "fbx" / name;
    fbx::Document doc = fbx::read_file(path);
    fbx::Node* objects = doc.root.child("Objects");
    ASSERT_NE(objects, nullptr);
    fbx::Node curve = fbx::make_node(
        "AnimationCurve",
        {std::int64_t{123456789}, fbx::stored_name(doc, "", "AnimCurve"), std::string()});
    curve.children.push_back(fbx::make_node("Default", {0.0}));
    curve.children.push_back(
        fbx::make_node("KeyTime", {std::vector<std::int64_t>{0, 1539538600, 3079077200}}));
    curve.children.push_back(
        fbx::make_node("KeyValueFloat", {std::vector<float>{1.0f, 2.5f, -3.25f}}));
    const std::size_t before = objects->children.size();
    objects->children.push_back(curve);
    const std::string written = fbx::write(doc);
    const fbx::Document again = fbx::parse(written, "again");
    const fbx::Node* objects2 = again.root.child("Objects");
    ASSERT_NE(objects2, nullptr);
    ASSERT_EQ(objects2->children.size(), before + 1);
    const fbx::Node& c = objects2->children.back();
    EXPECT_EQ(c.name, "AnimationCurve");
    EXPECT_EQ(fbx::as_int(again, c.props[0]), 123456789);
    EXPECT_EQ(fbx::display_name(fbx::as_string(again, c.props[1])), "AnimCurve::");
    ASSERT_NE(c.child("KeyTime"), nullptr);
    EXPECT_EQ(fbx::as_ints(again, c.child("KeyTime")->props[0]),
              (std::vector<std::int64_t>{0, 1539538600, 3079077200}));
    EXPECT_EQ(fbx::as_doubles(again, c.child("KeyValueFloat")->props[0]),
              (std::vector<double>{1.0, 2.5, -3.25}));
    // Nothing before the Objects node moved.
    EXPECT_EQ(written.compare(0, objects->begin, doc.data, 0, objects->begin), 0);
  }
}

TEST(FbxTree, UnsupportedVersionsNameTheFileAndTheVersion) {
  IKFIX_REQUIRE_SHARED_DATA();
  for (const char* name :
       {"maya_humanik_rig_6100_binary.fbx", "maya_humanik_character_6100_ascii.fbx"}) {
    const auto path = ikfix::test::shared_data_dir() / "anim" / "unsupported" / name;
    try {
      fbx::read_file(path);
      ADD_FAILURE() << name << " was accepted";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(name), std::string::npos) << what;
      EXPECT_NE(what.find("FBX 6.1 is not supported"), std::string::npos) << what;
    }
  }
}

TEST(FbxTree, TruncatedFilesAreRefusedAtEveryCut) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = ikfix::test::shared_data_dir() / "anim" / "fbx";
  for (const char* name : {"cmu_09_11_run_skeleton.fbx", "motionbuilder_limb_chain_7700.fbx",
                           "sausage_3takes_maya_7500_ascii.fbx"}) {
    SCOPED_TRACE(name);
    const std::string original = ikfix::io::read_file(dir / name);
    const bool binary = original.rfind("Kaydara", 0) == 0;
    for (double f : {0.0, 0.00001, 0.001, 0.1, 0.5, 0.9, 0.999}) {
      const std::string cut =
          original.substr(0, static_cast<std::size_t>(f * static_cast<double>(original.size())));
      if (!binary && f < 0.001) continue;  // the ASCII header itself: covered by the garbage test
      const std::string what = error_of(cut, "cut.fbx");
      EXPECT_NE(what, "") << "cut at " << cut.size() << " was accepted";
      EXPECT_EQ(what.rfind("cut.fbx", 0), 0u) << what;
    }
    // The binary footer cut off is also damage: the top-level null record is gone.
    if (binary) {
      const std::string what = error_of(original.substr(0, original.size() - 200), "cut.fbx");
      EXPECT_NE(what.find("truncated"), std::string::npos) << what;
    }
  }
}

TEST(FbxTree, GarbageIsNotAnFbxFile) {
  EXPECT_NE(error_of("", "e.fbx").find("not an FBX file"), std::string::npos);
  EXPECT_NE(error_of("hello world\n", "g.fbx").find("not an FBX file"), std::string::npos);
  EXPECT_NE(error_of(std::string(1000, '\x7f'), "g.fbx").find("not an FBX file"),
            std::string::npos);
  // A binary header followed by garbage records.
  std::string bad("Kaydara FBX Binary  \0\x1a\0", 23);
  const std::uint32_t v = 7400;
  bad.append(reinterpret_cast<const char*>(&v), 4);
  const char garbage[] = "\xff\xff\xff\x7f garbage garbage garbage";
  bad.append(garbage, sizeof garbage - 1);  // the literal's 28 bytes, not past its end
  const std::string what = error_of(bad, "g.fbx");
  EXPECT_NE(what.find("g.fbx"), std::string::npos) << what;
  EXPECT_NE(what.find("byte"), std::string::npos) << what;
  // ASCII with an unclosed node.
  const std::string ascii =
      "; FBX 7.5.0 project file\nFBXHeaderExtension:  {\n\tFBXVersion: 7500\nObjects: {\n";
  const std::string what2 = error_of(ascii, "a.fbx");
  EXPECT_NE(what2.find("a.fbx:"), std::string::npos) << what2;
  EXPECT_NE(what2.find("not closed"), std::string::npos) << what2;
  // A bad property type code inside a binary record.
  std::string rec("Kaydara FBX Binary  \0\x1a\0", 23);
  rec.append(reinterpret_cast<const char*>(&v), 4);
  auto put32 = [&](std::uint32_t x) { rec.append(reinterpret_cast<const char*>(&x), 4); };
  put32(27 + 13 + 1 + 2);  // end offset
  put32(1);
  put32(2);
  rec.push_back(1);
  rec.push_back('A');
  rec.push_back('Q');
  rec.push_back('\0');
  rec.append(13, '\0');
  rec.append(200, '\0');
  EXPECT_NE(error_of(rec, "q.fbx").find("unknown property type 'Q'"), std::string::npos)
      << error_of(rec, "q.fbx");
}

TEST(FbxTree, CorruptZlibArrayIsReportedWhenDecoded) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto path = ikfix::test::shared_data_dir() / "anim" / "fbx" / "cmu_07_01_walk_skeleton.fbx";
  fbx::Document doc = fbx::read_file(path);
  // The first zlib-encoded array in the file.
  const fbx::Property* found = nullptr;
  std::function<void(const fbx::Node&)> visit = [&](const fbx::Node& n) {
    for (const auto& q : n.props) {
      std::uint32_t encoding = 0;
      if (!found && q.is_array()) std::memcpy(&encoding, doc.data.data() + q.offset + 4, 4);
      if (!found && encoding == 1 && q.size > 40) found = &q;
    }
    for (const auto& c : n.children) visit(c);
  };
  visit(doc.root);
  ASSERT_NE(found, nullptr);
  const auto& p = *found;
  doc.data[p.offset + 12 + 5] ^= 0x5a;
  doc.data[p.offset + 12 + 6] ^= 0x33;
  try {
    fbx::as_doubles(doc, p);
    ADD_FAILURE() << "corrupt zlib data decoded";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("zlib"), std::string::npos) << e.what();
  }
}
