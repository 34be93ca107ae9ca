#pragma once
// Wavefront OBJ geometry parsed in parallel: the file is cut into chunks at line ends and each
// chunk is read on its own thread, straight from memory, into its own arrays. Two passes: the
// elements ("v", "vn") first, then the faces, which can then be tested against a horizontal
// rectangle as soon as they are read and dropped when they lie wholly outside it.
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <glm/mat4x4.hpp>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/math.hpp"
#include "core/xz_grid.hpp"
#include "io/obj_line_shape.hpp"
#include "io/obj_reader.hpp"

namespace ikfix::core {
class ParallelRunner;
}

namespace ikfix::io {

// A file position in world metres as read_obj_terrain (io/obj_terrain) makes it: glm's
// product, except under the identity (`identity`: to_world is it) where a finite position's
// coordinates only gain + 0.0 (the product's sum of zeros, which only turns -0 into +0).
inline core::Vec3 obj_position_to_world(const core::Vec3& p, const glm::dmat4& to_world,
                                        bool identity) {
  if (identity && core::is_finite(p)) return core::Vec3(p.x + 0.0, p.y + 0.0, p.z + 0.0);
  return core::Vec3(to_world * glm::dvec4(p, 1.0));
}

// The sides of the horizontal rectangle `rect` that `p` lies beyond: bit 0 x < min_x, bit 1
// x > max_x, bit 2 z < min_z, bit 3 z > max_z. A triangle's horizontal bounding box misses the
// rectangle exactly when its three corners share a bit (all left of it, all right of it, ...).
inline std::uint8_t sides_beyond(const core::Vec3& p, const core::XzBox& rect) {
  return static_cast<std::uint8_t>(
      static_cast<unsigned>(p.x < rect.min_x) | static_cast<unsigned>(p.x > rect.max_x) << 1 |
      static_cast<unsigned>(p.z < rect.min_z) << 2 | static_cast<unsigned>(p.z > rect.max_z) << 3);
}

inline bool has_negative_zero(const core::Vec3& p) {
  return (p.x == 0.0 && std::signbit(p.x)) || (p.y == 0.0 && std::signbit(p.y)) ||
         (p.z == 0.0 && std::signbit(p.z));
}

// A rectangle to keep, in world metres, with the transform of the file's positions to world
// metres (ObjElementChunks::set_world_rect).
struct ObjWorldRect {
  glm::dmat4 to_world{1.0};
  core::XzBox rect{};
};

// A part read without its positions or normals keeps the line of every kElementLineStride-th
// of them, not of each (a quarter byte per element instead of four: a large file's arrays are
// fresh memory, which costs more to touch than the lines between to step over).
inline constexpr std::size_t kElementLineStride = 16;

// One chunk's statements, in file order. Corner indices are 0-based over the whole file.
struct ObjPart {
  std::vector<core::Vec3> positions;  // empty when `sided`
  // Read with an ObjWorldRect: instead of `positions` (24 bytes each), per "v" statement
  // sides_beyond(its world position, the rectangle), and per kElementLineStride of them the
  // first one's line (its first byte in the chunk), with the bounds of those world positions
  // (glm::min and glm::max in file order). The positions the kept triangles use are read again
  // from their lines (obj_position_anchor, read_obj_position_line).
  bool sided = false;
  std::vector<std::uint32_t> position_lines;
  std::vector<std::uint8_t> position_sides;
  core::Vec3 sided_min{std::numeric_limits<double>::infinity()};
  core::Vec3 sided_max{-std::numeric_limits<double>::infinity()};
  // A world position that is not finite or has a -0 coordinate: the sides and bounds are not
  // what read_obj_terrain takes (which names the position, or orders -0 and +0 by use), so the
  // positions must be read again into `positions` (read_sided_positions_again).
  bool sided_irregular = false;
  std::size_t position_count() const { return sided ? position_sides.size() : positions.size(); }
  std::vector<core::Vec3> normals;  // empty when read without storing normals
  std::size_t normals_read = 0;     // "vn" statements, stored or not
  // Without stored normals: per kElementLineStride "vn" statements, the first one's line (its
  // first byte in the chunk).
  std::vector<std::uint32_t> normal_lines;
  std::vector<std::array<ObjCorner, 3>> triangles;  // the kept ones (all, without a filter)
  // Where the chunk's faces begin (bytes into the chunk; its size when it has none), and the
  // chunk's positions and normals before that point.
  std::size_t face_begin = 0;
  std::size_t positions_before_faces = 0, normals_before_faces = 0;
  // Pass 1 read the chunk only up to its first face (parse_obj_elements' `end_at_faces`).
  bool elements_end_at_faces = false;
  // Whether an element array outgrew the room pass 1 reserved for it (and so was moved, its
  // former block freed).
  bool outgrew_reserve = false;
};

struct ObjParts {
  std::vector<ObjPart> parts;                // in file order
  std::vector<std::size_t> part_begin;       // per part: its first byte in the text
  std::vector<std::size_t> position_offset;  // per part: positions in the parts before it
  std::vector<std::size_t> normal_offset;    // per part: normals in the parts before it
  std::size_t position_count = 0;
  std::size_t normal_count = 0;
  std::size_t triangle_count = 0;  // every triangle of the file, kept or not
  bool every_corner_has_normal = true;
};

// What a reader tells the owner of the text (a mapped file), with byte ranges [begin, end):
// `ahead`, the range it is about to read (the file's pages can be mapped in one go instead of
// one fault at a time); `done`, a range a pass is done with (its pages can be dropped from
// memory). Either may be empty. With `copy`, the passes read the text through it instead, in
// windows of about `window_bytes` that each thread reuses (`ahead` and `done` then unused):
// `copy(begin, out, bytes)` puts the text's bytes [begin, begin + bytes) in `out`, false when
// it cannot (the reader then gives up as on a text it does not accept). Reading a file's pages
// into a buffer that stays in the cache costs the kernel less than mapping and unmapping them.
struct ObjTextPages {
  std::function<void(std::size_t begin, std::size_t end)> ahead;
  std::function<void(std::size_t begin, std::size_t end)> done;
  std::function<bool(std::size_t begin, char* out, std::size_t bytes)> copy;
  std::size_t window_bytes = std::size_t{256} << 10;
};

// Pass 1: the positions and normals parse_obj(text) returns, bit for bit, read on `runner`'s
// threads (null: this thread), and where each chunk's faces begin. Returns nothing when a
// statement is not one parse_obj accepts as it is (parse_obj then names the line and the
// problem; a text this reader is stricter on still gets read there). Chunks are at least
// `min_chunk_bytes` long (smaller ones cost a thread more than they save). Without
// `store_normals`, the normals are checked and counted but only where their lines are is kept
// (4 bytes each instead of 24): read_obj_normal reads one when it is needed. With `lean`, the
// common line forms are read by io/obj_lean_lines (the same result, faster; false: every line
// by the general reader, for tests). With `end_at_faces`, each chunk is read only up to its
// first face, as if every element of the file came before the faces that follow it (as in a
// terrain's single mesh: the face lines, about half the text, are then read once, by pass 2),
// unless its last statement is an element (another mesh begins in it); parse_obj_faces then
// fails where a chunk has an element past its first face (or a face refers to an element past
// those read): read the text again without `end_at_faces`.
std::optional<ObjParts> parse_obj_elements(std::string_view text,
                                           const core::ParallelRunner* runner,
                                           const ObjTextPages& pages = {},
                                           std::size_t min_chunk_bytes = std::size_t{1} << 20,
                                           bool store_normals = true, bool lean = true,
                                           bool end_at_faces = false);

// parse_obj_elements' work as chunks that threads claim one at a time, lowest first (or
// highest first), so that threads can start on it before the caller's are free
// (io/obj_read_ahead) and any thread can join later: every chunk is read the same whichever
// thread reads it. Thread-safe but for the constructor and result(). `text` and `pages` must
// outlive it.
class ObjElementChunks {
 public:
  // The chunks parse_obj_elements(text, runner, ...) reads, for a `runner` of `threads` threads
  // (0 or 1: one chunk). `text` and `pages` are held by reference: they must outlive it.
  ObjElementChunks(std::string_view text, int threads, const ObjTextPages& pages,
                   std::size_t min_chunk_bytes, bool store_normals, bool lean, bool end_at_faces);
  ObjElementChunks(const ObjElementChunks&) = delete;
  ObjElementChunks& operator=(const ObjElementChunks&) = delete;

