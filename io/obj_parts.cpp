#include "io/obj_parts.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>

#include "core/parallel.hpp"
#include "io/decimal.hpp"
#include "io/obj_lean_lines.hpp"
#include "io/obj_line_shape.hpp"
#include "io/parallel_blocks.hpp"

namespace ikfix::io {
namespace {

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }
inline bool is_eol(char c) { return c == '\n' || c == '\r'; }
inline bool ends_token(char c) { return is_blank(c) || is_eol(c) || c == '#'; }

// Bit 7 of each byte of `chunk` equal to `byte`, exact for the lowest such byte (a borrow can
// only mark bytes above a match).
inline std::uint64_t bytes_equal(std::uint64_t chunk, char byte) {
  const std::uint64_t x = chunk ^ (0x0101010101010101ull * static_cast<unsigned char>(byte));
  return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}

// The first line break ('\n' or '\r') in [p, end), or end; eight bytes at a time.
inline const char* find_eol(const char* p, const char* end) {
  for (; end - p >= 8; p += 8) {
    const std::uint64_t chunk = decimal_detail::load8(p);
    const std::uint64_t found = bytes_equal(chunk, '\n') | bytes_equal(chunk, '\r');
    if (found != 0) return p + (__builtin_ctzll(found) >> 3);
  }
  while (p < end && !is_eol(*p)) ++p;
  return p;
}

// The first word of the line at `line` (after its blanks), up to `end` at most.
std::string_view first_word(const char* line, const char* end) {
  while (line < end && is_blank(*line)) ++line;
  const char* word = line;
  while (line < end && !ends_token(*line)) ++line;
  return {word, static_cast<std::size_t>(line - word)};
}

bool is_element_keyword(std::string_view word, bool position) {
  return word == (position ? "v" : "vn");
}

// Line-level reading shared by both passes (parse_obj's grammar, obj_reader.hpp).
class LineReader {
 public:
  LineReader(std::string_view text, std::size_t base, const ObjTextPages* pages, bool lean)
      : begin_(text.data()),
        p_(begin_),
        end_(p_ + text.size()),
        base_(base),
        pages_(pages),
        lean_(lean) {
    released_ = p_;
    announced_ = p_;
    next_check_ = p_;
    release_behind(false);
  }

  // Points the reader at `window`, a copy of the bytes of its text from `offset` on, which
  // starts at a line start and ends at a line end or the text's end (read_in_windows). For a
  // reader without `pages`: what it would hand them concerns the text, not the copy.
  void set_window(std::string_view window, std::size_t offset) {
    begin_ = p_ = window.data();
    end_ = p_ + window.size();
    released_ = announced_ = next_check_ = p_;
    window_offset_ = offset;
  }

 protected:
  // Hands the text behind the reader to `done` in steps of kReleaseStep (and all at the end),
  // and the text before it to `ahead` in steps of kAheadStep.
  static constexpr std::size_t kReleaseStep = std::size_t{16} << 20;
  static constexpr std::size_t kAheadStep = std::size_t{4} << 20;
  void release_behind(bool all) {
    if (!pages_ || (!all && p_ < next_check_)) return;
    if (p_ >= announced_ && p_ < end_ && pages_->ahead) {
      announced_ = p_ + std::min<std::size_t>(kAheadStep, static_cast<std::size_t>(end_ - p_));
      pages_->ahead(base_ + static_cast<std::size_t>(p_ - begin_),
                    base_ + static_cast<std::size_t>(announced_ - begin_));
    }
    if (pages_->done && (all || static_cast<std::size_t>(p_ - released_) >= kReleaseStep)) {
      pages_->done(base_ + static_cast<std::size_t>(released_ - begin_),
                   base_ + static_cast<std::size_t>(p_ - begin_));
      released_ = p_;
    }
    // Nothing is due before the end of the text announced or the next release step.
    const char* due = pages_->ahead ? announced_ : end_;
    if (pages_->done)
      due =
          std::min(due, released_ + std::min<std::size_t>(
                                        kReleaseStep, static_cast<std::size_t>(end_ - released_)));
    next_check_ = due;
  }
  void skip_blank() {
    while (p_ < end_ && is_blank(*p_)) ++p_;
  }
  bool at_end_of_statement() const { return p_ == end_ || is_eol(*p_) || *p_ == '#'; }
  std::string_view word() {
    const char* s = p_;
    while (p_ < end_ && !ends_token(*p_)) ++p_;
    return {s, static_cast<std::size_t>(p_ - s)};
  }
  void next_line() {
    p_ = find_eol(p_, end_);
    if (p_ == end_) return;
    if (*p_ == '\r' && p_ + 1 < end_ && p_[1] == '\n') ++p_;
    ++p_;
  }
  // A signed integer; false when there is none. What from_chars reads, with up to seven digits
  // read eight bytes at a time.
  bool read_signed(bool& negative, std::uint64_t& value) {
    negative = false;
    if (p_ < end_ && (*p_ == '-' || *p_ == '+')) negative = *p_++ == '-';
    if (end_ - p_ >= 8) {
      const std::uint64_t chunk = decimal_detail::load8(p_);
      const int digits = decimal_detail::leading_digits(chunk);
      if (digits == 0) return false;
      if (digits < 8) {
        value = decimal_detail::digits_value(chunk, digits);
        p_ += digits;
        return true;
      }
    }
    const auto r = std::from_chars(p_, end_, value);
    if (r.ec != std::errc()) return false;
    p_ = r.ptr;
    return true;
  }

