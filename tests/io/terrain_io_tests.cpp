#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include "core/terrain_gen.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/terrain_io.hpp"
#include "test_scratch.hpp"

namespace ikfix::io {
namespace {

namespace fs = std::filesystem;
using core::Vec3;

class TerrainIo : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = ikfix::test::scratch_path(std::string("terrain_io_") + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write_text(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  fs::path dir_;
};

// Triangles as corner positions, so meshes with different vertex sharing compare equal.
void expect_same_triangles(const core::TerrainMesh& a, const core::TerrainMesh& b, double tol) {
  ASSERT_EQ(a.triangles.size(), b.triangles.size());
  for (std::size_t t = 0; t < a.triangles.size(); ++t)
    for (int k = 0; k < 3; ++k) {
      const Vec3& pa = a.vertices[a.triangles[t][k]];
      const Vec3& pb = b.vertices[b.triangles[t][k]];
      ASSERT_NEAR(glm::length(pa - pb), 0.0, tol) << "triangle " << t << " corner " << k;
      if (!a.vertex_normals.empty() && !b.vertex_normals.empty()) {
        const Vec3& na = a.vertex_normals[a.triangles[t][k]];
        const Vec3& nb = b.vertex_normals[b.triangles[t][k]];
        ASSERT_NEAR(glm::length(na - nb), 0.0, 1e-6) << "normal, triangle " << t;
      }
    }
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

TEST_F(TerrainIo, StairsRoundTripThroughObj) {
  core::StairsParams p;
  p.axis = core::TerrainAxis::kNegX;
  const core::TerrainMesh mesh = core::make_stairs_terrain(p);
  const fs::path path = dir_ / "stairs.obj";
  save_obj(path, mesh);
  const core::TerrainMesh loaded = load_terrain_mesh(path);
  EXPECT_TRUE(loaded.vertex_normals.empty());
  // OBJ numbers are read in double and written to 1e-9 m.
  expect_same_triangles(mesh, loaded, 1e-9);
  // Corners with identical position (and normal) are merged back into shared vertices.
  EXPECT_EQ(loaded.vertices.size(), mesh.vertices.size());
}

TEST_F(TerrainIo, BumpsRoundTripKeepsNormals) {
  core::BumpsParams p;
  p.size = 4.0;
  p.cell = 0.25;
  const core::TerrainMesh mesh = core::make_bumps_terrain(p);
  const fs::path path = dir_ / "bumps.obj";
  save_obj(path, mesh);
  const core::TerrainMesh loaded = load_terrain_mesh(path);
  ASSERT_EQ(loaded.vertex_normals.size(), loaded.vertices.size());
  expect_same_triangles(mesh, loaded, 1e-8);
  EXPECT_EQ(loaded.vertices.size(), mesh.vertices.size());
}

TEST_F(TerrainIo, ObjStatementsIndicesAndPolygons) {
  // Comments, CRLF, vt and other statements skipped, negative indices, a pentagon fanned,
  // every corner syntax, extra vertex numbers (w / colour) ignored.
  const fs::path path =
      write_text("forms.obj",
                 "# header\r\nmtllib x.mtl\r\no ground\r\n"
                 "v 0 0 0 1\nv 1 0 0 0.5 0.5 0.5\nv 1 0 1\nv 0.5 0 1.5\nv 0 0 1  # last\n"
                 "vt 0 0\nvn 0 1 0\ns off\nusemtl m\ng part\n"
                 "f 1/1/1 5//1 -2/1/-1 3//1 2/1/1\n"
                 "l 1 2\np 3\n");
  const core::TerrainMesh mesh = load_terrain_mesh(path);
  ASSERT_EQ(mesh.triangles.size(), 3u) << "a pentagon is three triangles";
  ASSERT_EQ(mesh.vertices.size(), 5u);
  ASSERT_EQ(mesh.vertex_normals.size(), 5u);
  // Fan from the first corner: (1 5 4), (1 4 3), (1 3 2) in file numbering.
  const auto at = [&](int t, int k) { return mesh.vertices[mesh.triangles[t][k]]; };
  EXPECT_EQ(at(0, 0), Vec3(0, 0, 0));
  EXPECT_EQ(at(0, 1), Vec3(0, 0, 1));
  EXPECT_EQ(at(0, 2), Vec3(0.5, 0, 1.5));
  EXPECT_EQ(at(2, 2), Vec3(1, 0, 0));
  EXPECT_EQ(mesh.vertex_normals[0], Vec3(0, 1, 0));

  // Old Mac line ends (CR only), and a face naming vertices defined after it.
  const fs::path cr = write_text("cr.obj", "f 1 3 2\rv 0 0 0\rv 1 0 0\rv 0 0 1\r");
  const core::TerrainMesh from_cr = load_terrain_mesh(cr);
  ASSERT_EQ(from_cr.triangles.size(), 1u);
  EXPECT_EQ(from_cr.vertices[from_cr.triangles[0][1]], Vec3(0, 0, 1));

  // Without a normal on every corner, no normals at all.
  const fs::path mixed =
      write_text("mixed.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nvn 0 1 0\nf 1//1 3 2//1\n");
  EXPECT_TRUE(load_terrain_mesh(mixed).vertex_normals.empty());
}

TEST_F(TerrainIo, ObjErrorsNameFileAndLine) {
  const struct {
    const char* text;
    const char* expect;
  } cases[] = {
      {"v 0 0 0\nv 1 0 0\nv 0 0 x\nf 1 2 3\n", ":3: 'x' is not a number"},
      {"v 0 0\n", ":1: expected 3 numbers, found 2"},
      {"v 0 0 0\nv 1 0 0\nv 0 0 1\n\nf 1 2 4\n",
       ":5: face corner: vertex index 4 is out of range (3 vertices"},
      {"v 0 0 0\r\nv 1 0 0\r\nf 1 2 x\r\nv 0 0 1\r\n",
       ":3: face corner 'x': vertex index is not a number"},
      {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 0 1 2\n",
       ":4: face corner: vertex index 0 (indices start at 1)"},
      {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf -4 1 2\n", ":4: face corner: vertex index -4 is out of range"},
      {"v 0 0 0\nv 1 0 0\nf 1 2\n", ":3: face has 2 corners"},
      {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1//1 2//1 3//1\n",
       ":4: face corner: normal index 1 is out of range"},
      {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3x\n", ":4: face corner has unexpected 'x'"},
      {"v 0 nan 0\n", ":1: 'nan' is not a finite number"},
      {"vn 0 1 0 1\n", ":1: expected 3 numbers, found 4"},
  };
  int n = 0;
  for (const auto& c : cases) {
    const fs::path path = write_text("bad" + std::to_string(n++) + ".obj", c.text);
    const std::string m = message_of([&] { load_terrain_mesh(path); });
    EXPECT_NE(m.find(path.string() + c.expect), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

TEST_F(TerrainIo, SavedObjIsDeterministicAndDocumented) {
  const core::TerrainMesh mesh = core::make_cliff_terrain({});
  save_obj(dir_ / "a.obj", mesh);
  save_obj(dir_ / "b.obj", mesh);
  const std::string a = read_file(dir_ / "a.obj"), b = read_file(dir_ / "b.obj");
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("# units: metres, up axis: +Y"), std::string::npos);
  EXPECT_NE(a.find("\nv -10.000000000 0.000000000 -10.000000000\n"), std::string::npos) << a;
  EXPECT_NE(a.find("\nf 1 2 3\n"), std::string::npos);
  EXPECT_EQ(a.find("-0.000000000"), std::string::npos) << "no negative zeros";
  EXPECT_EQ(a.find("vn "), std::string::npos);
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos)
        << "temp file left behind";
}

TEST_F(TerrainIo, ZUpCentimetresAreRotatedAndScaled) {
  // A 2 m x 1 m quad 0.5 m above the ground in a Z-up, centimetre file.
  const fs::path path = write_text("zup.obj",
                                   "# z up, cm\n"
                                   "v 0 0 50\nv 200 0 50\nv 200 100 50\nv 0 100 50\n"
                                   "vn 0 0 1\n"
                                   "f 1//1 2//1 3//1 4//1\n");
  const core::TerrainMesh mesh = load_terrain_mesh(path, 0.01, 'z');
  ASSERT_EQ(mesh.triangles.size(), 2u) << "the quad is triangulated";
  ASSERT_EQ(mesh.vertices.size(), 4u);
  // (x, y, z) -> (x, z, -y) * 0.01
  EXPECT_NEAR(glm::length(mesh.vertices[0] - Vec3(0.0, 0.5, 0.0)), 0.0, 1e-12);
  EXPECT_NEAR(glm::length(mesh.vertices[1] - Vec3(2.0, 0.5, 0.0)), 0.0, 1e-12);
  EXPECT_NEAR(glm::length(mesh.vertices[2] - Vec3(2.0, 0.5, -1.0)), 0.0, 1e-12);
  EXPECT_NEAR(glm::length(mesh.vertices[3] - Vec3(0.0, 0.5, -1.0)), 0.0, 1e-12);
  ASSERT_EQ(mesh.vertex_normals.size(), 4u);
  EXPECT_NEAR(glm::length(mesh.vertex_normals[0] - Vec3(0, 1, 0)), 0.0, 1e-12);
  // Counter-clockwise seen from +Y after the rotation (it was counter-clockwise from +Z).
  const auto& tri = mesh.triangles[0];
  const Vec3 n = glm::cross(mesh.vertices[tri[1]] - mesh.vertices[tri[0]],
                            mesh.vertices[tri[2]] - mesh.vertices[tri[0]]);
  EXPECT_GT(n.y, 0.0);

  // The same file read as Y up in metres keeps its numbers.
  const core::TerrainMesh raw = load_terrain_mesh(path);
  EXPECT_NEAR(glm::length(raw.vertices[2] - Vec3(200.0, 100.0, 50.0)), 0.0, 1e-9);
}

// base64 of raw bytes, for an embedded glTF buffer.
std::string base64(const std::string& bytes) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                       (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += table[(v >> 6) & 63];
    out += table[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                       (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += table[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

TEST_F(TerrainIo, GltfNodeTransformsAreApplied) {
  // One triangle mesh used by two nodes: a parent translated by (10, 0, 0) with a child
  // scaled by (-1, 1, 1) (mirrored: the loader must keep the face counter-clockwise).
  const float positions[9] = {0, 0, 0, 0, 0, 1, 1, 0, 0};  // counter-clockwise from above
  std::string bytes(reinterpret_cast<const char*>(positions), sizeof positions);
  const std::string gltf = R"({
    "asset": {"version": "2.0"},
    "scene": 0,
    "scenes": [{"nodes": [0]}],
    "nodes": [
      {"mesh": 0, "translation": [10, 0, 0], "children": [1]},
      {"mesh": 0, "scale": [-1, 1, 1], "translation": [0, 2, 0]}
    ],
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
    "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                   "min": [0, 0, 0], "max": [1, 0, 1]}],
    "bufferViews": [{"buffer": 0, "byteLength": 36}],
    "buffers": [{"byteLength": 36, "uri": "data:application/octet-stream;base64,)" +
                           base64(bytes) + R"("}]
  })";
  const fs::path path = write_text("nodes.gltf", gltf);
  const core::TerrainMesh mesh = load_terrain_mesh(path, 2.0);
  ASSERT_EQ(mesh.triangles.size(), 2u);
  const auto corner = [&](int t, int k) { return mesh.vertices[mesh.triangles[t][k]]; };
  // Parent: translated by 10, then everything scaled by 2 (metres_per_unit).
  EXPECT_NEAR(glm::length(corner(0, 2) - Vec3(22.0, 0.0, 0.0)), 0.0, 1e-9);
  // Child: mirrored in x, lifted by 2, then the parent's translation, then x2.
  bool found = false;
  for (int k = 0; k < 3; ++k)
    found = found || glm::length(corner(1, k) - Vec3(18.0, 4.0, 0.0)) < 1e-9;
  EXPECT_TRUE(found);
  for (int t = 0; t < 2; ++t) {
    const Vec3 n = glm::cross(corner(t, 1) - corner(t, 0), corner(t, 2) - corner(t, 0));
    EXPECT_GT(n.y, 0.0) << "triangle " << t << " must stay counter-clockwise from above";
  }
}

TEST_F(TerrainIo, ErrorsNameTheFile) {
  const fs::path missing = dir_ / "missing.obj";
  std::string m = message_of([&] { load_terrain_mesh(missing); });
  EXPECT_NE(m.find(missing.string()), std::string::npos) << m;
  EXPECT_NE(m.find("not found"), std::string::npos) << m;

  std::mt19937 rng(11);
  std::string garbage(4096, '\0');
  for (char& c : garbage) c = static_cast<char>(rng());
  for (const char* name : {"garbage.fbx", "garbage.glb", "garbage.xyz123"}) {
    const fs::path path = write_text(name, garbage);
    m = message_of([&] { load_terrain_mesh(path); });
    EXPECT_NE(m.find(path.string()), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }

  const fs::path lines = write_text("lines.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nl 1 2\nl 2 3\n");
  m = message_of([&] { load_terrain_mesh(lines); });
  EXPECT_NE(m.find("no triangles"), std::string::npos) << m;

  const fs::path empty = write_text("empty.obj", "# nothing\n");
  m = message_of([&] { load_terrain_mesh(empty); });
  EXPECT_NE(m.find(empty.string()), std::string::npos) << m;

  m = message_of([&] { load_terrain_mesh(dir_); });
  EXPECT_NE(m.find("directory"), std::string::npos) << m;

  const fs::path ok = write_text("ok.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 3 2\n");
  EXPECT_EQ(load_terrain_mesh(ok).triangles.size(), 1u);
  m = message_of([&] { load_terrain_mesh(ok, 0.0); });
  EXPECT_NE(m.find("metres per unit"), std::string::npos) << m;
  m = message_of([&] { load_terrain_mesh(ok, 1.0, 'x'); });
  EXPECT_NE(m.find("up axis"), std::string::npos) << m;
}

TEST_F(TerrainIo, SaveRejectsMalformedMeshesAndUnwritablePaths) {
  core::TerrainMesh bad = core::make_flat_terrain({});
  bad.triangles[0][1] = 99;
  std::string m = message_of([&] { save_obj(dir_ / "bad.obj", bad); });
  EXPECT_NE(m.find("bad.obj"), std::string::npos) << m;
  EXPECT_FALSE(fs::exists(dir_ / "bad.obj"));

  // A directory where the file should go.
  fs::create_directories(dir_ / "taken.obj");
  m = message_of([&] { save_obj(dir_ / "taken.obj", core::make_flat_terrain({})); });
  EXPECT_NE(m.find("taken.obj"), std::string::npos) << m;
}

}  // namespace
}  // namespace ikfix::io