  std::size_t count() const { return ok_.size(); }
  // The chunks claimed after this call are read as with `rect` (ObjPart::sided), those claimed
  // before as without: either way the read's result is the same. Once, from any thread.
  void set_world_rect(const ObjWorldRect& rect);
  // Reads chunks no thread has claimed yet until none is left, `max_chunks` are read or stop()
  // is called; the highest first with `from_back` (a file's faces and normals mostly follow
  // its positions: read before set_world_rect, they need less memory than its positions do).
  void read_unclaimed(std::size_t max_chunks = std::numeric_limits<std::size_t>::max(),
                      bool from_back = false);
  // read_unclaimed on each of `runner`'s threads (null: this thread); returns when all have.
  void read_unclaimed_on(const core::ParallelRunner* runner);
  // No chunk is claimed after this call (those being read are finished).
  void stop() { stopped_.store(true); }
  // After every call of read_unclaimed has returned, without stop(): parse_obj_elements'
  // result (an exception a chunk threw, that of the lowest such chunk, is rethrown).
  std::optional<ObjParts> result();

 private:
  std::string_view text_;
  const ObjTextPages& pages_;
  bool store_normals_, lean_, end_at_faces_;
  std::vector<std::size_t> starts_;  // chunk k is [starts_[k], starts_[k + 1])
  ObjParts out_;
  std::vector<char> ok_;
  std::vector<std::exception_ptr> errors_;
  std::unique_ptr<std::atomic<bool>[]> claimed_;          // per chunk
  std::atomic<std::size_t> next_{0}, next_from_back_{0};  // claims tried from each end
  std::atomic<bool> stopped_{false};
  ObjWorldRect rect_;                  // written once, before rect_set_
  std::atomic<bool> rect_set_{false};  // set once `rect_` holds set_world_rect's rectangle
  bool too_large_ = false;             // past 4 GiB: refused (line offsets are 32-bit)
};

// Normal `index` (0-based over the file) of `text` read by parse_obj_elements without
// storing normals: the same bits it would have stored.
core::Vec3 read_obj_normal(std::string_view text, const ObjParts& parts, std::size_t index);

// Where an element's line is found from the line pass 1 kept nearest before it: `steps`
// statements of its kind ("v" or "vn") after the one whose line starts at `at` in the text.
struct ObjElementAnchor {
  std::size_t at = 0;
  std::size_t steps = 0;
};
ObjElementAnchor obj_normal_anchor(const ObjParts& parts, std::size_t index);
// For a position of a sided part (ObjPart::sided).
ObjElementAnchor obj_position_anchor(const ObjParts& parts, std::size_t index);

// Whether the line at the start of `line` (which holds it whole) is a "v" (`position`) or
// "vn" statement.
bool obj_statement_is(std::string_view line, bool position);
// From the line at the start of `text`, steps over the lines after it (a '\r' and a '\n' each
// end one: the empty line between them is no statement) while `steps` is not 0, lowering it
// for each "v" (`position`) or "vn" statement stepped to, as far as `text` holds the lines'
// first words. Returns where the last line stepped to starts (0: none): with `steps` 0, the
// statement sought.
std::size_t obj_step_statements(std::string_view text, bool position, std::size_t& steps);
// Bytes of `text` up to and with its first line break; 0 when it has none.
std::size_t obj_line_bytes(std::string_view text);

// Where the line of the `steps`-th "v" (`position`) or "vn" statement after the line at `at` (a
// line's start) starts, the lines between stepped over as pass 1 reads them (an
// ObjElementAnchor's `at` and `steps` give its element's line). `from(at)` gives the text from
// a line's start on (at least that line and its line break, or up to the text's end); the
// statements stepped to must be in the text (else: its last line).
template <typename From>
std::size_t step_statements(From&& from, std::size_t at, std::size_t steps, bool position) {
  while (steps > 0) {
    const std::string_view text = from(at);
    const std::size_t reached = obj_step_statements(text, position, steps);
    if (reached != 0) {
      at += reached;
      continue;
    }
    // The next line's first word runs past the text held from `at`: that line taken whole.
    const std::size_t line = obj_line_bytes(text);
    if (line == 0) break;  // the text's last line (it changed since pass 1 read it)
    at += line;
    if (obj_statement_is(from(at), position)) --steps;
  }
  return at;
}

// The same in two steps: where normal `index`'s line starts in the text, and the normal of the
// text from a line's start on (`line` holds at least that line and its line break, or ends
// with the text).
std::size_t obj_normal_line(std::string_view text, const ObjParts& parts, std::size_t index);
core::Vec3 read_obj_normal_line(std::string_view line);
// The same for a position of a sided part (ObjPart::sided): where its line starts in the text,
// and the position (file units) of the text from a "v" line's start on, the bits pass 1 read.
std::size_t obj_position_line(std::string_view text, const ObjParts& parts, std::size_t index);
core::Vec3 read_obj_position_line(std::string_view line);
// Both, for many lines in turn (one on each thread): the same bits, read from where the last
// line of the same shape had its digits (obj_lean::VectorShape) when the lines share one.
class ObjElementLines {
 public:
  core::Vec3 position(std::string_view line) { return read(line, true, position_shape_); }
  core::Vec3 normal(std::string_view line) { return read(line, false, normal_shape_); }