  // The numbers of a "v" (`extra_allowed`: a w or a colour may follow, checked, not kept) or
  // "vn" statement, after its keyword; false where parse_obj would fail.
  bool read_vector(core::Vec3& out, bool extra_allowed) {
    double v[3] = {0, 0, 0};
    int n = 0;
    for (;; ++n) {
      skip_blank();
      if (at_end_of_statement()) break;
      double value = 0;
      if (*p_ == '+') ++p_;
      const auto r = read_double(p_, end_, value);
      if (r.ec != std::errc() || (r.ptr < end_ && !ends_token(*r.ptr)) || !std::isfinite(value))
        return false;
      p_ = r.ptr;
      if (n < 3) v[n] = value;
    }
    if (n < 3 || (!extra_allowed && n > 3)) return false;
    out = core::Vec3(v[0], v[1], v[2]);
    return true;
  }

  // Where `at`, a byte of the text or of the window's copy, lies in the text.
  std::size_t offset_of(const char* at) const {
    return window_offset_ + static_cast<std::size_t>(at - begin_);
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  const char* released_;
  std::size_t base_;        // the chunk's first byte in the whole text
  const char* announced_;   // the end of the text announced to `ahead`
  const char* next_check_;  // release_behind has nothing to do before this point
  const ObjTextPages* pages_;
  bool lean_;  // lines of the forms obj_lean reads are read by it
  std::size_t window_offset_ = 0;
};

// Bytes of text per element line for which pass 1 reserves room ("v -1.234567 0.123456
// 2.345678" is 31): shorter lines only make the arrays grow, as they would anyway.
constexpr std::size_t kElementLineBytes = 32;

// Pass 1 over one chunk: positions and normals; faces only located.
class ElementParser : LineReader {
 public:
  // With `rect`, the part is read sided (ObjPart::sided).
  ElementParser(std::string_view text, std::size_t base, ObjPart& part, const ObjTextPages* pages,
                bool store_normals, bool lean, bool end_at_faces, const ObjWorldRect* rect)
      : LineReader(text, base, pages, lean),
        part_(part),
        store_normals_(store_normals),
        end_at_faces_(end_at_faces),
        rect_(rect),
        identity_(rect && rect->to_world == glm::dmat4(1.0)),
        keep_(rect ? rect->rect : core::XzBox{}),
        room_(text.size() / kElementLineBytes),
        size_(text.size()) {
    part_.face_begin = text.size();
    part_.sided = rect != nullptr;
  }

  bool run() { return read() && finish(); }
  using LineReader::set_window;

  // The lines of the text (or of the window set): false where parse_obj would fail.
  bool read() {
    if (ended()) return true;
    while (p_ < end_) {
      if (lean_ && read_lean_element()) continue;
      const char* line = p_;
      skip_blank();
      const std::string_view keyword = word();
      bool ok = true;
      if (keyword == "v" && rect_) {
        core::Vec3 position;
        ok = read_vector(position, true);
        if (ok) add_sided(position.x, position.y, position.z, line);
      } else if (keyword == "v") {
        make_room(part_.positions);
        ok = read_vector(part_.positions.emplace_back(), true);
      } else if (keyword == "vn") {
        ok = read_normal(line);
      } else if (faces_found()) {
        // Past the first face only "v" and "vn" statements matter here.
        skip_to_statement_with_v();
        release_behind(false);
        continue;
      } else if (keyword == "f") {
        part_.face_begin = offset_of(line);
        part_.positions_before_faces = part_.position_count();
        part_.normals_before_faces = part_.normals_read;
        if (end_at_faces_) return true;
      }
      if (!ok) return false;
      next_line();
      release_behind(false);
    }
    return true;
  }

  // Whether the chunk's elements are all read before its end (end_at_faces: at its first face).
  bool ended() const { return end_at_faces_ && faces_found(); }

  // After the last line read.
  bool finish() {
    release_behind(true);
    part_.sided_min = sided_min_;
    part_.sided_max = sided_max_;
    const std::size_t line_room = room_ / kElementLineStride + 1;
    part_.outgrew_reserve =
        part_.positions.capacity() > room_ || part_.normals.capacity() > room_ ||
        part_.normal_lines.capacity() > line_room || part_.position_lines.capacity() > line_room ||
        part_.position_sides.capacity() > room_;
    return true;
  }

 private:
  // Room for a chunk of element lines at once in `elements`, on its first element (address
  // space: pages are backed when written), so the arrays are rarely moved while they grow.
  // Not before: malloc writes past a block's end, so a block reserved and never filled (a
  // chunk of faces' positions) still costs the page there, a whole huge page of the heap.
  template <typename T>
  void make_room(std::vector<T>& elements) {
    if (elements.capacity() == 0) elements.reserve(room_);
  }
  // The same for the lines kept, one per kElementLineStride elements.
  void make_line_room(std::vector<std::uint32_t>& lines) {
    if (lines.capacity() == 0) lines.reserve(room_ / kElementLineStride + 1);
  }

