#include "io/obj_reader.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "io/decimal.hpp"
#include "io/error.hpp"

namespace ikfix::io {
namespace {

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }
inline bool is_eol(char c) { return c == '\n' || c == '\r'; }

class ObjParser {
 public:
  ObjParser(std::string_view text, const std::string& source)
      : p_(text.data()), end_(text.data() + text.size()), source_(source) {}

  ObjGeometry run() {
    while (p_ < end_) {
      skip_blank();
      const std::string_view keyword = word();
      if (keyword == "v") {
        geometry_.positions.push_back(read_vector(3, true));
      } else if (keyword == "vn") {
        geometry_.normals.push_back(read_vector(3, false));
      } else if (keyword == "f") {
        read_face();
      }
      // Anything else (comments included) is not geometry a terrain needs.
      next_line();
    }
    for (const auto& [value, line] : forward_)
      if (value > geometry_.positions.size()) {
        line_ = line;
        fail("face corner: vertex index " + std::to_string(value) + " is out of range (" +
             std::to_string(geometry_.positions.size()) + " vertices in the file)");
      }
    return std::move(geometry_);
  }

 private:
  [[noreturn]] void fail(const std::string& cause) const {
    throw InputError(source_, line_, cause);
  }

  void skip_blank() {
    while (p_ < end_ && is_blank(*p_)) ++p_;
  }
  bool at_end_of_statement() const { return p_ == end_ || is_eol(*p_) || *p_ == '#'; }
  std::string_view word() {
    const char* s = p_;
    while (p_ < end_ && !is_blank(*p_) && !is_eol(*p_) && *p_ != '#') ++p_;
    return {s, static_cast<std::size_t>(p_ - s)};
  }
  // Past the line break: LF, CRLF or a lone CR.
  void next_line() {
    while (p_ < end_ && !is_eol(*p_)) ++p_;
    if (p_ == end_) return;
    if (*p_ == '\r' && p_ + 1 < end_ && p_[1] == '\n') ++p_;
    ++p_;
    ++line_;
  }

  // `count` numbers; with `extra_allowed`, more may follow (a w or a vertex colour) and are
  // checked but not kept.
  core::Vec3 read_vector(int count, bool extra_allowed) {
    double v[3] = {0, 0, 0};
    int n = 0;
    for (;; ++n) {
      skip_blank();
      if (at_end_of_statement()) break;
      double value = 0;
      const char* start = p_;
      if (*p_ == '+') ++p_;
      const auto r = read_double(p_, end_, value);
      if (r.ec != std::errc() ||
          (r.ptr < end_ && !is_blank(*r.ptr) && !is_eol(*r.ptr) && *r.ptr != '#')) {
        p_ = start;
        fail("'" + std::string(word()) + "' is not a number");
      }
      if (!std::isfinite(value)) {
        p_ = start;
        fail("'" + std::string(word()) + "' is not a finite number");
      }
      p_ = r.ptr;
      if (n < count) v[n] = value;
    }
    if (n < count || (!extra_allowed && n > count))
      fail("expected " + std::to_string(count) + " numbers, found " + std::to_string(n));
    return {v[0], v[1], v[2]};
  }

  // A 1-based (or negative, relative) index into a list of `size` elements so far, as 0-based.
  // With `forward_ok`, a positive index may name an element defined later in the file (checked
  // once the whole file is read).
  std::uint32_t read_index(std::size_t size, const char* what, bool forward_ok = false) {
    const char* start = p_;
    bool negative = false;
    if (p_ < end_ && (*p_ == '-' || *p_ == '+')) negative = *p_++ == '-';
    std::uint64_t value = 0;
    const auto r = std::from_chars(p_, end_, value);
    if (r.ec != std::errc()) {
      p_ = start;
      fail(std::string("face corner '") + std::string(word()) + "': " + what +
           " index is not a number");
    }
    p_ = r.ptr;
    if (forward_ok && !negative && value > size &&
        value <= std::numeric_limits<std::uint32_t>::max()) {
      forward_.push_back({static_cast<std::uint32_t>(value), line_});
      return static_cast<std::uint32_t>(value - 1);
    }
    if (value == 0 || value > size)
      fail(std::string("face corner: ") + what + " index " + (negative ? "-" : "") +
           std::to_string(value) +
           (value == 0 ? " (indices start at 1)"
                       : " is out of range (" + std::to_string(size) + " defined so far)"));
    return static_cast<std::uint32_t>(negative ? size - value : value - 1);
  }

  void read_face() {
    corners_.clear();
    for (;;) {
      skip_blank();
      if (at_end_of_statement()) break;
      ObjCorner corner;
      corner.position = read_index(geometry_.positions.size(), "vertex", true);
      if (p_ < end_ && *p_ == '/') {
        ++p_;
        if (p_ < end_ && *p_ != '/') {
          // Texture coordinate: checked to be an integer, not kept (terrains need none).
          const char* start = p_;
          if (*p_ == '-' || *p_ == '+') ++p_;
          std::uint64_t ignored = 0;
          const auto r = std::from_chars(p_, end_, ignored);
          if (r.ec != std::errc()) {
            p_ = start;
            fail("face corner '" + std::string(word()) + "': texture index is not a number");
          }
          p_ = r.ptr;
        }
        if (p_ < end_ && *p_ == '/') {
          ++p_;
          corner.normal = static_cast<std::int32_t>(read_index(geometry_.normals.size(), "normal"));
        }
      }
      if (p_ < end_ && !is_blank(*p_) && !is_eol(*p_) && *p_ != '#')
        fail("face corner has unexpected '" + std::string(1, *p_) + "'");
      if (corner.normal < 0) geometry_.every_corner_has_normal = false;
      corners_.push_back(corner);
    }
    if (corners_.size() < 3)
      fail("face has " + std::to_string(corners_.size()) + " corners; at least 3 needed");
    for (std::size_t k = 1; k + 1 < corners_.size(); ++k)
      geometry_.triangles.push_back({corners_[0], corners_[k], corners_[k + 1]});
  }

  const char* p_;
  const char* end_;
  const std::string& source_;
  int line_ = 1;
  ObjGeometry geometry_;
  std::vector<ObjCorner> corners_;
  struct ForwardReference {
    std::uint32_t value;  // 1-based vertex index beyond those defined when it was read
    int line;
  };
  std::vector<ForwardReference> forward_;
};

}  // namespace

ObjGeometry parse_obj(std::string_view text, const std::string& source_name) {
  if (text.size() > std::numeric_limits<std::uint32_t>::max())
    throw InputError(source_name, "file is 4 GiB or larger; not supported");
  return ObjParser(text, source_name).run();
}

}  // namespace ikfix::io
