#include "io/obj_parts.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

#include "core/parallel.hpp"
#include "io/decimal.hpp"
#include "io/parallel_blocks.hpp"

namespace ikfix::io {
namespace {

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }
inline bool is_eol(char c) { return c == '\n' || c == '\r'; }
inline bool ends_token(char c) { return is_blank(c) || is_eol(c) || c == '#'; }

// A corner index whose element count is only known once every chunk before it is read: a
// negative (relative) index, stored as `local_count - value` and moved by the chunk's offset.
struct RelativeIndex {
  std::size_t triangle;
  int corner;             // 0, 1, 2
  bool normal;            // the normal index (else the position index)
  std::int64_t relative;  // index counted from this chunk's first element (may be negative)
};

// Reads one chunk with parse_obj's grammar (obj_reader.hpp); any statement parse_obj would
// reject makes run() return false. Range checks that need the other chunks' counts are kept
// as bounds and checked by the caller.
class ChunkParser {
 public:
  ChunkParser(std::string_view text, ObjPart& part)
      : p_(text.data()), end_(p_ + text.size()), part_(part) {}

  bool run() {
    while (p_ < end_) {
      skip_blank();
      const std::string_view keyword = word();
      bool ok = true;
      if (keyword == "v") {
        ok = read_vector(part_.positions, true);
      } else if (keyword == "vn") {
        ok = read_vector(part_.normals, false);
      } else if (keyword == "f") {
        ok = read_face();
      }
      if (!ok) return false;
      next_line();
    }
    return true;
  }

  std::vector<RelativeIndex> relative;
  std::uint64_t max_position = 0;  // largest positive (1-based) position index
  // Smallest `local_count - value` of a negative index: >= -offset for it to be in range.
  std::int64_t min_relative_position = 0;
  std::int64_t min_relative_normal = 0;
  // Largest `value - local_count` of a positive normal index: <= offset for it to be in range.
  std::int64_t max_normal_excess = std::numeric_limits<std::int64_t>::min();
  bool every_corner_has_normal = true;

 private:
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
    while (p_ < end_ && !is_eol(*p_)) ++p_;
    if (p_ == end_) return;
    if (*p_ == '\r' && p_ + 1 < end_ && p_[1] == '\n') ++p_;
    ++p_;
  }

  bool read_vector(std::vector<core::Vec3>& out, bool extra_allowed) {
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
    out.emplace_back(v[0], v[1], v[2]);
    return true;
  }

  // A signed integer; false when there is none.
  bool read_signed(bool& negative, std::uint64_t& value) {
    negative = false;
    if (p_ < end_ && (*p_ == '-' || *p_ == '+')) negative = *p_++ == '-';
    const auto r = std::from_chars(p_, end_, value);
    if (r.ec != std::errc()) return false;
    p_ = r.ptr;
    return true;
  }

  struct Corner {
    ObjCorner corner;
    bool position_relative = false, normal_relative = false;
    std::int64_t position_rel = 0, normal_rel = 0;
  };

  bool read_position(Corner& c) {
    bool negative = false;
    std::uint64_t value = 0;
    if (!read_signed(negative, value) || value == 0) return false;
    if (!negative) {
      if (value > std::numeric_limits<std::uint32_t>::max()) return false;
      max_position = std::max(max_position, value);
      c.corner.position = static_cast<std::uint32_t>(value - 1);
      return true;
    }
    if (value > std::numeric_limits<std::uint32_t>::max()) return false;
    c.position_relative = true;
    c.position_rel =
        static_cast<std::int64_t>(part_.positions.size()) - static_cast<std::int64_t>(value);
    min_relative_position = std::min(min_relative_position, c.position_rel);
    return true;
  }