  // A "v X Y Z" or "vn X Y Z" line of obj_lean::read_xyz's form; false (nothing read) for any
  // other line.
  bool read_lean_element() {
    if (end_ - p_ < 3 || p_[0] != 'v') return false;
    const bool normal = p_[1] == 'n';
    double v[3];
    const char* next = read_shaped_element(normal, v);
    if (!next) {
      if (normal ? p_[2] != ' ' : p_[1] != ' ') return false;
      const char* at = p_ + (normal ? 2 : 1);
      const bool values = !normal || store_normals_;
      next = values ? obj_lean::read_xyz(at, end_, v) : obj_lean::read_xyz<false>(at, end_, v);
      if (!next) return false;
      const auto length = static_cast<int>(next - p_);
      if (!values) {
        if (checked_normal_shape_.worth_learning()) checked_normal_shape_.learn(p_, length);
      } else {
        (normal ? normal_shape_ : position_shape_).learn(p_, length, normal ? 2 : 1);
      }
    }
    add_element(normal, v);
    p_ = next;
    release_behind(false);
    return true;
  }

  // A line at p_ of the shape of the last line of its kind read_xyz read (obj_lean::VectorShape;
  // for a normal only checked, obj_lean::LineShape): its next line, with its numbers in `v`
  // (unless only checked), as read_xyz reads them; null for any other line.
  const char* read_shaped_element(bool normal, double v[3]) {
    if (end_ - p_ < obj_lean::VectorShape::kRoom) return nullptr;
    if (normal && !store_normals_)
      return checked_normal_shape_.matches(p_) ? p_ + checked_normal_shape_.length() : nullptr;
    return (normal ? normal_shape_ : position_shape_).read(p_, v);
  }

  // The element of the line at p_ (`v` unread for a normal not stored).
  void add_element(bool normal, const double v[3]) {
    if (!normal && rect_) return add_sided(v[0], v[1], v[2], p_);
    if (!normal) {
      make_room(part_.positions);
      part_.positions.emplace_back(v[0], v[1], v[2]);
      return;
    }
    if (store_normals_) {
      ++part_.normals_read;
      make_room(part_.normals);
      part_.normals.emplace_back(v[0], v[1], v[2]);
    } else {
      add_normal_line(p_);
    }
  }

  // A normal not stored, its line at `line`: counted, and its line kept when it is the first of
  // kElementLineStride.
  void add_normal_line(const char* line) {
    if (part_.normals_read++ % kElementLineStride != 0) return;
    make_line_room(part_.normal_lines);
    part_.normal_lines.push_back(static_cast<std::uint32_t>(offset_of(line)));
  }

  // A position of a sided part, its line at `line`: its line, its world position's sides and
  // the bounds (the world position itself is not kept). Inlined: called once per position.
  [[gnu::always_inline]] void add_sided(double x, double y, double z, const char* line) {
    core::Vec3 world(x + 0.0, y + 0.0, z + 0.0);  // the identity's bits for a finite position
    if (!identity_ || !core::is_finite(world)) {
      world = obj_position_to_world(core::Vec3(x, y, z), rect_->to_world, identity_);
      if (!core::is_finite(world) || has_negative_zero(world)) part_.sided_irregular = true;
    }
    // glm::min and glm::max, as positions_to_world's bounds ((b < a) ? b : a, per coordinate).
    sided_min_ = core::Vec3(std::min(sided_min_.x, world.x), std::min(sided_min_.y, world.y),
                            std::min(sided_min_.z, world.z));
    sided_max_ = core::Vec3(std::max(sided_max_.x, world.x), std::max(sided_max_.y, world.y),
                            std::max(sided_max_.z, world.z));
    const std::uint8_t sides = sides_beyond(world, keep_);
    make_room(part_.position_sides);
    if (part_.position_sides.size() % kElementLineStride == 0) {
      make_line_room(part_.position_lines);
      part_.position_lines.push_back(static_cast<std::uint32_t>(offset_of(line)));
    }
    part_.position_sides.push_back(sides);
  }

  bool read_normal(const char* line) {
    if (store_normals_) {
      ++part_.normals_read;
      make_room(part_.normals);
      return read_vector(part_.normals.emplace_back(), false);
    }
    add_normal_line(line);
    core::Vec3 checked;
    return read_vector(checked, false);
  }

  bool faces_found() const { return part_.face_begin != size_; }

  // Moves to the start of the next line whose statement begins with 'v' (blanks before it), or
  // the end: the lines skipped hold no "v" or "vn" statement. Runs at memchr's speed over face
  // lines, which hold no 'v'; the text is announced and released as it goes.
  void skip_to_statement_with_v() {
    while (p_ < end_) {
      release_behind(false);
      const char* window_end = p_ + std::min<std::size_t>(kAheadStep, end_ - p_);
      for (const char* p = p_; p < window_end; ++p) {
        p = static_cast<const char*>(std::memchr(p, 'v', static_cast<std::size_t>(window_end - p)));
        if (!p) break;
        const char* start = p;
        while (start > begin_ && is_blank(start[-1])) --start;
        if (start == begin_ || is_eol(start[-1])) {
          p_ = start;
          return;
        }
      }
      p_ = window_end;
    }
  }

