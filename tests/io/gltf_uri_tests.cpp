// Confined glTF buffer uris (issue 19, row 4): `../../etc/passwd`, `/etc/passwd`, `%2e%2e/...`
// were opened and the error stated the file's size; `/dev/zero` grew to 4.3 GB and a FIFO never
// returned. Now only regular files in the glTF file's folder are read, never more than byteLength.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "gltf_test_support.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/gltf/reader.hpp"
#include "io/gltf/uri_file.hpp"
#include "io/gltf/writer.hpp"
#include "test_scratch.hpp"

namespace ikfix::io::gltf {
namespace {

namespace fs = std::filesystem;

std::string gltf_with_buffer(const std::string& uri, std::size_t byte_length) {
  return R"({"asset": {"version": "2.0"}, "buffers": [{"byteLength": )" +
         std::to_string(byte_length) + R"(, "uri": ")" + uri + R"("}]})";
}

// The error of reading a .gltf in `dir`/in whose one buffer has `uri` (empty: it was read).
std::string error_reading(const fs::path& dir, const std::string& uri, std::size_t length = 4) {
  write_file_atomic(dir / "in" / "a.gltf", gltf_with_buffer(uri, length));
  try {
    read_file(dir / "in" / "a.gltf");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

struct UriDir {
  fs::path dir = ikfix::test::scratch_path("gltf_uri");
  UriDir() {
    fs::remove_all(dir);
    write_file_atomic(dir / "outside.bin", std::string(1000, 'x'));  // a 1000-byte secret
    write_file_atomic(dir / "in" / "inside.bin", std::string(8, 'y'));
  }
  ~UriDir() { set_allow_outside_uris(false); }
};

void expect_refused_quietly(const std::string& error) {
  EXPECT_NE(error.find("refused"), std::string::npos) << error;
  EXPECT_EQ(error.find("1000"), std::string::npos) << error;  // says nothing of the file
  EXPECT_EQ(error.find("bytes"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

TEST(GltfUri, PathsOutOfTheFilesFolderAreRefusedWithoutSayingAnythingOfTheFile) {
  const UriDir d;
  expect_refused_quietly(error_reading(d.dir, "../outside.bin"));
  expect_refused_quietly(error_reading(d.dir, "%2e%2e/outside.bin"));
  expect_refused_quietly(error_reading(d.dir, "sub/../../outside.bin"));
  expect_refused_quietly(error_reading(d.dir, (d.dir / "outside.bin").string()));
  expect_refused_quietly(error_reading(d.dir, "file://" + (d.dir / "outside.bin").string()));
  expect_refused_quietly(error_reading(d.dir, "/etc/passwd"));
  fs::create_symlink(d.dir / "outside.bin", d.dir / "in" / "link.bin");
  expect_refused_quietly(error_reading(d.dir, "link.bin"));
}

TEST(GltfUri, DevicesAndFifosAreRefusedAtOnceEvenWhenOutsideUrisAreAllowed) {
  const UriDir d;
  ASSERT_EQ(::mkfifo((d.dir / "in" / "fifo.bin").c_str(), 0600), 0);
  EXPECT_NE(error_reading(d.dir, "fifo.bin").find("not a regular file"), std::string::npos);
  expect_refused_quietly(error_reading(d.dir, "/dev/zero", 1u << 30));
  set_allow_outside_uris(true);
  EXPECT_NE(error_reading(d.dir, "/dev/zero", 1u << 30).find("not a regular file"),
            std::string::npos);
  EXPECT_NE(error_reading(d.dir, "fifo.bin").find("not a regular file"), std::string::npos);
}

TEST(GltfUri, AFileInTheFolderIsReadUpToByteLengthAndOutsideOnesWhenAllowed) {
  const UriDir d;
  EXPECT_EQ(error_reading(d.dir, "inside.bin", 4), "");
  EXPECT_EQ(error_reading(d.dir, "./inside.bin", 8), "");
  EXPECT_NE(error_reading(d.dir, "inside.bin", 9).find("byteLength 9"), std::string::npos);
  set_allow_outside_uris(true);
  EXPECT_EQ(error_reading(d.dir, "../outside.bin"), "");
  EXPECT_EQ(error_reading(d.dir, (d.dir / "outside.bin").string()), "");
}

TEST(GltfUri, PercentDecoding) {
  EXPECT_EQ(percent_decode("a%20b%2E%2e"), "a b..");
  EXPECT_EQ(percent_decode("50%"), "50%");
  EXPECT_EQ(percent_decode("%zz"), "%zz");
}

// A one-node animated asset whose buffer is the external file "data.bin" beside it.
ikfix::test::MiniGltf external_buffer_asset() {
  ikfix::test::MiniGltf mini;
  mini.add_node("root", -1);
  const int times = mini.add_floats({0.0f, 1.0f}, "SCALAR", 1);
  const int moves = mini.add_floats({0, 0, 0, 1, 0, 0}, "VEC3", 3);
  mini.add_animation("walk", {{0, "translation", times, moves, "LINEAR"}});
  mini.json["buffers"] = {{{"byteLength", mini.bin.size()}, {"uri", "data.bin"}}};
  return mini;
}

std::string glb_of(const std::string& json_text) {
  std::string json = json_text;
  while (json.size() % 4) json += ' ';
  auto u32 = [](std::uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
  return "glTF" + u32(2) + u32(static_cast<std::uint32_t>(12 + 8 + json.size())) +
         u32(static_cast<std::uint32_t>(json.size())) + "JSON" + json;
}

// Issue 19, row 8: a GLB with an external relative buffer, written to another folder, still
// pointed at the old relative path; a .gltf's rewritten `../in/data.bin` is now refused on
// reading. Both are written readable where they are: the buffer is embedded.
TEST(GltfUri, AnOutputInAnotherFolderReadsBackWithItsBuffer) {
  const fs::path dir = ikfix::test::scratch_path("gltf_uri_moved");
  fs::remove_all(dir);
  const ikfix::test::MiniGltf mini = external_buffer_asset();
  write_file_atomic(dir / "in" / "data.bin", mini.bin);
  write_file_atomic(dir / "in" / "a.glb", glb_of(mini.json.dump()));
  write_file_atomic(dir / "in" / "a.gltf", mini.json.dump());
  for (const char* name : {"a.glb", "a.gltf"}) {
    const Document doc = read_file(dir / "in" / name);
    save(dir / "out" / name, doc, {});
    const Document back = read_file(dir / "out" / name);
    ASSERT_EQ(back.buffers.size(), 1u) << name;
    EXPECT_EQ(back.buffers[0].source, BufferSource::data_uri) << name;
    EXPECT_EQ(std::string(back.buffer_bytes(0)), mini.bin) << name;
  }
}

}  // namespace
}  // namespace ikfix::io::gltf
