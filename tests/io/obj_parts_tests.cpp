// The parallel OBJ reader (io/obj_parts) and the terrain it gives (io/obj_terrain) against the
// sequential parse_obj and the merge the terrain loader used to do: same numbers, same indices,
// same vertices, bit for bit, whatever the chunking; texts it does not accept go to parse_obj.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <glm/common.hpp>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/parallel.hpp"
#include "core/terrain_gen.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/mapped_file.hpp"
#include "io/obj_parts.hpp"
#include "io/obj_terrain.hpp"
#include "io/terrain_io.hpp"
#include "obj_test_support.hpp"
#include "test_data.hpp"
#include "test_scratch.hpp"

namespace ikfix::io {
namespace {

bool same_bits(const core::Vec3& a, const core::Vec3& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

void expect_same_geometry(const ObjGeometry& got, const ObjGeometry& want) {
  ASSERT_EQ(got.positions.size(), want.positions.size());
  ASSERT_EQ(got.normals.size(), want.normals.size());
  ASSERT_EQ(got.triangles.size(), want.triangles.size());
  EXPECT_EQ(got.every_corner_has_normal, want.every_corner_has_normal);
  for (std::size_t i = 0; i < want.positions.size(); ++i)
    ASSERT_TRUE(same_bits(got.positions[i], want.positions[i])) << "position " << i;
  for (std::size_t i = 0; i < want.normals.size(); ++i)
    ASSERT_TRUE(same_bits(got.normals[i], want.normals[i])) << "normal " << i;
  for (std::size_t t = 0; t < want.triangles.size(); ++t)
    for (int k = 0; k < 3; ++k) {
      ASSERT_EQ(got.triangles[t][k].position, want.triangles[t][k].position) << "triangle " << t;
      ASSERT_EQ(got.triangles[t][k].normal, want.triangles[t][k].normal) << "triangle " << t;
    }
}

// parse_obj_parts over `text` with several chunkings, each checked against parse_obj.
void expect_parts_match(const std::string& text) {
  const ObjGeometry want = parse_obj(text, "text.obj");
  const core::ThreadPool pool(3);
  for (const std::size_t chunk : {std::size_t{1} << 20, std::size_t{64}, std::size_t{7}}) {
    const auto parts = parse_obj_parts(text, &pool, chunk);
    ASSERT_TRUE(parts.has_value()) << "chunk " << chunk;
    expect_same_geometry(joined_parts(*parts), want);
  }
  const auto serial = parse_obj_parts(text, nullptr);
  ASSERT_TRUE(serial.has_value());
  expect_same_geometry(joined_parts(*serial), want);
}

TEST(ObjParts, BundledTerrainsParseAsParseObjDoes) {
  for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() / "data/terrain"))
    if (entry.path().extension() == ".obj") {
      SCOPED_TRACE(entry.path().string());
      expect_parts_match(read_file(entry.path()));
    }
}

TEST(ObjParts, EveryStatementFormParsesAsParseObjDoes) {
  std::string text =
      "# comment\r\nv 0 0 0\r\nv 1 0 0 1.0\nv +1 0.5 1 0.2 0.3 0.4\rv 0 0.25e1 1\n"
      "vn 0 1 0\nvn 0 1 0.000001\nvt 0.5 0.5\n o name\ng group\ns 1\nusemtl m\n"
      "f 1 2 3\nf 1/1 2/1 3/1 4/1\nf -4//-2 -3//-1 -2//1\n\tf 1//1 3//2 4//2 # tail\n"
      "l 1 2\np 3\nf 5 1 2\nv 2 0 0\n";
  for (int i = 0; i < 200; ++i)  // long enough to be cut into many chunks
    text += "v " + std::to_string(i) + ".125 -" + std::to_string(i % 7) + ".5 " +
            std::to_string(i * 3) + "\nvn 0 1 0\nf -1//-1 -2//-1 -3//-2\nf 1/2/1 -1/1/-1 2//2\n";
  expect_parts_match(text);
}

TEST(ObjParts, ElementsAfterTheFacesAreFoundAmongLinesHoldingV) {
  // Past a chunk's first face, pass 1 looks only at lines whose statement starts with 'v': a
  // 'v' in a comment, a group name or a material is not one, an indented or CR-ended "v" is.
  std::string text = "v 0 0 0\nv 1 0 0\nvn 0 1 0\nf 1//1 2//1 1//1\n";
  for (int i = 0; i < 120; ++i)
    text += "# v 9 9 9 vn 1 2 3\nusemtl vv\ng v\nf -1//1 -2//-1 1//1\n \tv " + std::to_string(i) +
            ".5 0.25 -1\rvn 0.5 " + std::to_string(i % 5) +
            " 0\r\nvt 0.5 0.5\nf -1//-1 -2//-1 -3//1 # v 7\n o vvv\n";
  expect_parts_match(text);
}

// parse_obj_elements without storing normals: the same counts, each normal read back from the
// text with the bits pass 1 stores, and the faces' normal indices as with them stored.
TEST(ObjParts, UnstoredNormalsReadBackAsStored) {
  std::string text = "v 0 0 0\r\nvn 0 1 0\nv 1 2 3\n";
  for (int i = 0; i < 300; ++i)
    text += "vn " + std::to_string(i) + ".123456789 -0.000049332 +" + std::to_string(i % 7) +
            "e-3\nv 1 " + std::to_string(i) + " 2\n  vn 0.5 0.25 0.125\rf -1//-1 1//-2 2//1\n" +
            (i % 3 == 0 ? "# vn 1 1 1\n\nvt 1 1\r\n\f vn 1 0 " + std::to_string(i) + "\r\n" : "");
  const core::ThreadPool pool(3);
  for (const std::size_t chunk : {std::size_t{1} << 20, std::size_t{64}, std::size_t{7}}) {
    SCOPED_TRACE(chunk);
    auto stored = parse_obj_elements(text, &pool, {}, chunk, true);
    auto unstored = parse_obj_elements(text, &pool, {}, chunk, false);
    ASSERT_TRUE(stored.has_value() && unstored.has_value());
    ASSERT_EQ(unstored->normal_count, stored->normal_count);
    ASSERT_EQ(unstored->normal_count, 701u);
    const ObjGeometry all = joined_parts(*stored);
    ObjElementLines in_turn;  // line shapes: the same bits
    for (std::size_t i = 0; i < all.normals.size(); ++i) {
      ASSERT_TRUE(same_bits(read_obj_normal(text, *unstored, i), all.normals[i])) << i;
      const std::string_view rest =
          std::string_view(text).substr(obj_normal_line(text, *unstored, i));
      ASSERT_TRUE(same_bits(in_turn.normal(rest), all.normals[i])) << i;
      const std::string_view line = rest.substr(0, rest.find_first_of("\r\n") + 1);
      ASSERT_TRUE(same_bits(in_turn.normal(line), all.normals[i])) << i;
    }
    ASSERT_TRUE(parse_obj_faces(text, *stored, {}, &pool));
    ASSERT_TRUE(parse_obj_faces(text, *unstored, {}, &pool));
    expect_same_geometry(joined_parts(*unstored), [&] {
      ObjGeometry want = joined_parts(*stored);
      want.normals.clear();
      return want;
    }());
  }
}

// Pass 1 given a rectangle in world metres (ObjElementChunks::set_world_rect) keeps, per
// position, only its line and the rectangle's sides its world position lies beyond: each
// position read back from its line has the bits pass 1 stores without one, the sides and bounds
// are those of the world positions, and the parts read again hold the positions read without.
// Chunks claimed before the rectangle is given are read as without it.
TEST(ObjParts, SidedPositionsReadBackAsStored) {
  std::string text = "v 0 0 0\r\nv +1 0.5 1 0.2 0.3 0.4\n  v 1 0 0 1.0\rv 0 0.25e1 1\n";
  for (int i = 0; i < 300; ++i)
    text += "v " + std::to_string(i) + ".125 -" + std::to_string(i % 7) + ".5 " +
            std::to_string(i * 3) + "\nvn 0 1 0\nv -10.000000000 0.000049332 " + std::to_string(i) +
            ".5 # c\nv -9.98000000" + std::to_string(i % 10) + " 0.00004933" +
            std::to_string(i % 7) + " 1.5\nf -1//-1 -2//-1 -3//-1\n" +
            (i % 3 == 0 ? "# v 9 9 9\n\nvt 0.5 0.5\r\n\t v " + std::to_string(i) + " 2 3\r\n" : "");
  const glm::dmat4 z_up_cm = glm::dmat4(0.01, 0, 0, 0, 0, 0, -0.01, 0, 0, 0.01, 0, 0, 0, 0, 0, 1);
  const core::XzBox rect{-1.0, 0.5, 2.0, 3.0};
  const ObjTextPages in_place;  // held by the chunks: it must outlive them
  for (const glm::dmat4& to_world : {glm::dmat4(1.0), z_up_cm}) {
    for (const std::size_t chunk : {std::size_t{4096}, std::size_t{64}}) {
      SCOPED_TRACE(chunk);
      ObjElementChunks plain(text, 3, in_place, chunk, false, true, false);
      plain.read_unclaimed();
      const std::optional<ObjParts> want = plain.result();
      ObjElementChunks sided(text, 3, in_place, chunk, false, true, false);
      sided.read_unclaimed(1);  // claimed before the rectangle: read as without it
      sided.set_world_rect({to_world, rect});
      sided.read_unclaimed();
      std::optional<ObjParts> got = sided.result();
      ASSERT_TRUE(want.has_value() && got.has_value());
      ASSERT_EQ(got->position_count, want->position_count);
      ASSERT_EQ(got->position_count, 1004u);
      ASSERT_GE(got->parts.size(), 2u);
      EXPECT_FALSE(got->parts.front().sided);
      EXPECT_TRUE(got->parts.back().sided);
      const std::vector<core::Vec3> positions = joined_parts(*want).positions;
      const bool identity = to_world == glm::dmat4(1.0);
      ObjElementLines in_turn;
      for (std::size_t k = 0; k < got->parts.size(); ++k) {
        const ObjPart& part = got->parts[k];
        if (!part.sided) continue;
        core::Vec3 part_lo(std::numeric_limits<double>::infinity()), part_hi(-part_lo);
        for (std::size_t i = 0; i < part.position_sides.size(); ++i) {
          const std::size_t index = got->position_offset[k] + i;
          const std::string_view rest =
              std::string_view(text).substr(obj_position_line(text, *got, index));
          const core::Vec3 read = read_obj_position_line(rest);
          ASSERT_TRUE(same_bits(read, positions[index])) << index;
          // Read in turn (line shapes), from the text or from a copy holding only the line.
          const std::string_view line = rest.substr(0, rest.find_first_of("\r\n") + 1);
          ASSERT_TRUE(same_bits(in_turn.position(rest), read)) << index;
          ASSERT_TRUE(same_bits(in_turn.position(line), read)) << index;
          const core::Vec3 world = obj_position_to_world(read, to_world, identity);
          EXPECT_EQ(part.position_sides[i], sides_beyond(world, rect)) << index;
          part_lo = glm::min(part_lo, world), part_hi = glm::max(part_hi, world);
        }
        EXPECT_TRUE(same_bits(part.sided_min, part_lo) && same_bits(part.sided_max, part_hi));
        EXPECT_FALSE(part.sided_irregular);
      }
      ASSERT_TRUE(read_sided_positions_again(text, *got, {}, nullptr));
      for (const ObjPart& part : got->parts) EXPECT_FALSE(part.sided);
      const std::vector<core::Vec3> again = joined_parts(*got).positions;
      ASSERT_EQ(again.size(), positions.size());
      for (std::size_t i = 0; i < again.size(); ++i)
        ASSERT_TRUE(same_bits(again[i], positions[i])) << i;
    }
  }
}

// step_statements finds the same line whether `from` gives the rest of the text or only the
// line asked for (and a few bytes past its break, cutting the next line's first word): every
// "v" and "vn" statement stepped to from every one before it, over every line form between.
TEST(ObjParts, StatementsAreSteppedToAsPassOneCountsThem) {
  const std::string text =
      "v 1 2 3\r\n# v 9 9 9\n\n  vn 0 1 0\rvt 0.5 0.5\r\n\t v 4 5 6\nf 1 2 3\nvn 1 0 0\n"
      "vp 1\n\f\vv 7 8 9 # v\r\nv\t1 1 1\n\r\nvn 0 0 1\nv 2 2 2";
  std::vector<std::size_t> lines[2];  // the statements' lines, "vn" then "v"
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find_first_of("\r\n", at), text.size());
    for (const bool position : {false, true})
      if (obj_statement_is(std::string_view(text).substr(at, end - at), position))
        lines[position].push_back(at);
    at = end + 1;
  }
  ASSERT_EQ(lines[0].size(), 3u);
  ASSERT_EQ(lines[1].size(), 5u);
  const std::string_view all(text);
  for (const std::size_t past_break : {0, 1, 2, 5}) {
    auto from_line = [&](std::size_t at) {
      const std::size_t eol = text.find_first_of("\r\n", at);
      const std::size_t end = eol == std::string::npos ? text.size() : eol + 1;
      return all.substr(at, std::min(end + past_break, text.size()) - at);
    };
    for (const bool position : {false, true}) {
      const std::vector<std::size_t>& found = lines[position];
      for (std::size_t first = 0; first < found.size(); ++first)
        for (std::size_t k = first; k < found.size(); ++k) {
          const std::size_t steps = k - first;
          EXPECT_EQ(step_statements([&](std::size_t at) { return all.substr(at); }, found[first],
                                    steps, position),
                    found[k]);
          EXPECT_EQ(step_statements(from_line, found[first], steps, position), found[k])
              << past_break << " " << position << " " << first << " " << k;
        }
      // Past the last statement (a text changed since pass 1): its last line.
      const std::size_t last_line = text.find_last_of("\r\n") + 1;
      EXPECT_EQ(step_statements(from_line, found.back(), 2, position), last_line);
      EXPECT_EQ(step_statements([&](std::size_t at) { return all.substr(at); }, found.front(),
                                found.size(), position),
                last_line);
    }
  }
}