  bool read_normal(Corner& c) {
    bool negative = false;
    std::uint64_t value = 0;
    // Indices past 2^31 - 1 do not fit ObjCorner::normal: left to parse_obj.
    if (!read_signed(negative, value) || value == 0 ||
        value >= static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
      return false;
    const auto local = static_cast<std::int64_t>(part_.normals.size());
    const auto signed_value = static_cast<std::int64_t>(value);
    if (!negative) {
      max_normal_excess = std::max(max_normal_excess, signed_value - local);
      c.corner.normal = static_cast<std::int32_t>(value - 1);
      return true;
    }
    c.normal_relative = true;
    c.normal_rel = local - signed_value;
    min_relative_normal = std::min(min_relative_normal, c.normal_rel);
    return true;
  }

  bool read_corner(Corner& c) {
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
    if (c.corner.normal < 0 && !c.normal_relative) every_corner_has_normal = false;
    return true;
  }

  void add_triangle(const Corner& a, const Corner& b, const Corner& c) {
    const std::size_t t = part_.triangles.size();
    part_.triangles.push_back({a.corner, b.corner, c.corner});
    const Corner* corners[3] = {&a, &b, &c};
    for (int k = 0; k < 3; ++k) {
      if (corners[k]->position_relative)
        relative.push_back({t, k, false, corners[k]->position_rel});
      if (corners[k]->normal_relative) relative.push_back({t, k, true, corners[k]->normal_rel});
    }
  }

  bool read_face() {
    corners_.clear();
    for (;;) {
      skip_blank();
      if (at_end_of_statement()) break;
      Corner& c = corners_.emplace_back();
      if (!read_corner(c)) return false;
    }
    if (corners_.size() < 3) return false;
    for (std::size_t k = 1; k + 1 < corners_.size(); ++k)
      add_triangle(corners_[0], corners_[k], corners_[k + 1]);
    return true;
  }

  const char* p_;
  const char* end_;
  ObjPart& part_;
  std::vector<Corner> corners_;
};

// Chunk boundaries: about equal byte ranges, each ending just past a line break (or at the end).
std::vector<std::size_t> chunk_starts(std::string_view text, int chunks) {
  std::vector<std::size_t> starts{0};
  for (int k = 1; k < chunks; ++k) {
    std::size_t at = std::max(starts.back(), text.size() * static_cast<std::size_t>(k) / chunks);
    while (at < text.size() && !is_eol(text[at])) ++at;
    if (at < text.size()) ++at;  // a CRLF cut after its CR leaves an empty line: harmless
    if (at >= text.size()) break;
    if (at > starts.back()) starts.push_back(at);
  }
  starts.push_back(text.size());
  return starts;
}

struct ChunkResult {
  bool ok = false;
  std::vector<RelativeIndex> relative;
  std::uint64_t max_position = 0;
  std::int64_t min_relative_position = 0, min_relative_normal = 0;
  std::int64_t max_normal_excess = std::numeric_limits<std::int64_t>::min();
  bool every_corner_has_normal = true;
};

// Offsets, range checks across chunks and the relative indices made absolute; false when an
// index is out of range.
bool link_parts(ObjParts& out, std::vector<ChunkResult>& results) {
  std::uint64_t max_position = 0;
  for (std::size_t k = 0; k < out.parts.size(); ++k) {
    const ChunkResult& r = results[k];
    out.position_offset.push_back(out.position_count);
    out.normal_offset.push_back(out.normal_count);
    const auto positions_before = static_cast<std::int64_t>(out.position_count);
    const auto normals_before = static_cast<std::int64_t>(out.normal_count);
    if (r.min_relative_position < -positions_before || r.min_relative_normal < -normals_before ||
        r.max_normal_excess > normals_before)
      return false;
    max_position = std::max(max_position, r.max_position);
    out.position_count += out.parts[k].positions.size();
    out.normal_count += out.parts[k].normals.size();
    out.triangle_count += out.parts[k].triangles.size();
    out.every_corner_has_normal = out.every_corner_has_normal && r.every_corner_has_normal;
    for (const RelativeIndex& rel : r.relative) {
      ObjCorner& corner =
          out.parts[k].triangles[rel.triangle][static_cast<std::size_t>(rel.corner)];
      if (rel.normal)
        corner.normal = static_cast<std::int32_t>(normals_before + rel.relative);
      else
        corner.position = static_cast<std::uint32_t>(positions_before + rel.relative);
    }
  }
  return max_position <= out.position_count &&
         out.position_count <= std::numeric_limits<std::uint32_t>::max();
}

}  // namespace

std::optional<ObjParts> parse_obj_parts(std::string_view text, const core::ParallelRunner* runner,
                                        std::size_t min_chunk_bytes) {
  if (text.size() > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
  const int blocks = block_count(runner, static_cast<long long>(text.size()),
                                 static_cast<long long>(std::max<std::size_t>(min_chunk_bytes, 1)));
  const std::vector<std::size_t> starts = chunk_starts(text, blocks);
  const int chunks = static_cast<int>(starts.size()) - 1;
  ObjParts out;
  out.parts.resize(static_cast<std::size_t>(chunks));
  std::vector<ChunkResult> results(static_cast<std::size_t>(chunks));
  for_each_block(runner, chunks, [&](int k) {
    const auto i = static_cast<std::size_t>(k);
    ChunkParser parser(text.substr(starts[i], starts[i + 1] - starts[i]), out.parts[i]);
    ChunkResult& r = results[i];
    r.ok = parser.run();
    r.relative = std::move(parser.relative);
    r.max_position = parser.max_position;
    r.min_relative_position = parser.min_relative_position;
    r.min_relative_normal = parser.min_relative_normal;
    r.max_normal_excess = parser.max_normal_excess;
    r.every_corner_has_normal = parser.every_corner_has_normal;
  });
  for (const ChunkResult& r : results)
    if (!r.ok) return std::nullopt;
  if (!link_parts(out, results)) return std::nullopt;
  return out;
}

ObjParts as_parts(ObjGeometry geometry) {
  ObjParts out;
  out.position_count = geometry.positions.size();
  out.normal_count = geometry.normals.size();
  out.triangle_count = geometry.triangles.size();
  out.every_corner_has_normal = geometry.every_corner_has_normal;
  out.position_offset = {0};
  out.normal_offset = {0};
  ObjPart& part = out.parts.emplace_back();
  part.positions = std::move(geometry.positions);
  part.normals = std::move(geometry.normals);
  part.triangles = std::move(geometry.triangles);
  return out;
}

}  // namespace ikfix::io