  ObjPart& part_;
  bool store_normals_;
  bool end_at_faces_;
  const ObjWorldRect* rect_;  // null: positions stored
  bool identity_;             // rect_->to_world is the identity
  core::XzBox keep_{};        // rect_->rect
  // The sided positions' bounds so far (ObjPart::sided_min, sided_max once read).
  core::Vec3 sided_min_{std::numeric_limits<double>::infinity()};
  core::Vec3 sided_max_{-std::numeric_limits<double>::infinity()};
  std::size_t room_;  // elements of each kind reserved at once
  std::size_t size_;  // the chunk's bytes
  // Of the last line of each kind read_xyz read.
  obj_lean::VectorShape position_shape_, normal_shape_;
  obj_lean::LineShape checked_normal_shape_;  // "vn" lines checked, not stored
};

// One "v" or "vn" statement read again (parse_obj_elements checked it).
class ElementReader : LineReader {
 public:
  ElementReader(std::string_view text, std::size_t line) : LineReader(text, 0, nullptr, false) {
    p_ += line;
  }
  core::Vec3 read(bool position) {
    skip_blank();
    word();
    core::Vec3 element(0.0);
    read_vector(element, position);
    return element;
  }
};

// Pass 2 over one chunk, from its first face: faces with absolute, checked indices. Elements
// are counted (pass 1 read them) so that negative indices count back from the right place.
class FaceParser : LineReader {
 public:
  FaceParser(std::string_view text, std::size_t base, const ObjParts& all, std::size_t part,
             const ObjTriangleFilter& keep, const ObjSidesFilter* sides, const ObjTextPages* pages,
             bool lean)
      : LineReader(text, base, pages, lean),
        part_(part),
        positions_total_(all.position_count),
        positions_(all.position_offset[part] + all.parts[part].positions_before_faces),
        normals_(all.normal_offset[part] + all.parts[part].normals_before_faces),
        normals_digits_(obj_lean::decimal_digits(normals_)),
        elements_end_at_faces_(all.parts[part].elements_end_at_faces),
        keep_(keep),
        sides_(sides) {}

  bool run(std::vector<std::array<ObjCorner, 3>>& out) { return read(out) && finish(); }
  using LineReader::set_window;

  // The lines of the text (or of the window set): false where parse_obj would fail.
  bool read(std::vector<std::array<ObjCorner, 3>>& out) {
    while (p_ < end_) {
      if (lean_ && read_lean_face(out)) continue;
      skip_blank();
      const std::string_view keyword = word();
      if ((keyword == "v" || keyword == "vn") && elements_end_at_faces_)
        return false;  // pass 1 did not count it: the counts are wrong
      if (keyword == "v") {
        ++positions_;
      } else if (keyword == "vn") {
        normals_digits_ = obj_lean::decimal_digits(++normals_);
      } else if (keyword == "f" && !read_face(out)) {
        return false;
      }
      next_line();
      release_behind(false);
    }
    return true;
  }

  // After the last line read.
  bool finish() {
    release_behind(true);
    return true;
  }

  std::size_t triangles = 0;  // read, kept or not
  bool every_corner_has_normal = true;

 private:
  // A face line of obj_lean::read_face's form whose indices are in range; false (nothing read)
  // for any other line. The normals' indices are read only for a triangle kept.
  bool read_lean_face(std::vector<std::array<ObjCorner, 3>>& out) {
    if (static_cast<std::size_t>(end_ - p_) < obj_lean::kFaceRoom || p_[0] != 'f') return false;
    if (read_shaped_face(out)) return true;
    obj_lean::Face face;
    const char* next = obj_lean::read_face(p_ + 1, end_, face);
    if (!next) return false;
    shape_.learn(p_, next, face);
    bool all_normals = true;
    for (int k = 0; k < 3; ++k) {
      if (face.position[k] > positions_total_) return false;
      if (face.normal_digits[k] == 0)
        all_normals = false;
      else if (!face.normal_in_range(k, normals_, normals_digits_))
        return false;
    }
    every_corner_has_normal = every_corner_has_normal && all_normals;
    ++triangles;
    if (keeps(face.position[0] - 1, face.position[1] - 1, face.position[2] - 1)) {
      std::array<ObjCorner, 3>& tri = out.emplace_back();
      for (int k = 0; k < 3; ++k) {
        tri[k].position = face.position[k] - 1;
        if (face.normal_digits[k] != 0)
          tri[k].normal = static_cast<std::int32_t>(face.normal(k)) - 1;
      }
    }
    p_ = next;
    release_behind(false);
    return true;
  }

  // A face line of the last shape read_face read (obj_lean::FaceShape) whose indices are in
  // range, as read_lean_face reads it; false (nothing read) for any other line.
  bool read_shaped_face(std::vector<std::array<ObjCorner, 3>>& out) {
    std::uint32_t position[3];
    const char* next = shape_.read(p_, position);
    if (!next) return false;
    const bool normals = shape_.normals();
    const std::size_t limit = normals ? std::min(positions_total_, normals_) : positions_total_;
    if (std::max({position[0], position[1], position[2]}) > limit) return false;
    every_corner_has_normal = every_corner_has_normal && normals;
    ++triangles;
    if (keeps(position[0] - 1, position[1] - 1, position[2] - 1)) {
      std::array<ObjCorner, 3>& tri = out.emplace_back();
      for (int k = 0; k < 3; ++k) {
        tri[k].position = position[k] - 1;
        if (normals) tri[k].normal = static_cast<std::int32_t>(position[k]) - 1;
      }
    }
    p_ = next;
    release_behind(false);
    return true;
  }