// Chunks claimed from the back (io/obj_read_ahead, before the rectangle is given) and from the
// front, alone or at once on several threads, each once: the parts are those of a read from
// the front alone, read as without the rectangle where claimed before it.
TEST(ObjParts, ChunksClaimedFromBothEndsAreReadOnceEach) {
  std::string text;
  for (int i = 0; i < 400; ++i)
    text += "v " + std::to_string(i) + ".5 0 " + std::to_string(i % 9) + "\n";
  for (int i = 0; i < 400; ++i) text += "vn 0 1 0." + std::to_string(i) + "\n";
  for (int i = 3; i <= 400; ++i) text += "f 1//1 2//2 " + std::to_string(i) + "//1\n";
  const ObjTextPages in_place;
  const core::ThreadPool pool(3);
  ObjElementChunks plain(text, 3, in_place, 256, false, true, true);
  plain.read_unclaimed();
  const std::optional<ObjParts> want = plain.result();
  ASSERT_TRUE(want.has_value());
  ASSERT_GE(want->parts.size(), 4u);
  const std::vector<core::Vec3> positions = joined_parts(*want).positions;
  auto expect_as_wanted = [&](ObjParts& got) {
    ASSERT_EQ(got.parts.size(), want->parts.size());
    EXPECT_EQ(got.position_offset, want->position_offset);
    EXPECT_EQ(got.normal_offset, want->normal_offset);
    for (std::size_t k = 0; k < got.parts.size(); ++k) {
      EXPECT_EQ(got.parts[k].normal_lines, want->parts[k].normal_lines) << k;
      EXPECT_EQ(got.parts[k].face_begin, want->parts[k].face_begin) << k;
    }
    ASSERT_TRUE(read_sided_positions_again(text, got, {}, nullptr));
    const std::vector<core::Vec3> again = joined_parts(got).positions;
    ASSERT_EQ(again.size(), positions.size());
    for (std::size_t i = 0; i < again.size(); ++i)
      ASSERT_TRUE(same_bits(again[i], positions[i])) << i;
  };
  {
    ObjElementChunks chunks(text, 3, in_place, 256, false, true, true);
    chunks.read_unclaimed(2, /*from_back=*/true);  // before the rectangle: as without it
    chunks.set_world_rect({glm::dmat4(1.0), core::XzBox{0.0, 100.0, 0.0, 4.0}});
    chunks.read_unclaimed_on(&pool);
    std::optional<ObjParts> got = chunks.result();
    ASSERT_TRUE(got.has_value());
    EXPECT_TRUE(got->parts.front().sided);
    for (std::size_t k = got->parts.size() - 2; k < got->parts.size(); ++k)
      EXPECT_FALSE(got->parts[k].sided) << k;
    expect_as_wanted(*got);
  }
  for (int round = 0; round < 20; ++round) {
    ObjElementChunks chunks(text, 3, in_place, 256, false, true, true);
    pool.for_ranges(3, [&](int begin, int) { chunks.read_unclaimed(3, begin % 2 == 0); });
    chunks.read_unclaimed();  // what the three calls left
    std::optional<ObjParts> got = chunks.result();
    ASSERT_TRUE(got.has_value());
    expect_as_wanted(*got);
  }
}