 private:
  static core::Vec3 read(std::string_view line, bool position, obj_lean::VectorShape& shape);
  obj_lean::VectorShape position_shape_, normal_shape_;
};

// Sided parts (ObjPart::sided) read again as pass 1 reads them without a rectangle: `positions`
// in file units instead of their lines and sides, on `runner`'s threads, through `pages.copy`
// when there is one. False when a chunk can no longer be read so (a file changed meanwhile).
bool read_sided_positions_again(std::string_view text, ObjParts& parts, const ObjTextPages& pages,
                                const core::ParallelRunner* runner);

// Decides whether a triangle of part `part` (0-based position indices over the whole file) is
// kept; called from the runner's threads, one part on one thread at a time.
using ObjTriangleFilter =
    std::function<bool(std::size_t part, std::uint32_t a, std::uint32_t b, std::uint32_t c)>;

// A footprint test done in the face pass itself (no call per triangle): a triangle is kept
// unless its three corners' `beyond` bytes share a bit, and every corner of every triangle read
// is marked 1 in `used` (one byte per position of the whole file; several threads may mark
// one: relaxed atomic stores of the same value).
struct ObjSidesFilter {
  const std::uint8_t* beyond = nullptr;
  std::uint8_t* used = nullptr;
};

// Pass 2, on pass 1's result: every face, fan-triangulated as parse_obj does, with indices made
// absolute and checked against the whole file's counts; a triangle `sides` or else `keep`
// refuses (when given) is counted (triangle_count, every_corner_has_normal) but not stored.
// `keep` is called from the runner's threads. False when a face is one parse_obj would reject,
// or, after a pass 1 that ended at the faces, when an element follows a face in its chunk.
// `lean`: as in parse_obj_elements.
bool parse_obj_faces(std::string_view text, ObjParts& parts, const ObjTriangleFilter& keep,
                     const core::ParallelRunner* runner, const ObjTextPages& pages = {},
                     bool lean = true, const ObjSidesFilter* sides = nullptr);

// Both passes, no filter: the geometry parse_obj(text) returns, bit for bit (pass 1 ending at
// the faces, read again in full where elements follow them).
std::optional<ObjParts> parse_obj_parts(std::string_view text, const core::ParallelRunner* runner,
                                        std::size_t min_chunk_bytes = std::size_t{1} << 20);

// parse_obj's result as one part (for a text parse_obj_parts left to parse_obj).
ObjParts as_parts(ObjGeometry geometry);

}  // namespace ikfix::io
