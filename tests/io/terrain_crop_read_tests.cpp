// A large terrain read only where the clip stands (issue 18): the OBJ reader dropping far
// triangles as it reads, and the prepared terrain (.ikterrain) read by tiles, both give
// crop_terrain_mesh of the whole mesh bit for bit, and a core::Terrain built on that part
// answers as the whole terrain does, at the part's edge too. Every kind of damage to a
// prepared file is refused with a one-line error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <glm/gtc/matrix_transform.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "core/terrain.hpp"
#include "core/terrain_gen.hpp"
#include "core/terrain_solid.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/mapped_file.hpp"
#include "io/obj_parts.hpp"
#include "io/obj_read_ahead.hpp"
#include "io/obj_terrain.hpp"
#include "io/prepared_terrain.hpp"
#include "io/terrain_io.hpp"
#include "obj_test_support.hpp"
#include "test_scratch.hpp"

namespace ikfix::io {
namespace {

using core::Vec3;

bool same_bits(const Vec3& a, const Vec3& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_same_mesh(const core::TerrainMesh& got, const core::TerrainMesh& want) {
  ASSERT_EQ(got.vertices.size(), want.vertices.size());
  ASSERT_EQ(got.vertex_normals.size(), want.vertex_normals.size());
  ASSERT_EQ(got.triangles, want.triangles);
  for (std::size_t i = 0; i < want.vertices.size(); ++i) {
    ASSERT_TRUE(same_bits(got.vertices[i], want.vertices[i])) << "vertex " << i;
    if (!want.vertex_normals.empty()) {
      ASSERT_TRUE(same_bits(got.vertex_normals[i], want.vertex_normals[i])) << "normal " << i;
    }
  }
}

// A bumps terrain (10 m, 0.1 m cells: 20 k triangles) offset from the origin, so that its
// centre is not 0 and float positions relative to a wrong centre would differ.
// `ikfix terrain bumps`' mesh: a square of `size_m` metres in cells of `cell_m` metres.
core::TerrainMesh bumps_of(double size_m, double cell_m) {
  core::BumpsParams params;
  params.size = size_m;
  params.cell = cell_m;
  return core::make_bumps_terrain(params);
}

core::TerrainMesh bumps_mesh() {
  core::TerrainMesh mesh = bumps_of(10.0, 0.1);
  for (Vec3& v : mesh.vertices) v += Vec3(3.25, 0.5, -1.75);
  return mesh;
}

// Rectangles: inside, across an edge of the mesh, a sliver, and one missing the mesh.
const std::vector<core::XzBox> kRects = {{-1.0, -3.0, 2.5, 1.0},
                                         {5.0, -8.0, 12.0, -4.0},
                                         {0.3, -10.0, 0.31, 10.0},
                                         {40.0, 40.0, 41.0, 41.0}};

TEST(TerrainCropRead, ObjDropsFarTrianglesAsCropTerrainMeshDoes) {
  const auto dir = test::scratch_dir("crop_read_obj");
  const auto path = dir / "bumps.obj";
  save_obj(path, bumps_mesh());
  const core::TerrainMesh whole = load_terrain_mesh(path);
  const core::Terrain whole_terrain(whole);
  const std::string text = read_file(path);
  const core::ThreadPool pool(3);
  for (const core::XzBox& r : kRects)
    for (const core::ParallelRunner* runner : {static_cast<const core::ParallelRunner*>(&pool),
                                               static_cast<const core::ParallelRunner*>(nullptr)}) {
      SCOPED_TRACE(r.min_x);
      core::TerrainCrop crop;
      const core::TerrainMesh part =
          read_obj_terrain(text, glm::dmat4(1.0), "bumps.obj", runner, r, &crop);
      expect_same_mesh(part, core::crop_terrain_mesh(whole, r.min_x, r.min_z, r.max_x, r.max_z));
      EXPECT_TRUE(same_bits(crop.whole_min, whole_terrain.bounds_min()));
      EXPECT_TRUE(same_bits(crop.whole_max, whole_terrain.bounds_max()));
      EXPECT_EQ(crop.min_x, r.min_x);
      EXPECT_EQ(crop.max_z, r.max_z);
    }
  // Through the loader, in another unit: the rectangle is in metres.
  const TerrainRead cm = load_terrain_part(path, 0.01, 'y', core::XzBox{0.0, -0.05, 0.02, 0.0});
  const core::TerrainMesh whole_cm = load_terrain_mesh(path, 0.01);
  expect_same_mesh(cm.mesh, core::crop_terrain_mesh(whole_cm, 0.0, -0.05, 0.02, 0.0));
  ASSERT_TRUE(cm.crop.has_value());
}

// An OBJ file large enough to be read on a pool (2 MB or more), on as many threads as --threads
// asks: the same part and bounds on each.
TEST(TerrainCropRead, ObjReadOnAnyNumberOfThreadsGivesTheSamePart) {
  const auto path = test::scratch_dir("crop_read_threads") / "bumps.obj";
  save_obj(path, bumps_of(10.0, 0.05));
  ASSERT_GE(std::filesystem::file_size(path), std::uintmax_t{2} << 20);
  const core::XzBox rect{-1.0, -3.0, 2.5, 1.0};
  const TerrainRead one = load_terrain_part(path, 1.0, 'y', rect, 1);
  ASSERT_TRUE(one.crop.has_value());
  for (const int threads : {2, 3, 0}) {
    SCOPED_TRACE(threads);
    const TerrainRead read = load_terrain_part(path, 1.0, 'y', rect, threads);
    expect_same_mesh(read.mesh, one.mesh);
    ASSERT_TRUE(read.crop.has_value());
    EXPECT_TRUE(same_bits(read.crop->whole_min, one.crop->whole_min));
    EXPECT_TRUE(same_bits(read.crop->whole_max, one.crop->whole_max));
  }
}

// The first pass begun before the footprint is known (io::ObjReadAhead, as `run` begins it
// beside the clip's read): the same part and bounds as the read done all at once; a read that
// does not crop stops it and reads the whole mesh; a file it does not fit gets none.
TEST(TerrainCropRead, ObjReadBegunAheadGivesTheSamePart) {
  const auto dir = test::scratch_dir("crop_read_ahead");
  const auto path = dir / "bumps.obj";
  save_obj(path, bumps_of(10.0, 0.05));
  ASSERT_GE(std::filesystem::file_size(path), ObjReadAhead::kReadAheadFromBytes);
  const core::XzBox rect{-1.0, -3.0, 2.5, 1.0};
  const TerrainRead one = load_terrain_part(path, 1.0, 'y', rect, 1);
  for (const int threads : {2, 3}) {
    SCOPED_TRACE(threads);
    core::ThreadPool pool(threads);
    const std::unique_ptr<ObjReadAhead> ahead = ObjReadAhead::start(path, &pool);
    ASSERT_NE(ahead, nullptr);
    const TerrainRead read = load_terrain_part(path, 1.0, 'y', rect, 0, true, &pool, ahead.get());
    expect_same_mesh(read.mesh, one.mesh);
    ASSERT_TRUE(read.crop.has_value());
    EXPECT_TRUE(same_bits(read.crop->whole_min, one.crop->whole_min));
    EXPECT_TRUE(same_bits(read.crop->whole_max, one.crop->whole_max));

    const std::unique_ptr<ObjReadAhead> unused = ObjReadAhead::start(path, &pool);
    ASSERT_NE(unused, nullptr);
    const TerrainRead whole =
        load_terrain_part(path, 1.0, 'y', std::nullopt, 0, true, &pool, unused.get());
    expect_same_mesh(whole.mesh, load_terrain_mesh(path));
    EXPECT_FALSE(whole.crop.has_value());
  }
  core::ThreadPool pool(2);
  EXPECT_EQ(ObjReadAhead::start(path, nullptr), nullptr);  // one thread: nothing beside it
  core::ThreadPool one_thread(1);
  EXPECT_EQ(ObjReadAhead::start(path, &one_thread), nullptr);
  save_obj(dir / "small.obj", bumps_of(2.0, 0.5));
  EXPECT_EQ(ObjReadAhead::start(dir / "small.obj", &pool), nullptr);
  EXPECT_EQ(ObjReadAhead::start(dir / "missing.obj", &pool), nullptr);
}

// A first pass whose first chunk was read before the rectangle was known (stored positions)
// and the rest after it (sided parts, ObjPart::sided): the part and bounds of the read done
// at once, read in place or through copies.
TEST(TerrainCropRead, ObjChunksReadBeforeAndAfterTheRectangleGiveTheSamePart) {
  const auto path = test::scratch_dir("crop_mixed_parts") / "bumps.obj";
  save_obj(path, bumps_of(10.0, 0.05));
  const std::string text = read_file(path);
  ObjTextPages copies = copies_of(text);
  const core::ThreadPool pool(2);
  const core::XzBox rect{-1.0, -3.0, 2.5, 1.0};
  const core::TerrainMesh whole = load_terrain_mesh(path);
  for (const ObjTextPages& pages : {ObjTextPages{}, copies}) {
    core::TerrainCrop at_once, mixed;
    const core::TerrainMesh want =
        read_obj_terrain(text, glm::dmat4(1.0), "b.obj", &pool, rect, &at_once, pages);
    expect_same_mesh(
        want, core::crop_terrain_mesh(whole, rect.min_x, rect.min_z, rect.max_x, rect.max_z));
    const std::unique_ptr<ObjElementChunks> chunks = cropped_first_pass(text, &pool, pages);
    ASSERT_GE(chunks->count(), 2u);
    chunks->read_unclaimed(1);
    std::vector<char> sided;
    const ObjFirstPass first_pass = [&](const ObjWorldRect& world) {
      chunks->set_world_rect(world);
      chunks->read_unclaimed_on(&pool);
      std::optional<ObjParts> parts = chunks->result();
      for (const ObjPart& part : parts->parts) sided.push_back(part.sided);
      return parts;
    };
    expect_same_mesh(
        read_obj_terrain(text, glm::dmat4(1.0), "b.obj", &pool, rect, &mixed, pages, first_pass),
        want);
    EXPECT_EQ(sided.front(), 0);
    EXPECT_EQ(sided.back(), 1);
    EXPECT_TRUE(same_bits(mixed.whole_min, at_once.whole_min));
    EXPECT_TRUE(same_bits(mixed.whole_max, at_once.whole_max));
  }
}

// Positions whose sides and bounds a sided part cannot give (a world -0 under a move by -0, a
// coordinate past a double's range under a scale) are read again: the crop of the whole mesh,
// and the error the read without a crop gives.
TEST(TerrainCropRead, SidedPositionsOffTheCommonPathAreReadAgain) {
  std::string text = "v -0 0 -0\nv 1 0 0\nv 0 0 1\nv 1 -0 1\n";
  for (int i = 0; i < 50; ++i) text += "v " + std::to_string(i) + " 0.5 2\n";
  text += "f 1 2 3\nf 2 4 3\nf 3 4 5\n";
  glm::dmat4 minus_zero_move(1.0);
  minus_zero_move[3] = glm::dvec4(-0.0, -0.0, -0.0, 1.0);
  const core::ThreadPool pool(2);
  ObjParts as_one = as_parts(parse_obj(text, "z.obj"));
  const core::TerrainMesh whole = obj_terrain_mesh(as_one, minus_zero_move, "z.obj", nullptr);
  const core::Terrain t(whole);
  for (const core::XzBox& r :
       {core::XzBox{-1.0, -1.0, 2.0, 2.0}, core::XzBox{-0.5, -0.5, 0.0, 0.0}}) {
    core::TerrainCrop crop;
    expect_same_mesh(read_obj_terrain(text, minus_zero_move, "z.obj", &pool, r, &crop),
                     core::crop_terrain_mesh(whole, r.min_x, r.min_z, r.max_x, r.max_z));
    EXPECT_TRUE(same_bits(crop.whole_min, t.bounds_min()));
    EXPECT_TRUE(same_bits(crop.whole_max, t.bounds_max()));
  }
  const glm::dmat4 huge = glm::scale(glm::dmat4(1.0), glm::dvec3(1e308));
  const std::string far = text + "v 10 0 0\n";
  std::string without, with;
  try {
    read_obj_terrain(far, huge, "far.obj", &pool, std::nullopt, nullptr);
  } catch (const InputError& e) {
    without = e.what();
  }
  try {
    read_obj_terrain(far, huge, "far.obj", &pool, core::XzBox{-1.0, -1.0, 2.0, 2.0}, nullptr);
  } catch (const InputError& e) {
    with = e.what();
  }
  EXPECT_NE(without.find("far.obj"), std::string::npos) << without;
  EXPECT_NE(without.find("is not finite in metres"), std::string::npos) << without;
  EXPECT_EQ(with, without);
}

// A file cut shorter after it was mapped: the passes' copies fail, and the sequential reader,
// which reads the mapping, would fault past the file's new end (SIGBUS); the read is refused
// with one line naming the file instead, cropped or whole.
TEST(TerrainCropRead, ObjCutShorterWhileReadIsRefusedByName) {
  const auto path = test::scratch_dir("crop_cut_shorter") / "bumps.obj";
  save_obj(path, bumps_of(10.0, 0.05));
  const MappedFile mapped(path);
  std::filesystem::resize_file(path, mapped.text().size() / 2);
  ObjTextPages pages;
  pages.copy = [&mapped](std::size_t begin, char* out, std::size_t bytes) {
    return mapped.copy(begin, out, bytes);
  };
  const core::ThreadPool pool(2);
  for (const std::optional<core::XzBox>& keep :
       {std::optional<core::XzBox>(core::XzBox{-1.0, -3.0, 2.5, 1.0}),
        std::optional<core::XzBox>()}) {
    try {
      core::TerrainCrop crop;
      read_obj_terrain(mapped.text(), glm::dmat4(1.0), path.string(), &pool, keep, &crop, pages);
      ADD_FAILURE() << "read";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_EQ(what.rfind(path.string() + ": ", 0), 0u) << what;
      EXPECT_NE(what.find("cut shorter"), std::string::npos) << what;
    }
  }
}

// A bad line found by the pass begun ahead: the error the read gives without it, naming the
// file and the line.
TEST(TerrainCropRead, ObjReadBegunAheadNamesABadLineAsWithout) {
  const auto path = test::scratch_dir("crop_read_ahead_bad") / "bad.obj";
  save_obj(path, bumps_of(10.0, 0.05));
  std::string text = read_file(path);
  const std::size_t at = text.find("\nv ", text.size() / 8);
  ASSERT_NE(at, std::string::npos);
  text.replace(at + 1, 1, "v 1 nan 2\nv");
  write_file_atomic(path, text);
  const core::XzBox rect{-1.0, -3.0, 2.5, 1.0};
  std::string without;
  try {
    load_terrain_part(path, 1.0, 'y', rect, 1);
  } catch (const InputError& e) {
    without = e.what();
  }
  const auto line =
      std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at) + 1, '\n') + 1;
  ASSERT_EQ(without.rfind(path.string() + ":" + std::to_string(line) + ": ", 0), 0u) << without;
  core::ThreadPool pool(2);
  const std::unique_ptr<ObjReadAhead> ahead = ObjReadAhead::start(path, &pool);
  ASSERT_NE(ahead, nullptr);
  try {
    load_terrain_part(path, 1.0, 'y', rect, 0, true, &pool, ahead.get());
    ADD_FAILURE() << "read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), without);
  }
}

// Odd OBJ texts (negative indices, polygons, comments, CRLF, faces before and after their
// vertices, no newline at the end) cropped while read: the crop of parse_obj's mesh.
TEST(TerrainCropRead, OddObjTextsCropAsTheWholeMesh) {
  std::string text = "# odd\r\nv 0 0 0\r\nv 1 0 0\r\nv 1 0 1\r\nv 0 0.5 1 1.0\r\nvn 0 1 0\r\n";
  for (int i = 0; i < 300; ++i) {
    const double x = 0.25 * i;
    text += "v " + std::to_string(x) + " 0.1 0\nv " + std::to_string(x + 0.25) + " 0.2 0\nv " +
            std::to_string(x) + " 0.3 1\nv " + std::to_string(x + 0.25) + " 0 1\n";
    text += i % 3 == 0   ? "f -4//1 -3//1 -1//1 -2//1 # quad\n"
            : i % 3 == 1 ? "f -4 -3 -2\r\nf -3 -1 -2\r\n"
                         : "f 1/1/1 2/1/1 3/1/1\nf -4/2 -3/2 -1/2 -2/2\n";
  }
  text += "f 1 2 3";  // no newline at the end
  const ObjGeometry geometry = parse_obj(text, "odd.obj");
  ObjParts as_one = as_parts(geometry);
  const core::TerrainMesh whole = obj_terrain_mesh(as_one, glm::dmat4(1.0), "odd.obj", nullptr);
  const core::ThreadPool pool(3);
  for (const core::XzBox& r : {core::XzBox{10.0, -1.0, 20.0, 2.0}, core::XzBox{-5.0, 0.5, 0.1, 0.6},
                               core::XzBox{74.9, 0.0, 80.0, 1.0}}) {
    core::TerrainCrop crop;
    expect_same_mesh(read_obj_terrain(text, glm::dmat4(1.0), "odd.obj", &pool, r, &crop),
                     core::crop_terrain_mesh(whole, r.min_x, r.min_z, r.max_x, r.max_z));
    const core::Terrain t(whole);
    EXPECT_TRUE(same_bits(crop.whole_min, t.bounds_min()));
    EXPECT_TRUE(same_bits(crop.whole_max, t.bounds_max()));
  }
}

// A crop read through copies of the text (ObjTextPages::copy, as io::load_terrain_part reads a
// file) reads the kept normals again through copies too: normals of every line form (extra
// blanks, a comment, CR and CRLF ends, one line longer than the copies' window, one after the
// faces) give the crop read from the text in place.
TEST(TerrainCropRead, KeptNormalsReadThroughCopiesAsFromTheText) {
  std::string text;
  for (int i = 0; i < 400; ++i) {
    const double x = 0.25 * i;
    text += "v " + std::to_string(x) + " 0.1 0\nv " + std::to_string(x) + " 0.2 1\n";
  }
  const char* forms[] = {"vn 0 1 0\n", "vn  0.1   0.9 0 # tilted\r\n", "vn 0 1 0.25\r",
                         "vn -0.2 1 0\n"};
  for (int i = 0; i < 400; ++i) text += forms[i % 4];
  text += "vn 0.3 1 0.3 #" + std::string(40000, 'x') + "\n";  // longer than a copy's window
  for (int i = 1; i < 400; ++i)
    text += "f " + std::to_string(2 * i - 1) + "//" + std::to_string(i) + " " +
            std::to_string(2 * i + 1) + "//" + std::to_string(i == 200 ? 401 : i + 1) + " " +
            std::to_string(2 * i) + "//" + std::to_string(i) + "\n";
  text += "vn 0 1 -0.5\nf 1//402 3//402 2//402";  // no line break at the end
  ObjTextPages pages = copies_of(text);
  const core::ThreadPool pool(2);
  for (const core::XzBox& r :
       {core::XzBox{10.0, -1.0, 70.0, 2.0}, core::XzBox{-1.0, -1.0, 0.1, 2.0},
        core::XzBox{49.0, 0.0, 51.0, 1.0}}) {
    core::TerrainCrop in_place, copied;
    const core::TerrainMesh want =
        read_obj_terrain(text, glm::dmat4(1.0), "normals.obj", &pool, r, &in_place);
    ASSERT_FALSE(want.vertex_normals.empty());
    expect_same_mesh(
        read_obj_terrain(text, glm::dmat4(1.0), "normals.obj", &pool, r, &copied, pages), want);
  }
}

// The crop's whole bounds are those of the positions the file's triangles use (a vertex no
// face uses is not in them), with the sign of a zero bound that of the first such position in
// the triangles' order, as the whole terrain's bounds have it (here a -0 precedes a +0 in the
// file but follows it in the faces).
TEST(TerrainCropRead, WholeBoundsOfAnObjCropAreTheUsedPositionsInFaceOrder) {
  const std::string text =
      "v 1 0 0\nv 0 0 1\nv -0 -0 -0\nv 0 0 0\nv 1 -0 1\nv 100 100 -100\n"
      "f 4 1 2\nf 3 5 1\n";
  const ObjGeometry geometry = parse_obj(text, "zeros.obj");
  ObjParts as_one = as_parts(geometry);
  const core::TerrainMesh whole = obj_terrain_mesh(as_one, glm::dmat4(1.0), "zeros.obj", nullptr);
  const core::Terrain t(whole);
  const core::ThreadPool pool(2);
  for (const core::XzBox& r : {core::XzBox{-1.0, -1.0, 2.0, 2.0}, core::XzBox{0.5, 0.5, 0.6, 0.6},
                               core::XzBox{40.0, 40.0, 41.0, 41.0}}) {
    core::TerrainCrop crop;
    expect_same_mesh(read_obj_terrain(text, glm::dmat4(1.0), "zeros.obj", &pool, r, &crop),
                     core::crop_terrain_mesh(whole, r.min_x, r.min_z, r.max_x, r.max_z));
    EXPECT_TRUE(same_bits(crop.whole_min, t.bounds_min()));
    EXPECT_TRUE(same_bits(crop.whole_max, t.bounds_max()));
    EXPECT_FALSE(std::signbit(crop.whole_min.x));
    EXPECT_EQ(crop.whole_max.y, 0.0);
  }
  // Without a -0 the bounds come from the used positions alone: the unused far vertex is left out.
  const std::string positive = "v 1 0 0\nv 0 2 1\nv 100 100 -100\nv 0 0 0\nf 4 1 2\n";
  core::TerrainCrop crop;
  read_obj_terrain(positive, glm::dmat4(1.0), "p.obj", &pool, core::XzBox{-1, -1, 2, 2}, &crop);
  EXPECT_EQ(crop.whole_max.y, 2.0);
  EXPECT_EQ(crop.whole_min.z, 0.0);
}

// Every position used by a face: the crop's whole bounds are those of every position (found
// while they are moved to world metres), the whole terrain's bits, under the identity, a unit
// and up-axis change and a scaled move.
TEST(TerrainCropRead, WholeBoundsWhenEveryPositionIsUsed) {
  const std::string text =
      "v 1 0.5 0\nv 0 -2 1\nv -0 -0 -0\nv 3.25 0 -1\nv -1 7 0.125\n"
      "f 1 2 3\nf 3 4 5\nf 2 5 4\n";
  const glm::dmat4 z_up_cm = glm::dmat4(0.01, 0, 0, 0, 0, 0, -0.01, 0, 0, 0.01, 0, 0, 0, 0, 0, 1);
  const glm::dmat4 moved = glm::dmat4(2, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 2, 0, -0.5, 1, 0.25, 1);
  const core::ThreadPool pool(2);
  for (const glm::dmat4& to_world : {glm::dmat4(1.0), z_up_cm, moved}) {
    ObjParts as_one = as_parts(parse_obj(text, "used.obj"));
    const core::TerrainMesh whole = obj_terrain_mesh(as_one, to_world, "used.obj", nullptr);
    const core::Terrain t(whole);
    for (const core::XzBox& r : {core::XzBox{-1.0, -1.0, 2.0, 2.0}, core::XzBox{0.0, 0.0, 0.1, 0.1},
                                 core::XzBox{40.0, 40.0, 41.0, 41.0}}) {
      core::TerrainCrop crop;
      expect_same_mesh(read_obj_terrain(text, to_world, "used.obj", &pool, r, &crop),
                       core::crop_terrain_mesh(whole, r.min_x, r.min_z, r.max_x, r.max_z));
      EXPECT_TRUE(same_bits(crop.whole_min, t.bounds_min()));
      EXPECT_TRUE(same_bits(crop.whole_max, t.bounds_max()));
    }
  }
}

// Points inside the crop by the margin: every answer of the whole terrain, bit for bit, with
// face or smooth normals; a query past the part read throws rather than answer wrong.
void expect_same_answers(const core::TerrainMesh& whole, const core::XzBox& r, bool smooth) {
  core::TerrainOptions options;
  options.smooth_normals = smooth;
  const core::Terrain whole_terrain(whole, options);
  options.crop = core::TerrainCrop{
      whole_terrain.bounds_min(), whole_terrain.bounds_max(), r.min_x, r.min_z, r.max_x, r.max_z};
  const core::Terrain part(core::crop_terrain_mesh(whole, r.min_x, r.min_z, r.max_x, r.max_z),
                           options);
  const double m = core::kTerrainCropMargin;
  std::vector<std::array<double, 2>> xz;
  // On the grid's vertices and edges (0.1 m cells from an offset origin), at the inner edge of
  // the crop, and in between.
  for (double x = r.min_x + m; x <= r.max_x - m; x += 0.05)
    for (double z = r.min_z + m; z <= r.max_z - m; z += 0.0375) xz.push_back({x, z});
  xz.push_back({r.min_x + m, r.min_z + m});
  xz.push_back({r.max_x - m, r.max_z - m});
  // A grid vertex near the inner edge (the mesh's grid starts on (3.25, -1.75) + k 0.1 m; one
  // cell in, so that rounding never puts it outside).
  xz.push_back({3.25 + 0.1 * (std::ceil((r.min_x + m - 3.25) / 0.1) + 1),
                -1.75 + 0.1 * (std::ceil((r.min_z + m + 1.75) / 0.1) + 1)});
  std::vector<core::GroundHit> want(xz.size()), got(xz.size());
  whole_terrain.ground_at(xz, want);
  part.ground_at(xz, got);
  int hits = 0;
  for (std::size_t i = 0; i < xz.size(); ++i) {
    ASSERT_EQ(got[i].hit, want[i].hit) << xz[i][0] << ", " << xz[i][1];
    hits += want[i].hit;
    ASSERT_EQ(std::memcmp(&got[i].height, &want[i].height, sizeof(double)), 0) << i;
    ASSERT_TRUE(same_bits(got[i].normal, want[i].normal)) << i;
    const core::GroundHit one = part.ground_at(xz[i][0], xz[i][1]);
    ASSERT_EQ(std::memcmp(&one.height, &want[i].height, sizeof(double)), 0) << i;
  }
  EXPECT_GT(hits, 100);
  EXPECT_THROW(part.ground_at(r.min_x + 0.5 * m, r.min_z + m), std::logic_error);
  EXPECT_THROW(part.require_held(r.min_x - 0.1, r.min_z, r.max_x, r.max_z, "test"),
               std::logic_error);
  EXPECT_NO_THROW(part.require_held(r.min_x, r.min_z, r.max_x, r.max_z, "test"));
}

TEST(TerrainCropRead, TerrainOnThePartAnswersAsTheWholeTerrain) {
  const core::TerrainMesh whole = bumps_mesh();
  for (const bool smooth : {false, true}) {
    expect_same_answers(whole, {-0.5, -5.0, 4.0, 0.5}, smooth);
    expect_same_answers(whole, {6.0, -3.0, 9.0, 0.0}, smooth);  // reaches past the mesh's edge
  }
}

TEST(PreparedTerrain, RoundTripsTheWholeMeshAndCropsByTiles) {
  const auto dir = test::scratch_dir("prepared_round_trip");
  const core::TerrainMesh whole = bumps_of(20.0, 0.1);  // 80 k triangles
  for (const bool normals : {true, false}) {
    core::TerrainMesh mesh = whole;
    // Vertices no triangle uses (one under the mesh, one past its edge) come back from a
    // whole read.
    mesh.vertices.push_back(Vec3(1.5, 7.0, -2.5));
    mesh.vertices.push_back(Vec3(-40.0, 0.0, 3.0));
    if (normals) mesh.vertex_normals.resize(mesh.vertices.size(), Vec3(0.0, 1.0, 0.0));
    if (!normals) mesh.vertex_normals.clear();
    const auto path = dir / (normals ? "n.ikterrain" : "plain.ikterrain");
    save_prepared_terrain(path, mesh);
    const TerrainRead all = load_prepared_terrain(path, std::nullopt);
    expect_same_mesh(all.mesh, mesh);
    EXPECT_FALSE(all.crop.has_value());
    for (const core::XzBox& r : kRects) {
      const core::TerrainMesh want =
          core::crop_terrain_mesh(mesh, r.min_x, r.min_z, r.max_x, r.max_z);
      for (const int threads : {1, 2, 3}) {  // tiles read on several threads: the same part
        SCOPED_TRACE(threads);
        const TerrainRead part = load_prepared_terrain(path, r, threads);
        expect_same_mesh(part.mesh, want);
        ASSERT_TRUE(part.crop.has_value());
        const core::Terrain t(mesh);
        EXPECT_TRUE(same_bits(part.crop->whole_min, t.bounds_min()));
        EXPECT_TRUE(same_bits(part.crop->whole_max, t.bounds_max()));
        // Asked without normals: the same part, its vertex normals left out.
        core::TerrainMesh want_plain = want;
        want_plain.vertex_normals.clear();
        expect_same_mesh(load_prepared_terrain(path, r, threads, /*normals=*/false).mesh,
                         want_plain);
      }
    }
  }
}

// A mesh whose triangles and vertices are numbered in no spatial order: a small crop's
// triangle indices and vertex indices then span most of the mesh, so the crop sorts its
// triangles and numbers their vertices through a hash instead of a table over the range; the
// part is the same as from a mesh in order (crop_terrain_mesh of the same mesh).
TEST(PreparedTerrain, CropsAMeshNumberedInNoOrder) {
  const auto dir = test::scratch_dir("prepared_shuffled");
  const core::TerrainMesh grid = bumps_of(20.0, 0.05);  // 320 k triangles
  // A fixed permutation (multiplication by an odd constant modulo a power of two, kept to
  // the range): deterministic whatever the standard library.
  auto permutation = [](std::size_t n) {
    std::size_t pow2 = 1;
    while (pow2 < n) pow2 *= 2;
    std::vector<std::uint32_t> order;
    for (std::size_t k = 0; k < pow2; ++k)
      if (const std::size_t p = (k * 0x9e3779b1u + 12345u) & (pow2 - 1); p < n)
        order.push_back(static_cast<std::uint32_t>(p));
    return order;
  };
  const std::vector<std::uint32_t> vertex_at = permutation(grid.vertices.size());
  std::vector<std::uint32_t> new_index(grid.vertices.size());
  core::TerrainMesh mesh;
  for (std::size_t k = 0; k < vertex_at.size(); ++k) {
    new_index[vertex_at[k]] = static_cast<std::uint32_t>(k);
    mesh.vertices.push_back(grid.vertices[vertex_at[k]]);
  }
  ASSERT_EQ(mesh.vertices.size(), grid.vertices.size());
  for (const std::uint32_t t : permutation(grid.triangles.size())) {
    const auto& tri = grid.triangles[t];
    mesh.triangles.push_back({new_index[tri[0]], new_index[tri[1]], new_index[tri[2]]});
  }
  ASSERT_EQ(mesh.triangles.size(), grid.triangles.size());
  const auto path = dir / "shuffled.ikterrain";
  save_prepared_terrain(path, mesh);
  for (const core::XzBox& r : {core::XzBox{0.1, 0.2, 0.4, 0.5}, core::XzBox{-3.0, -2.0, 1.0, 2.5}})
    for (const int threads : {1, 2}) {
      SCOPED_TRACE(threads);
      const core::TerrainMesh want =
          core::crop_terrain_mesh(mesh, r.min_x, r.min_z, r.max_x, r.max_z);
      ASSERT_FALSE(want.triangles.empty());
      expect_same_mesh(load_prepared_terrain(path, r, threads, /*normals=*/false).mesh, want);
    }
}

std::string error_of(const std::filesystem::path& path) {
  try {
    load_prepared_terrain(path, std::nullopt);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PreparedTerrain, DamagedFilesAreRefusedWithOneLine) {
  const auto dir = test::scratch_dir("prepared_damaged");
  const auto good = dir / "good.ikterrain";
  save_prepared_terrain(good, bumps_of(6.0, 0.1));
  const std::string bytes = read_file(good);
  auto damaged = [&](const std::string& name, const std::string& content) {
    const auto path = dir / name;
    std::ofstream(path, std::ios::binary) << content;
    const std::string error = error_of(path);
    EXPECT_NE(error.find(path.string()), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    return error;
  };
  // A byte flipped in the header, the tile table, and at the start, middle and end of the
  // tiles' data (vertex indices, positions, normals, triangle records: the whole read checks
  // every tile). The header's offsets (bytes 136..151): tile table, first tile's data.
  std::uint64_t offsets[2];
  std::memcpy(offsets, bytes.data() + 136, sizeof offsets);
  const std::size_t data_bytes = bytes.size() - offsets[1];
  const std::size_t where[] = {40,
                               offsets[0] + 3,
                               offsets[1] + 2,
                               offsets[1] + data_bytes / 3,
                               offsets[1] + data_bytes / 2 + 5,
                               bytes.size() - 1};
  for (const std::size_t at : where) {
    std::string copy = bytes;
    copy[at] = static_cast<char>(copy[at] ^ 0x20);
    SCOPED_TRACE(at);
    EXPECT_NE(damaged("flip.ikterrain", copy).find("corrupt"), std::string::npos);
  }
  EXPECT_NE(damaged("short.ikterrain", bytes.substr(0, bytes.size() - 16)).find("truncated"),
            std::string::npos);
  EXPECT_NE(damaged("header.ikterrain", bytes.substr(0, 100)).find("truncated"), std::string::npos);
  EXPECT_NE(damaged("text.ikterrain", "v 0 0 0\n").find("not a prepared"), std::string::npos);
  // An older version, its header checksum right: stale, prepare again.
  std::string old = bytes;
  const std::uint32_t version = 0;
  std::memcpy(old.data() + 8, &version, sizeof version);
  std::memset(old.data() + 160, 0, 8);
  const std::uint64_t sum = prepared_checksum(old.data(), 256);
  std::memcpy(old.data() + 160, &sum, 8);
  const std::string stale = damaged("old.ikterrain", old);
  EXPECT_NE(stale.find("version 0"), std::string::npos) << stale;
  EXPECT_NE(stale.find("prepare it again (ikfix terrain prepare)"), std::string::npos) << stale;
  // A file of format version 1 (vertices in mesh order, checksummed in blocks; its header laid
  // out otherwise past the version): stale, whatever follows.
  std::string v1 = bytes;
  const std::uint32_t one = 1;
  std::memcpy(v1.data() + 8, &one, sizeof one);
  const std::string stale_v1 = damaged("v1.ikterrain", v1);
  EXPECT_NE(stale_v1.find("format version 1, this ikfix reads version 3"), std::string::npos)
      << stale_v1;
  EXPECT_NE(stale_v1.find("prepare it again (ikfix terrain prepare)"), std::string::npos)
      << stale_v1;
  EXPECT_EQ(error_of(good), "");
}

// A crop reads and checks only the tiles under it: a damaged tile it reads is refused (the
// tile's checksum), one it does not read is not looked at, and a file cut short is refused
// before any tile is read.
TEST(PreparedTerrain, CropChecksTheTilesItReads) {
  const auto dir = test::scratch_dir("prepared_damaged_tile");
  const core::TerrainMesh mesh = bumps_of(20.0, 0.1);  // 80 k triangles
  const auto good = dir / "good.ikterrain";
  save_prepared_terrain(good, mesh);
  const std::string bytes = read_file(good);
  std::uint64_t tiles_offset = 0;
  std::memcpy(&tiles_offset, bytes.data() + 144, sizeof tiles_offset);
  // The first tile's data (the tile table's first entry: its offset at byte 32, its vertex and
  // triangle counts at 40 and 44) lies at the grid's -x, -z corner.
  std::uint32_t counts[2];
  std::memcpy(counts, bytes.data() + 256 + 40, sizeof counts);
  const std::size_t ids = (4 * std::size_t{counts[0]} + 7) / 8 * 8;
  const core::XzBox corner{-10.0, -10.0, -9.5, -9.5}, far{5.0, 5.0, 6.0, 6.0};
  // A flipped bit in the tile's positions, in its triangle records and in its normals (after
  // the records).
  const std::size_t records = tiles_offset + ids + 24 * std::size_t{counts[0]};
  const std::size_t normals = records + 16 * std::size_t{counts[1]};
  for (const std::size_t at : {tiles_offset + ids + 9, records + 6, normals + 30}) {
    SCOPED_TRACE(at);
    std::string copy = bytes;
    copy[at] = static_cast<char>(copy[at] ^ 0x04);
    const auto path = dir / "flip.ikterrain";
    std::ofstream(path, std::ios::binary) << copy;
    std::string error;
    try {
      load_prepared_terrain(path, corner);
    } catch (const InputError& e) {
      error = e.what();
    }
    EXPECT_NE(error.find("corrupt prepared terrain (tile checksum)"), std::string::npos) << error;
    EXPECT_NE(error.find(path.string()), std::string::npos) << error;
    expect_same_mesh(load_prepared_terrain(path, far).mesh,
                     core::crop_terrain_mesh(mesh, far.min_x, far.min_z, far.max_x, far.max_z));
    // A reader without normals reads the positions and records, and checks them, but not the
    // normals: damage there is not its concern.
    error.clear();
    try {
      load_prepared_terrain(path, corner, 1, /*normals=*/false);
    } catch (const InputError& e) {
      error = e.what();
    }
    if (at >= normals)
      EXPECT_EQ(error, "");
    else
      EXPECT_NE(error.find("corrupt prepared terrain (tile checksum)"), std::string::npos) << error;
  }
  const auto cut = dir / "cut.ikterrain";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, tiles_offset + 1000);
  try {
    load_prepared_terrain(cut, far);
    ADD_FAILURE() << "a truncated file was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
}

// Tiles read on several threads report the error a loop over them gives: that of the first
// damaged tile in the table's order, though a later tile's check may end first.
TEST(PreparedTerrain, CropOnThreadsReportsTheFirstDamagedTile) {
  const auto dir = test::scratch_dir("prepared_damaged_tiles");
  const auto good = dir / "good.ikterrain";
  save_prepared_terrain(good, bumps_of(20.0, 0.1));  // 80 k triangles
  std::string bytes = read_file(good);
  std::uint32_t grid[2];  // tile columns, rows (bytes 48-55)
  std::memcpy(grid, bytes.data() + 48, sizeof grid);
  const std::size_t tiles = std::size_t{grid[0]} * grid[1];
  ASSERT_GE(tiles, 8u);
  auto entry = [&](std::size_t k) { return 256 + 64 * k; };  // TileEntry: 64 bytes
  auto u64_at = [&](std::size_t at) {
    std::uint64_t v;
    std::memcpy(&v, bytes.data() + at, sizeof v);
    return v;
  };
  // The last tile: a triangle record's first corner out of range, its checksums made right
  // again (the tile's, the table's, the header's), so only the index check finds it.
  const std::size_t last = entry(tiles - 1);
  std::uint32_t counts[2];  // vertex, triangle count
  std::memcpy(counts, bytes.data() + last + 40, sizeof counts);
  ASSERT_GT(counts[1], 0u);
  // The tile's shape (vertex indices, positions, records) has its own checksum, the normals
  // after it another.
  const std::uint64_t data = u64_at(last + 32);
  const std::uint64_t size = (4 * std::uint64_t{counts[0]} + 7) / 8 * 8 +
                             24 * std::uint64_t{counts[0]} + 16 * std::uint64_t{counts[1]};
  const std::uint32_t far_corner = counts[0] + 5;
  std::memcpy(bytes.data() + data + size - 12, &far_corner, sizeof far_corner);
  const std::uint64_t tile_sum = prepared_checksum(bytes.data() + data, size);
  std::memcpy(bytes.data() + last + 48, &tile_sum, sizeof tile_sum);
  const std::uint64_t table_sum = prepared_checksum(bytes.data() + 256, 64 * tiles);
  std::memcpy(bytes.data() + 152, &table_sum, sizeof table_sum);
  std::memset(bytes.data() + 160, 0, 8);
  const std::uint64_t header_sum = prepared_checksum(bytes.data(), 256);
  std::memcpy(bytes.data() + 160, &header_sum, sizeof header_sum);
  const auto path = dir / "damaged.ikterrain";
  auto error_with = [&](int threads) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    try {
      load_prepared_terrain(path, core::XzBox{-20.0, -20.0, 20.0, 20.0}, threads);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  for (const int threads : {1, 4})
    EXPECT_NE(error_with(threads).find("(an index out of range)"), std::string::npos) << threads;
  // Then the first tile's data flipped too: its checksum fails first, on any number of threads.
  const std::uint64_t first = u64_at(entry(0) + 32);
  bytes[first + 8] = static_cast<char>(bytes[first + 8] ^ 0x10);
  for (const int threads : {1, 2, 4})
    EXPECT_NE(error_with(threads).find("(tile checksum)"), std::string::npos) << threads;
}

}  // namespace
}  // namespace ikfix::io