// Pass 1 reserves room for a chunk's elements from its length (a line of 32 bytes each): lines
// at least that long never outgrow it, shorter ones do, and the part says so (the terrain read
// hands the heap's freed pages back only then).
TEST(ObjParts, PartsSayWhenTheirElementsOutgrewTheRoomReserved) {
  std::string long_lines, short_positions, short_normals;
  for (int i = 0; i < 500; ++i) {
    const std::string n = std::to_string(i);
    long_lines += "v -" + n + ".000000000 0.001223587 -10.000000000\n";
    long_lines += "vn 0.0000000 1.0000000 0.0000000\n";
    short_positions += "v " + n + " 0 1\n";
    short_normals += "vn 0 1 0\n";
  }
  const core::ThreadPool pool(2);
  for (const bool store_normals : {true, false}) {
    SCOPED_TRACE(store_normals);
    const auto roomy = parse_obj_elements(long_lines, &pool, {}, 1024, store_normals);
    ASSERT_TRUE(roomy.has_value());
    ASSERT_GT(roomy->parts.size(), 1u);
    for (const ObjPart& part : roomy->parts) EXPECT_FALSE(part.outgrew_reserve);
    for (const std::string* text : {&short_positions, &short_normals}) {
      const auto crowded = parse_obj_elements(*text, &pool, {}, 1024, store_normals);
      ASSERT_TRUE(crowded.has_value());
      ASSERT_GT(crowded->parts.size(), 1u);
      for (const ObjPart& part : crowded->parts) EXPECT_TRUE(part.outgrew_reserve);
    }
  }
}