  // Whether the triangle of 0-based positions a, b, c is kept (sides_ or keep_, else every one).
  bool keeps(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
    if (sides_) {
      // Several parts' threads may mark one position: relaxed stores of the same value. (The
      // arrays held in locals: a byte store may alias anything, sides_ included.)
      std::uint8_t* const used = sides_->used;
      const std::uint8_t* const beyond = sides_->beyond;
      std::atomic_ref<std::uint8_t>(used[a]).store(1, std::memory_order_relaxed);
      std::atomic_ref<std::uint8_t>(used[b]).store(1, std::memory_order_relaxed);
      std::atomic_ref<std::uint8_t>(used[c]).store(1, std::memory_order_relaxed);
      return (beyond[a] & beyond[b] & beyond[c]) == 0;
    }
    return !keep_ || keep_(part_, a, b, c);
  }

  bool read_position(ObjCorner& c) {
    bool negative = false;
    std::uint64_t value = 0;
    if (!read_signed(negative, value) || value == 0) return false;
    if (!negative) {  // may point ahead, within the file
      if (value > positions_total_) return false;
      c.position = static_cast<std::uint32_t>(value - 1);
      return true;
    }
    if (value > positions_) return false;
    c.position = static_cast<std::uint32_t>(positions_ - value);
    return true;
  }