TEST(ObjParts, MalformedTextsAreLeftToParseObj) {
  const core::ThreadPool pool(2);
  for (const std::string text :
       {"v 0 0\n", "v 0 0 x\n", "v 0 0 1e999\n", "vn 0 1 0 0\n", "v 0 0 0\nf 1 2\n",
        "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 9\n", "v 0 0 0\nf 1 -2 1\n", "v 0 0 0\nf 0 1 1\n",
        "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1//1 2//1 3//1\n", "v 0 0 0\nf 1 1 1x\n"}) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(parse_obj_parts(text, &pool, 4).has_value());
    EXPECT_THROW(parse_obj(text, "bad.obj"), InputError);
  }
}

// Both passes reading the text through copies (ObjTextPages::copy) of `window` bytes at a time.
std::optional<ObjParts> parse_through_copies(const std::string& text, std::size_t window,
                                             std::size_t chunk, const core::ParallelRunner* runner,
                                             bool store_normals = true, bool end_at_faces = false) {
  ObjTextPages pages = copies_of(text);
  pages.window_bytes = window;
  std::optional<ObjParts> parts =
      parse_obj_elements(text, runner, pages, chunk, store_normals, true, end_at_faces);
  if (!parts || !parse_obj_faces(text, *parts, {}, runner, pages)) return std::nullopt;
  return parts;
}

// Pass 1 ending at each chunk's first face: a text whose elements all come before the faces
// that follow them (one mesh) parses as parse_obj does, read in place or through copies; a
// chunk with an element past a face makes pass 2 fail, and parse_obj_parts (which then reads
// the text again in full) still gives parse_obj's geometry.
TEST(ObjParts, PassOneEndingAtTheFacesReadsOneMeshOrFailsPassTwo) {
  std::string mesh, faces;
  for (int i = 0; i < 300; ++i) {
    mesh += "v " + std::to_string(i) + ".25 -0.5 " + std::to_string(i % 11) + "\nvn 0 1 0\r\n";
    faces += "f " + std::to_string(i + 1) + "//1 " + std::to_string((i + 7) % 300 + 1) + "//" +
             std::to_string(i % 3 + 1) + " -" + std::to_string(i % 5 + 1) + "//-1\n";
  }
  const std::string one_mesh = "o level\n" + mesh + "usemtl ground\n" + faces + "# v 1 2 3\n";
  const ObjGeometry want = parse_obj(one_mesh, "text.obj");
  const core::ThreadPool pool(3);
  for (const std::size_t chunk : {std::size_t{1} << 20, std::size_t{300}, std::size_t{7}}) {
    SCOPED_TRACE(chunk);
    auto parts = parse_obj_elements(one_mesh, &pool, {}, chunk, true, true, true);
    ASSERT_TRUE(parts.has_value());
    ASSERT_TRUE(parse_obj_faces(one_mesh, *parts, {}, &pool));
    expect_same_geometry(joined_parts(*parts), want);
    for (const std::size_t window : {std::size_t{9}, std::size_t{4096}}) {
      const auto copied = parse_through_copies(one_mesh, window, chunk, &pool, true, true);
      ASSERT_TRUE(copied.has_value());
      expect_same_geometry(joined_parts(*copied), want);
    }
  }
  // Two meshes in one chunk: pass 2 meets the second one's elements past the first's faces.
  const std::string two_meshes = one_mesh + "o rock\n" + mesh + faces;
  auto parts = parse_obj_elements(two_meshes, nullptr, {}, 1 << 20, true, true, true);
  ASSERT_TRUE(parts.has_value());
  ASSERT_EQ(parts->parts.size(), 1u);
  EXPECT_FALSE(parse_obj_faces(two_meshes, *parts, {}, nullptr));
  EXPECT_FALSE(parse_through_copies(two_meshes, 64, 1 << 20, nullptr, true, true).has_value());
  // A chunk whose last statement is an element (a mesh begins in it) is read whole by pass 1.
  const std::string then_elements = one_mesh + "o rock\n" + mesh;
  auto whole = parse_obj_elements(then_elements, nullptr, {}, 1 << 20, true, true, true);
  ASSERT_TRUE(whole.has_value());
  EXPECT_FALSE(whole->parts[0].elements_end_at_faces);
  ASSERT_TRUE(parse_obj_faces(then_elements, *whole, {}, nullptr));
  expect_same_geometry(joined_parts(*whole), parse_obj(then_elements, "text.obj"));
  // Cut into chunks, a chunking where no chunk holds an element past its first face reads it
  // whole.
  const ObjGeometry want_two = parse_obj(two_meshes, "text.obj");
  for (const std::size_t chunk : {std::size_t{300}, std::size_t{64}, std::size_t{7}}) {
    auto cut = parse_obj_elements(two_meshes, &pool, {}, chunk, true, true, true);
    ASSERT_TRUE(cut.has_value());
    if (parse_obj_faces(two_meshes, *cut, {}, &pool))
      expect_same_geometry(joined_parts(*cut), want_two);
  }
  expect_parts_match(two_meshes);
}