  bool read_normal(ObjCorner& c) {
    bool negative = false;
    std::uint64_t value = 0;
    // Indices past 2^31 - 1 do not fit ObjCorner::normal: left to parse_obj.
    if (!read_signed(negative, value) || value == 0 || value > normals_ ||
        value >= static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
      return false;
    c.normal = static_cast<std::int32_t>(negative ? normals_ - value : value - 1);
    return true;
  }

  bool read_corner(ObjCorner& c) {
    if (!read_position(c)) return false;
    if (p_ < end_ && *p_ == '/') {
      ++p_;
      if (p_ < end_ && *p_ != '/') {  // texture coordinate: an integer, not kept
        bool negative = false;
        std::uint64_t ignored = 0;
        if (!read_signed(negative, ignored)) return false;
      }
      if (p_ < end_ && *p_ == '/') {
        ++p_;
        if (!read_normal(c)) return false;
      }
    }
    if (p_ < end_ && !ends_token(*p_)) return false;
    if (c.normal < 0) every_corner_has_normal = false;
    return true;
  }

  bool read_face(std::vector<std::array<ObjCorner, 3>>& out) {
    corners_.clear();
    for (;;) {
      skip_blank();
      if (at_end_of_statement()) break;
      if (!read_corner(corners_.emplace_back())) return false;
    }
    if (corners_.size() < 3) return false;
    for (std::size_t k = 1; k + 1 < corners_.size(); ++k) {
      ++triangles;
      const std::array<ObjCorner, 3> tri{corners_[0], corners_[k], corners_[k + 1]};
      if (keeps(tri[0].position, tri[1].position, tri[2].position)) out.push_back(tri);
    }
    return true;
  }

  std::size_t part_;
  std::size_t positions_total_;
  std::size_t positions_;  // positions before the line read (whole file)
  std::size_t normals_;    // normals before the line read (whole file)
  int normals_digits_;     // decimal digits of normals_
  bool elements_end_at_faces_;
  const ObjTriangleFilter& keep_;
  const ObjSidesFilter* sides_;
  std::vector<ObjCorner> corners_;
  obj_lean::FaceShape shape_;  // of the last face line read_face read
};

// The first line break at or after `at` in `text` (text.size() when there is none), found
// through `pages.copy` when there is one (the mapping's pages not touched), else in the text.
std::size_t next_line_break(std::string_view text, std::size_t at, const ObjTextPages& pages) {
  if (!pages.copy) {
    while (at < text.size() && !is_eol(text[at])) ++at;
    return at;
  }
  char window[512];
  while (at < text.size()) {
    const std::size_t bytes = std::min(sizeof window, text.size() - at);
    // A file that shrank: no boundary past here (the pass then fails on its copies).
    if (!pages.copy(at, window, bytes)) return text.size();
    for (std::size_t i = 0; i < bytes; ++i)
      if (is_eol(window[i])) return at + i;
    at += bytes;
  }
  return at;
}

// Chunk boundaries: about equal byte ranges, each ending just past a line break (or at the end).
std::vector<std::size_t> chunk_starts(std::string_view text, int chunks,
                                      const ObjTextPages& pages) {
  std::vector<std::size_t> starts{0};
  for (int k = 1; k < chunks; ++k) {
    std::size_t at = std::max(starts.back(), text.size() * static_cast<std::size_t>(k) / chunks);
    at = next_line_break(text, at, pages);
    if (at < text.size()) ++at;  // a CRLF cut after its CR leaves an empty line: harmless
    if (at >= text.size()) break;
    if (at > starts.back()) starts.push_back(at);
  }
  starts.push_back(text.size());
  return starts;
}

// The length of [p, p + size) up to and including its last '\n' (its last '\r' when it has no
// '\n'), 0 when it has no line break.
std::size_t through_last_line_end(const char* p, std::size_t size) {
  for (std::size_t n = size; n > 0; --n)
    if (p[n - 1] == '\n') return n;
  for (std::size_t n = size; n > 0; --n)
    if (p[n - 1] == '\r') return n;
  return 0;
}

// Hands `read` the text's bytes [begin, end) as copies (`pages.copy`) of about
// `pages.window_bytes` each, cut just past a line break (a longer line gets a larger copy), with
// each one's offset from `begin`, until `ended()`. One buffer, reused. False when a copy or
// `read` fails.
template <typename Read, typename Ended>
bool read_in_windows(const ObjTextPages& pages, std::size_t begin, std::size_t end, Read&& read,
                     Ended&& ended) {
  std::size_t capacity = std::min(std::max<std::size_t>(pages.window_bytes, 1), end - begin);
  std::unique_ptr<char[]> buffer(new char[capacity]);  // no zeroing: every byte read is copied
  for (std::size_t at = begin; at < end && !ended();) {
    const std::size_t bytes = std::min(capacity, end - at);
    if (!pages.copy(at, buffer.get(), bytes)) return false;
    const std::size_t length =
        at + bytes == end ? bytes : through_last_line_end(buffer.get(), bytes);
    if (length == 0) {  // a line longer than the buffer
      capacity *= 2;
      buffer.reset(new char[capacity]);
      continue;
    }
    if (!read(std::string_view(buffer.get(), length), at - begin)) return false;
    at += length;
  }
  return true;
}

// Whether the last statement of `tail` (a chunk's last bytes) is an element ("v" or "vn"):
// then the chunk holds elements after any face in it (another mesh begins), and pass 1 ending at
// its first face would only make pass 2 fail. False when the last line is longer than `tail`.
bool ends_with_element(std::string_view tail) {
  std::size_t end = tail.size();
  while (end > 0 && (is_eol(tail[end - 1]) || is_blank(tail[end - 1]))) --end;
  std::size_t start = end;
  while (start > 0 && !is_eol(tail[start - 1])) --start;
  if (start == 0) return false;  // the line may begin before `tail`
  while (start < end && is_blank(tail[start])) ++start;
  const std::string_view line = tail.substr(start, end - start);
  return line.size() > 2 && line[0] == 'v' &&
         (is_blank(line[1]) || (line[1] == 'n' && is_blank(line[2])));
}

// ends_with_element over the last bytes of chunk [begin, end) of `text` (copied through
// `pages.copy` when there is one).
bool chunk_ends_with_element(std::string_view text, std::size_t begin, std::size_t end,
                             const ObjTextPages& pages) {
  constexpr std::size_t kTailBytes = 256;
  const std::size_t bytes = std::min(kTailBytes, end - begin);
  if (!pages.copy) return ends_with_element(text.substr(end - bytes, bytes));
  char tail[kTailBytes];
  return pages.copy(end - bytes, tail, bytes) && ends_with_element({tail, bytes});
}

// Pass 1 over chunk [begin, end) of `text`, into `part`: from the text, or through copies of it;
// with `end_at_faces`, up to its first face unless it ends with an element.
bool read_chunk_elements(std::string_view text, std::size_t begin, std::size_t end, ObjPart& part,
                         const ObjTextPages& pages, bool store_normals, bool lean,
                         bool end_at_faces, const ObjWorldRect* rect) {
  end_at_faces = end_at_faces && !chunk_ends_with_element(text, begin, end, pages);
  part.elements_end_at_faces = end_at_faces;
  const std::string_view chunk = text.substr(begin, end - begin);
  if (!pages.copy)
    return ElementParser(chunk, begin, part, &pages, store_normals, lean, end_at_faces, rect).run();
  ElementParser parser(chunk, begin, part, nullptr, store_normals, lean, end_at_faces, rect);
  return read_in_windows(
             pages, begin, end,
             [&](std::string_view window, std::size_t offset) {
               parser.set_window(window, offset);
               return parser.read();
             },
             [&] { return parser.ended(); }) &&
         parser.finish();
}

// Where element `index` (0-based over the file) of the kind whose per-part firsts are `offsets`
// and kept lines `lines` is found: in the last part whose elements start at or before `index`
// (those before it that have none start at the same index).
ObjElementAnchor element_anchor(const ObjParts& parts, const std::vector<std::size_t>& offsets,
                                std::vector<std::uint32_t> ObjPart::*lines, std::size_t index) {
  const auto after = std::upper_bound(offsets.begin(), offsets.end(), index);
  const auto part = static_cast<std::size_t>(after - offsets.begin()) - 1;
  const std::size_t in_part = index - offsets[part];
  return {parts.part_begin[part] + (parts.parts[part].*lines)[in_part / kElementLineStride],
          in_part % kElementLineStride};
}

std::size_t element_line(std::string_view text, const ObjElementAnchor& anchor, bool position) {
  return step_statements([text](std::size_t at) { return text.substr(at); }, anchor.at,
                         anchor.steps, position);
}

// A "v" (`position`) or "vn" line read again as pass 1 read it: one of the lean form (most) by
// read_xyz (the line shapes give its bits), any other by the general reader.
core::Vec3 read_element_line(std::string_view line, bool position) {
  const char* at = line.data();
  const char* end = at + line.size();
  const std::ptrdiff_t keyword = position ? 1 : 2;
  double v[3];
  if (end - at > keyword && at[0] == 'v' && (position || at[1] == 'n') &&
      obj_lean::read_xyz(at + keyword, end, v))
    return core::Vec3(v[0], v[1], v[2]);
  return ElementReader(line, 0).read(position);
}

}  // namespace

// Chunks per thread of the first pass (each of at least min_chunk_bytes). Up to three threads
// claim them one at a time (the read begun beside the clip's and the pool's two), and the pass
// ends with its last chunk: at 8 per thread a 2 M-triangle level's chunks were 10 MB, 4-11 ms
// of parsing each, and the last one left a single thread working for about that long.
constexpr int kElementChunksPerThread = 32;

ObjElementChunks::ObjElementChunks(std::string_view text, int threads, const ObjTextPages& pages,
                                   std::size_t min_chunk_bytes, bool store_normals, bool lean,
                                   bool end_at_faces)
    : text_(text),
      pages_(pages),
      store_normals_(store_normals),
      lean_(lean),
      end_at_faces_(end_at_faces) {
  too_large_ = text.size() > std::numeric_limits<std::uint32_t>::max();
  const int blocks =
      too_large_ ? 1
                 : block_count(threads, static_cast<long long>(text.size()),
                               static_cast<long long>(std::max<std::size_t>(min_chunk_bytes, 1)),
                               kElementChunksPerThread);
  starts_ = chunk_starts(text, blocks, pages);
  const std::size_t chunks = starts_.size() - 1;
  out_.parts.resize(chunks);
  out_.part_begin.assign(starts_.begin(), starts_.end() - 1);
  ok_.assign(chunks, 0);
  errors_.resize(chunks);
  claimed_ = std::make_unique<std::atomic<bool>[]>(chunks);
}

void ObjElementChunks::set_world_rect(const ObjWorldRect& rect) {
  rect_ = rect;
  rect_set_.store(true, std::memory_order_release);
}

void ObjElementChunks::read_unclaimed(std::size_t max_chunks, bool from_back) {
  const std::size_t chunks = too_large_ ? 0 : ok_.size();
  for (std::size_t read = 0; read < max_chunks;) {
    const std::size_t n = (from_back ? next_from_back_ : next_).fetch_add(1);
    if (n >= chunks || stopped_.load()) return;
    const std::size_t k = from_back ? chunks - 1 - n : n;
    if (claimed_[k].exchange(true)) continue;  // claimed from the other end
    ++read;
    const ObjWorldRect* rect = rect_set_.load(std::memory_order_acquire) ? &rect_ : nullptr;
    try {
      ok_[k] = read_chunk_elements(text_, starts_[k], starts_[k + 1], out_.parts[k], pages_,
                                   store_normals_, lean_, end_at_faces_, rect);
    } catch (...) {
      errors_[k] = std::current_exception();
    }
  }
}

void ObjElementChunks::read_unclaimed_on(const core::ParallelRunner* runner) {
  on_every_thread(runner, static_cast<int>(count()), [this] { read_unclaimed(); });
}

std::optional<ObjParts> ObjElementChunks::result() {
  if (too_large_) return std::nullopt;
  for (const std::exception_ptr& error : errors_)
    if (error) std::rethrow_exception(error);
  for (std::size_t k = 0; k < ok_.size(); ++k) {
    if (!ok_[k]) return std::nullopt;
    out_.position_offset.push_back(out_.position_count);
    out_.normal_offset.push_back(out_.normal_count);
    out_.position_count += out_.parts[k].position_count();
    out_.normal_count += out_.parts[k].normals_read;
  }
  if (out_.position_count > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
  return std::move(out_);
}

std::optional<ObjParts> parse_obj_elements(std::string_view text,
                                           const core::ParallelRunner* runner,
                                           const ObjTextPages& pages, std::size_t min_chunk_bytes,
                                           bool store_normals, bool lean, bool end_at_faces) {
  ObjElementChunks chunks(text, runner ? runner->threads() : 1, pages, min_chunk_bytes,
                          store_normals, lean, end_at_faces);
  chunks.read_unclaimed_on(runner);
  return chunks.result();
}

bool parse_obj_faces(std::string_view text, ObjParts& parts, const ObjTriangleFilter& keep,
                     const core::ParallelRunner* runner, const ObjTextPages& pages, bool lean,
                     const ObjSidesFilter* sides) {
  const std::size_t chunks = parts.parts.size();
  std::vector<char> ok(chunks, 0);
  std::vector<std::size_t> triangles(chunks, 0);
  std::vector<char> all_normals(chunks, 1);
  for_each_block(runner, static_cast<int>(chunks), [&](int k) {
    const auto i = static_cast<std::size_t>(k);
    ObjPart& part = parts.parts[i];
    const std::size_t end = i + 1 < chunks ? parts.part_begin[i + 1] : text.size();
    const std::size_t begin = parts.part_begin[i] + part.face_begin;
    const std::string_view faces = text.substr(begin, end - begin);
    FaceParser parser(faces, begin, parts, i, keep, sides, pages.copy ? nullptr : &pages, lean);
    ok[i] = pages.copy ? read_in_windows(
                             pages, begin, end,
                             [&](std::string_view window, std::size_t offset) {
                               parser.set_window(window, offset);
                               return parser.read(part.triangles);
                             },
                             [] { return false; }) &&
                             parser.finish()
                       : parser.run(part.triangles);
    triangles[i] = parser.triangles;
    all_normals[i] = parser.every_corner_has_normal;
  });
  parts.triangle_count = 0;
  parts.every_corner_has_normal = true;
  for (std::size_t k = 0; k < chunks; ++k) {
    if (!ok[k]) return false;
    parts.triangle_count += triangles[k];
    parts.every_corner_has_normal = parts.every_corner_has_normal && all_normals[k];
  }
  return true;
}

std::optional<ObjParts> parse_obj_parts(std::string_view text, const core::ParallelRunner* runner,
                                        std::size_t min_chunk_bytes) {
  for (const bool end_at_faces : {true, false}) {
    std::optional<ObjParts> parts =
        parse_obj_elements(text, runner, {}, min_chunk_bytes, true, true, end_at_faces);
    if (!parts) return std::nullopt;
    if (parse_obj_faces(text, *parts, {}, runner)) return parts;
  }
  return std::nullopt;
}

bool obj_statement_is(std::string_view line, bool position) {
  return is_element_keyword(first_word(line.data(), line.data() + line.size()), position);
}

std::size_t obj_step_statements(std::string_view text, bool position, std::size_t& steps) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  const char* reached = begin;
  while (steps > 0) {
    const char* eol = find_eol(reached, end);
    if (eol == end) break;
    const char* line = eol + 1;
    const std::string_view word = first_word(line, end);
    if (word.data() + word.size() == end) break;  // the word may go on past the text held
    if (is_element_keyword(word, position)) --steps;
    reached = line;
  }
  return static_cast<std::size_t>(reached - begin);
}

std::size_t obj_line_bytes(std::string_view text) {
  const char* end = text.data() + text.size();
  const char* eol = find_eol(text.data(), end);
  return eol == end ? 0 : static_cast<std::size_t>(eol - text.data()) + 1;
}

ObjElementAnchor obj_normal_anchor(const ObjParts& parts, std::size_t index) {
  return element_anchor(parts, parts.normal_offset, &ObjPart::normal_lines, index);
}

ObjElementAnchor obj_position_anchor(const ObjParts& parts, std::size_t index) {
  return element_anchor(parts, parts.position_offset, &ObjPart::position_lines, index);
}

std::size_t obj_normal_line(std::string_view text, const ObjParts& parts, std::size_t index) {
  return element_line(text, obj_normal_anchor(parts, index), false);
}

core::Vec3 read_obj_normal_line(std::string_view line) { return read_element_line(line, false); }

std::size_t obj_position_line(std::string_view text, const ObjParts& parts, std::size_t index) {
  return element_line(text, obj_position_anchor(parts, index), true);
}

core::Vec3 read_obj_position_line(std::string_view line) { return read_element_line(line, true); }

core::Vec3 ObjElementLines::read(std::string_view line, bool position,
                                 obj_lean::VectorShape& shape) {
  const char* at = line.data();
  const char* end = at + line.size();
  double v[3];
  if (end - at >= obj_lean::VectorShape::kRoom && shape.read(at, v))
    return core::Vec3(v[0], v[1], v[2]);
  const int keyword = position ? 1 : 2;
  if (end - at > keyword && at[0] == 'v' && (position || at[1] == 'n')) {
    if (const char* next = obj_lean::read_xyz(at + keyword, end, v)) {
      shape.learn(at, static_cast<int>(next - at), keyword);
      return core::Vec3(v[0], v[1], v[2]);
    }
  }
  return read_element_line(line, position);
}

bool read_sided_positions_again(std::string_view text, ObjParts& parts, const ObjTextPages& pages,
                                const core::ParallelRunner* runner) {
  const std::size_t chunks = parts.parts.size();
  std::vector<char> ok(chunks, 1);
  for_each_block(runner, static_cast<int>(chunks), [&](int k) {
    const auto i = static_cast<std::size_t>(k);
    ObjPart& part = parts.parts[i];
    if (!part.sided) return;
    const std::size_t end = i + 1 < chunks ? parts.part_begin[i + 1] : text.size();
    ObjPart again;
    const bool store_normals = part.normal_lines.empty();
    ok[i] = read_chunk_elements(text, parts.part_begin[i], end, again, pages, store_normals,
                                /*lean=*/true, part.elements_end_at_faces, nullptr) &&
            again.positions.size() == part.position_sides.size();
    if (!ok[i]) return;
    part.positions = std::move(again.positions);
    part.sided = false;
    std::vector<std::uint32_t>().swap(part.position_lines);
    std::vector<std::uint8_t>().swap(part.position_sides);
  });
  return std::find(ok.begin(), ok.end(), 0) == ok.end();
}

core::Vec3 read_obj_normal(std::string_view text, const ObjParts& parts, std::size_t index) {
  return read_obj_normal_line(text.substr(obj_normal_line(text, parts, index)));
}

ObjParts as_parts(ObjGeometry geometry) {
  ObjParts out;
  out.position_count = geometry.positions.size();
  out.normal_count = geometry.normals.size();
  out.triangle_count = geometry.triangles.size();
  out.every_corner_has_normal = geometry.every_corner_has_normal;
  out.part_begin = {0};
  out.position_offset = {0};
  out.normal_offset = {0};
  ObjPart& part = out.parts.emplace_back();
  part.normals_read = geometry.normals.size();
  part.positions = std::move(geometry.positions);
  part.normals = std::move(geometry.normals);
  part.triangles = std::move(geometry.triangles);
  return out;
}

}  // namespace ikfix::io