// Windows cut at line ends (CR, LF and CRLF ones, lines longer than a window, a window
// holding the rest of a chunk) give what the text read in place gives, for any chunking.
TEST(ObjParts, TextReadThroughCopiesParsesAsTheTextItself) {
  std::string text =
      "v 0 0 0\r\nv 1 0 0\nvn 0 1 0\rf 1//1 2//1 1//1\n# " + std::string(700, 'x') + "\n";
  for (int i = 0; i < 150; ++i)
    text += "v " + std::to_string(i) + ".5 0.25 -1.000000000\nvn 0.5 " + std::to_string(i % 5) +
            " 0\r\nf -1//-1 -2//-1 -3//1\n\tv -" + std::to_string(i) +
            ".125 1 2\rf 1/2/1 -1/1/-1 2//2 -2//2\n";
  const ObjGeometry want = parse_obj(text, "text.obj");
  const core::ThreadPool pool(3);
  for (const std::size_t window :
       {std::size_t{1}, std::size_t{9}, std::size_t{64}, std::size_t{4096}})
    for (const std::size_t chunk : {std::size_t{1} << 20, std::size_t{300}, std::size_t{7}}) {
      SCOPED_TRACE(std::to_string(window) + " " + std::to_string(chunk));
      const auto parts = parse_through_copies(text, window, chunk, &pool);
      ASSERT_TRUE(parts.has_value());
      expect_same_geometry(joined_parts(*parts), want);
      const auto unstored = parse_through_copies(text, window, chunk, nullptr, false);
      ASSERT_TRUE(unstored.has_value());
      ASSERT_EQ(unstored->normal_count, want.normals.size());
      for (std::size_t i = 0; i < want.normals.size(); ++i)
        ASSERT_TRUE(same_bits(read_obj_normal(text, *unstored, i), want.normals[i])) << i;
    }
}

// Read through copies, pass 1 finds its chunks' boundaries in copies too: the text's view is
// never read (a mapped file's pages are never faulted in). Here the view holds no line break
// at all, yet the chunks begin where those of the text read in place begin.
TEST(ObjParts, ChunkBoundariesThroughCopiesNeverReadTheText) {
  std::string text;
  for (int i = 0; i < 400; ++i)
    text += "v " + std::to_string(i) + ".5 0.25 -1\nvn 0 1 " + std::to_string(i % 3) + "\r\n";
  for (int i = 1; i < 390; ++i)
    text += "f " + std::to_string(i) + "//1 " + std::to_string(i + 1) + "//2 " +
            std::to_string(i + 2) + "//3\n";
  const std::string unreadable(text.size(), 'x');
  ObjTextPages pages = copies_of(text);
  pages.window_bytes = 512;
  for (const int threads : {2, 3}) {
    SCOPED_TRACE(threads);
    const auto want = parse_obj_elements(text, nullptr, {}, 64, false, true, true);
    ObjElementChunks copied(unreadable, threads, pages, 64, false, true, true);
    const ObjTextPages no_pages;  // held by reference: it must outlive the chunks
    ObjElementChunks in_place(text, threads, no_pages, 64, false, true, true);
    ASSERT_GT(copied.count(), 2u);
    copied.read_unclaimed();
    in_place.read_unclaimed();
    const std::optional<ObjParts> parts = copied.result(), placed = in_place.result();
    ASSERT_TRUE(parts.has_value() && placed.has_value() && want.has_value());
    EXPECT_EQ(parts->part_begin, placed->part_begin);
    EXPECT_EQ(parts->position_count, want->position_count);
    EXPECT_EQ(parts->normal_count, want->normal_count);
    // A copy that fails ends the boundaries there (the pass then fails on it, as before).
    ObjTextPages failing;
    failing.copy = [](std::size_t, char*, std::size_t) { return false; };
    EXPECT_EQ(ObjElementChunks(unreadable, threads, failing, 64, false, true, true).count(), 1u);
  }
}

TEST(ObjParts, TextsRefusedOrUncopiedThroughCopiesAreLeftToParseObj) {
  const core::ThreadPool pool(2);
  for (const std::string text : {"v 0 0\n", "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 9\n"}) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(parse_through_copies(text, 4, 4, &pool).has_value());
  }
  // A copy that fails (the file shrank under the reader) fails the pass.
  const std::string text = "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n";
  ObjTextPages pages;
  pages.copy = [](std::size_t, char*, std::size_t) { return false; };
  EXPECT_FALSE(parse_obj_elements(text, &pool, pages, 4).has_value());
  auto parts = parse_obj_elements(text, &pool, {}, 4);
  ASSERT_TRUE(parts.has_value());
  EXPECT_FALSE(parse_obj_faces(text, *parts, {}, &pool, pages));
}

// MappedFile::copy reads the file's bytes (never more than it holds), as text() shows them.
TEST(ObjParts, MappedFileCopiesItsBytes) {
  const auto path = test::scratch_dir("obj_parts_copy") / "t.obj";
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "v " + std::to_string(i) + " 0 1\n";
  write_file_atomic(path, text);
  const MappedFile mapped(path);
  std::string copied(text.size(), '\0');
  ASSERT_TRUE(mapped.copy(0, copied.data(), 100));
  ASSERT_TRUE(mapped.copy(100, copied.data() + 100, text.size() - 100));
  EXPECT_EQ(copied, text);
  EXPECT_TRUE(mapped.copy(text.size(), copied.data(), 0));
  EXPECT_FALSE(mapped.copy(text.size() - 1, copied.data(), 2));
  EXPECT_FALSE(mapped.copy(text.size() + 1, copied.data(), 0));
}

// The loader's former merge: an unordered_map over the bits of position and normal.
core::TerrainMesh reference_mesh(const ObjGeometry& obj) {
  struct Key {
    double v[6];
    bool operator==(const Key& o) const { return std::memcmp(v, o.v, sizeof v) == 0; }
  };
  struct Hash {
    std::size_t operator()(const Key& k) const {
      std::size_t h = 0;
      for (double d : k.v) {
        std::uint64_t bits;
        std::memcpy(&bits, &d, sizeof bits);
        h = h * 1000003u ^ std::hash<std::uint64_t>()(bits);
      }
      return h;
    }
  };
  const bool normals = !obj.triangles.empty() && obj.every_corner_has_normal;
  core::TerrainMesh mesh;
  std::unordered_map<Key, std::uint32_t, Hash> index;
  for (const auto& corners : obj.triangles) {
    std::array<std::uint32_t, 3> tri{};
    for (int k = 0; k < 3; ++k) {
      // Through the identity transform, as the loader does (which turns -0.0 into 0.0).
      const core::Vec3 p =
          core::Vec3(glm::dmat4(1.0) * glm::dvec4(obj.positions[corners[k].position], 1.0));
      const core::Vec3 n =
          normals ? core::safe_normalize(obj.normals[static_cast<std::size_t>(corners[k].normal)],
                                         core::Vec3(0.0))
                  : core::Vec3(0.0);
      const Key key{{p.x, p.y, p.z, n.x, n.y, n.z}};
      auto [it, inserted] =
          index.try_emplace(key, static_cast<std::uint32_t>(mesh.vertices.size()));
      if (inserted) {
        mesh.vertices.push_back(p);
        if (normals) mesh.vertex_normals.push_back(n);
      }
      tri[static_cast<std::size_t>(k)] = it->second;
    }
    mesh.triangles.push_back(tri);
  }
  return mesh;
}

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

TEST(ObjParts, TerrainMeshMergesCornersAsTheFormerLoader) {
  // Duplicate positions (merged), one position with two normals (two vertices), -0.0 and 0.0
  // (merged: the transform to metres adds +0.0), positions used out of file order.
  const std::string text =
      "v 0 0 0\nv 1 0 0\nv 0 0 1\nv 1 0 0\nv -0.0 0 1\nv 0.0 0 1\nvn 0 1 0\nvn 0 2 0.1\n"
      "f 3//1 2//1 1//1\nf 4//2 1//1 5//1\nf 6//1 4//1 2//2\n";
  const core::ThreadPool pool(2);
  const auto parts = parse_obj_parts(text, &pool, 8);
  ASSERT_TRUE(parts.has_value());
  expect_same_mesh(obj_terrain_mesh(*parts, glm::dmat4(1.0), "t.obj", &pool),
                   reference_mesh(parse_obj(text, "t.obj")));
  // Without normals on every corner: none kept, positions merged by value alone.
  const std::string no_normals =
      "v 0 0 0\nv 1 0 0\nv 0 0 1\nv 0 0 0\nvn 0 1 0\nf 1 2 3\nf 4//1 3 2\n";
  const auto parts2 = parse_obj_parts(no_normals, &pool, 8);
  ASSERT_TRUE(parts2.has_value());
  expect_same_mesh(obj_terrain_mesh(*parts2, glm::dmat4(1.0), "t.obj", &pool),
                   reference_mesh(parse_obj(no_normals, "t.obj")));
}

// Enough triangles for several blocks of the merge's parallel steps (io/obj_terrain.cpp): on
// any number of threads the former loader's mesh, with a position used with a second normal
// and a twin of a position (the same bits, another index) both first met in the last block.
TEST(ObjParts, TerrainMeshMergesCornersAcrossBlocksAsTheFormerLoader) {
  constexpr int kCells = 160;  // 51,200 triangles
  std::string text;
  for (int z = 0; z <= kCells; ++z)
    for (int x = 0; x <= kCells; ++x)
      text += "v " + std::to_string(x) + " 0 " + std::to_string(z) + "\n";
  const int twin = (kCells + 1) * (kCells + 1) + 1;
  text += "v 5 0 0\nvn 0 1 0\nvn 0 0.9 0.1\n";
  const auto corner = [](int v, int n) {
    return " " + std::to_string(v) + "//" + std::to_string(n);
  };
  for (int z = 0; z < kCells; ++z)
    for (int x = 0; x < kCells; ++x) {
      const int a = z * (kCells + 1) + x + 1, b = a + 1, c = a + kCells + 1, d = c + 1;
      text += "f" + corner(a, 1) + corner(c, 1) + corner(b, 1) + "\n";
      text += "f" + corner(b, 1) + corner(c, 1) + corner(d, 1) + "\n";
    }
  text += "f" + corner(1, 2) + corner(kCells + 2, 1) + corner(2, 1) + "\n";
  text += "f" + corner(twin, 1) + corner(kCells + 7, 1) + corner(7, 1) + "\n";
  const core::TerrainMesh want = reference_mesh(parse_obj(text, "t.obj"));
  for (const int threads : {1, 2, 3}) {
    SCOPED_TRACE(threads);
    const core::ThreadPool pool(threads);
    const auto parts = parse_obj_parts(text, &pool, 8);
    ASSERT_TRUE(parts.has_value());
    expect_same_mesh(obj_terrain_mesh(*parts, glm::dmat4(1.0), "t.obj", &pool), want);
  }
}

TEST(ObjParts, GeneratedBumpsLoadAsTheFormerLoader) {
  core::BumpsParams params;
  params.cell = 0.05;
  const auto dir = test::scratch_dir("obj_parts_bumps");
  const auto path = dir / "bumps.obj";
  save_obj(path, core::make_bumps_terrain(params));
  const std::string text = read_file(path);
  expect_same_mesh(load_terrain_mesh(path), reference_mesh(parse_obj(text, path.string())));
}

}  // namespace
}  // namespace ikfix::io
