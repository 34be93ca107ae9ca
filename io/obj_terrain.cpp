#include "io/obj_terrain.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <glm/gtc/matrix_inverse.hpp>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <utility>
#include <vector>

#include "core/unwritten_resize.hpp"
#include "io/error.hpp"
#include "io/parallel_blocks.hpp"

namespace ikfix::io {
namespace {

using core::Vec3;

// Slots of an open-addressing table for `expected` entries: a power of two at least twice that
// (at most half full), 16 at least.
std::size_t table_capacity(std::size_t expected) {
  std::size_t capacity = 16;
  while (capacity < 2 * expected) capacity *= 2;
  return capacity;
}

void reserve_vertices(core::TerrainMesh& mesh, bool normals, std::size_t vertices) {
  mesh.vertices.reserve(vertices);
  if (normals) mesh.vertex_normals.reserve(vertices);
}

// Output vertices by the bits of their position and normal (open addressing, linear probing;
// the keys are the mesh's own arrays, so a slot holds only a vertex index).
class VertexIndex {
 public:
  // Reserves the mesh's vertices (and normals) and the table for `expected` vertices.
  VertexIndex(core::TerrainMesh& mesh, bool normals, std::size_t expected)
      : mesh_(mesh), normals_(normals) {
    reserve_vertices(mesh, normals, expected);
    resize_table(expected);
  }

  std::uint32_t find_or_add(const Vec3& position, const Vec3& normal) {
    std::size_t slot = 0;
    if (const std::uint32_t v = probe(position, normal, slot); v != kEmpty) return v;
    if (mesh_.vertices.size() >= std::numeric_limits<std::uint32_t>::max() - 1)
      throw std::length_error("too many vertices");
    const auto v = static_cast<std::uint32_t>(mesh_.vertices.size());
    mesh_.vertices.push_back(position);
    if (normals_) mesh_.vertex_normals.push_back(normal);
    slots_[slot] = v;
    if (2 * mesh_.vertices.size() > slots_.size()) rehash();
    return v;
  }
  // The vertex find_or_add gave these bits (it must have been given them). Thread-safe once
  // no thread adds.
  std::uint32_t find(const Vec3& position, const Vec3& normal) const {
    std::size_t slot = 0;
    return probe(position, normal, slot);
  }

 private:
  static constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();

  // The vertex of these bits, else kEmpty with `slot` the free slot where they go.
  std::uint32_t probe(const Vec3& position, const Vec3& normal, std::size_t& slot) const {
    for (slot = hash(position, normal) & mask_;; slot = (slot + 1) & mask_) {
      const std::uint32_t v = slots_[slot];
      if (v == kEmpty || same(v, position, normal)) return v;
    }
  }

  // Each component's bits times its own odd constant (nearby coordinates differ only in low
  // bits, which the products carry up), summed, then splitmix64's finaliser once: the six
  // products do not wait on each other, where a finaliser per component made one chain of
  // twelve multiplies. Only where a vertex is looked for depends on it, not which it is.
  static std::size_t hash(const Vec3& position, const Vec3& normal) {
    constexpr std::uint64_t kOdd[6] = {0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full,
                                       0x165667b19e3779f9ull, 0xd6e8feb86659fd93ull,
                                       0xff51afd7ed558ccdull, 0xc4ceb9fe1a85ec53ull};
    const double key[6] = {position.x, position.y, position.z, normal.x, normal.y, normal.z};
    std::uint64_t h = 0;
    for (int k = 0; k < 6; ++k) {
      std::uint64_t bits;
      std::memcpy(&bits, &key[k], sizeof bits);
      h += bits * kOdd[k];
    }
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return static_cast<std::size_t>(h ^ (h >> 31));
  }
  bool same(std::uint32_t v, const Vec3& position, const Vec3& normal) const {
    return std::memcmp(&mesh_.vertices[v], &position, sizeof position) == 0 &&
           (!normals_ || std::memcmp(&mesh_.vertex_normals[v], &normal, sizeof normal) == 0);
  }
  void resize_table(std::size_t expected) {
    slots_.assign(table_capacity(expected), kEmpty);
    mask_ = slots_.size() - 1;
  }
  void rehash() {
    resize_table(mesh_.vertices.size() * 2);
    const Vec3 none(0.0);
    for (std::uint32_t v = 0; v < mesh_.vertices.size(); ++v) {
      std::size_t slot = hash(mesh_.vertices[v], normals_ ? mesh_.vertex_normals[v] : none) & mask_;
      while (slots_[slot] != kEmpty) slot = (slot + 1) & mask_;
      slots_[slot] = v;
    }
  }

  core::TerrainMesh& mesh_;
  bool normals_;
  std::vector<std::uint32_t> slots_;
  std::size_t mask_ = 0;
};

// One of the file's element lists (positions or normals) where the parts left them: element
// i of the whole file is found through the parts' offsets (no copy into one array).
class PartedElements {
 public:
  PartedElements() = default;
  PartedElements(ObjParts& obj, std::vector<Vec3> ObjPart::*member,
                 const std::vector<std::size_t>& offsets, std::size_t count) {
    for (std::size_t k = 0; k < obj.parts.size(); ++k) {
      data_.push_back((obj.parts[k].*member).data());
      begin_.push_back(offsets[k]);
      end_.push_back(offsets[k] + (obj.parts[k].*member).size());
    }
    // first_part_[b]: the first part ending after element b << shift_ (parts in file order).
    while ((count >> shift_) > kLookupEntries) ++shift_;
    first_part_.resize((count >> shift_) + 1);
    std::size_t part = 0;
    for (std::size_t b = 0; b < first_part_.size(); ++b) {
      while (part + 1 < end_.size() && end_[part] <= (b << shift_)) ++part;
      first_part_[b] = static_cast<std::uint32_t>(part);
    }
  }

  const Vec3& operator[](std::size_t i) const {
    std::size_t part = first_part_[i >> shift_];
    while (i >= end_[part]) ++part;
    return data_[part][i - begin_[part]];
  }

 private:
  static constexpr std::size_t kLookupEntries = 4096;
  std::vector<Vec3*> data_;
  std::vector<std::size_t> begin_, end_;
  std::vector<std::uint32_t> first_part_;
  int shift_ = 0;
};

// Bounds of positions (of the triangles' corners: per part, written by that part's thread only).
struct UsedBounds {
  Vec3 min{std::numeric_limits<double>::infinity()};
  Vec3 max{-std::numeric_limits<double>::infinity()};
};

// Positions in world metres and normals in file units, over the whole file.
struct FileElements {
  PartedElements positions_ws;
  PartedElements normals;  // when the parts hold them
  // Else the text and parts to read normals from (read_obj_normal).
  std::string_view text;
  const ObjParts* unstored_normals = nullptr;
  const ObjTextPages* pages = nullptr;  // what the text is copied through, if anything
  std::size_t first_bad = std::numeric_limits<std::size_t>::max();  // first non-finite position
  // Read with a rectangle to keep: per position, the rectangle's sides it lies beyond
  // (sides_beyond), and 1 once a triangle uses it (set from any part's thread).
  core::UnwrittenResizeVector<std::uint8_t> beyond;
  std::vector<std::uint8_t> used;
  // Read with a rectangle: the bounds of every position, or nothing when a coordinate of one
  // is -0 (see used_position_bounds).
  std::optional<UsedBounds> every_position;

  Vec3 normal(std::size_t i) const {
    return unstored_normals ? read_obj_normal(text, *unstored_normals, i) : normals[i];
  }
};

// Positions [0, count) under the identity, in place, each one's sides_beyond `keep` and their
// bounds added to `b`, up to the first position that is not finite: returns its index (count
// when there is none). The same bits as positions_to_world's general loop, with the bounds in
// six doubles (glm::min and glm::max: (y < x) ? y : x, as std::min and std::max).
std::size_t identity_to_world(Vec3* positions, std::size_t count, std::uint8_t* beyond,
                              const core::XzBox& keep, UsedBounds& b) {
  double lo_x = b.min.x, lo_y = b.min.y, lo_z = b.min.z;
  double hi_x = b.max.x, hi_y = b.max.y, hi_z = b.max.z;
  std::size_t i = 0;
  for (; i < count; ++i) {
    Vec3& p = positions[i];
    if (!core::is_finite(p)) break;
    const double x = p.x + 0.0, y = p.y + 0.0, z = p.z + 0.0;
    p = Vec3(x, y, z);
    beyond[i] = static_cast<std::uint8_t>(
        static_cast<unsigned>(x < keep.min_x) | static_cast<unsigned>(x > keep.max_x) << 1 |
        static_cast<unsigned>(z < keep.min_z) << 2 | static_cast<unsigned>(z > keep.max_z) << 3);
    lo_x = std::min(lo_x, x), lo_y = std::min(lo_y, y), lo_z = std::min(lo_z, z);
    hi_x = std::max(hi_x, x), hi_y = std::max(hi_y, y), hi_z = std::max(hi_z, z);
  }
  b.min = Vec3(lo_x, lo_y, lo_z);
  b.max = Vec3(hi_x, hi_y, hi_z);
  return i;
}

// A sided part's sides into `beyond` (its positions' in the whole file's) and its bounds into
// `b`; its sides are then freed.
void take_sides(ObjPart& part, std::uint8_t* beyond, UsedBounds& b) {
  if (!beyond || part.sided_irregular)
    throw std::logic_error("a sided OBJ part read without its rectangle or irregular");
  if (!part.position_sides.empty())  // a part of no positions has no array to copy from
    std::memcpy(beyond, part.position_sides.data(), part.position_sides.size());
  std::vector<std::uint8_t>().swap(part.position_sides);
  b.min = part.sided_min;
  b.max = part.sided_max;
}

// The parts' positions to world metres, in place; with `rect`, each one's sides_beyond it (in
// flat.beyond, over the whole file), flat.used cleared and flat.every_position set. A sided
// part (ObjPart::sided, read with `rect`: it must be, and not sided_irregular) gives its sides
// and bounds as read and keeps no positions.
void positions_to_world(ObjParts& obj, const glm::dmat4& to_world, FileElements& flat,
                        const core::ParallelRunner* runner, const core::XzBox* rect = nullptr) {
  std::vector<std::size_t> first_bad(obj.parts.size(), flat.first_bad);
  if (rect) {
    core::resize_unwritten(flat.beyond, obj.position_count);
    flat.used.assign(obj.position_count, 0);
  }
  // The identity (metres, Y up: the common case) gives each finite coordinate plus zeros
  // (glm sums x * 1 + y * 0 + z * 0 + 1 * 0), which only turns -0 into +0: the same bits
  // without the product. One pass per part, through local pointers (the sides are bytes, which
  // may alias anything: written through the vectors, every size would be loaded again).
  const bool identity = to_world == glm::dmat4(1.0);
  const core::XzBox keep = rect ? *rect : core::XzBox{};
  std::vector<UsedBounds> bounds(obj.parts.size());
  std::vector<char> negative_zero(obj.parts.size(), 0);
  for_each_block(runner, static_cast<int>(obj.parts.size()), [&](int k) {
    const auto part = static_cast<std::size_t>(k);
    const std::size_t first = obj.position_offset[part];
    Vec3* const positions = obj.parts[part].positions.data();
    const std::size_t count = obj.parts[part].positions.size();
    std::uint8_t* const beyond = rect ? flat.beyond.data() + first : nullptr;
    if (obj.parts[part].sided) return take_sides(obj.parts[part], beyond, bounds[part]);
    std::size_t bad = first_bad[part];
    UsedBounds b;
    bool zero = false;  // a -0 coordinate (none from x + 0.0)
    std::size_t i = 0;
    if (identity && beyond) i = identity_to_world(positions, count, beyond, keep, b);
    for (; i < count; ++i) {
      Vec3 out = positions[i];
      if (identity && core::is_finite(out)) {
        out = Vec3(out.x + 0.0, out.y + 0.0, out.z + 0.0);
      } else {
        out = Vec3(to_world * glm::dvec4(out, 1.0));
        if (!core::is_finite(out) && bad > first + i) bad = first + i;
        zero = zero || has_negative_zero(out);
      }
      positions[i] = out;
      if (beyond) {
        beyond[i] = sides_beyond(out, keep);
        b.min = glm::min(b.min, out);
        b.max = glm::max(b.max, out);
      }
    }
    first_bad[part] = bad;
    bounds[part] = b;
    negative_zero[part] = zero;
  });
  for (const std::size_t bad : first_bad) flat.first_bad = std::min(flat.first_bad, bad);
  if (rect && std::find(negative_zero.begin(), negative_zero.end(), 1) == negative_zero.end()) {
    UsedBounds all;
    for (const UsedBounds& b : bounds) {
      all.min = glm::min(all.min, b.min);
      all.max = glm::max(all.max, b.max);
    }
    flat.every_position = all;
  }
  flat.positions_ws =
      PartedElements(obj, &ObjPart::positions, obj.position_offset, obj.position_count);
}

// The parts' normals (file units), where they are: in the parts, or in `text` when the parts
// were read without storing them.
void find_normals(ObjParts& obj, FileElements& flat, std::string_view text = {},
                  const ObjTextPages* pages = nullptr) {
  const bool unstored = std::any_of(obj.parts.begin(), obj.parts.end(),
                                    [](const ObjPart& part) { return !part.normal_lines.empty(); });
  if (unstored) {
    flat.text = text;
    flat.unstored_normals = &obj;
    flat.pages = pages;
    return;
  }
  flat.normals = PartedElements(obj, &ObjPart::normals, obj.normal_offset, obj.normal_count);
}

// The bounds of the positions flat.used marks, as crop_filter's per-part bounds combined in
// file order give them, or nothing when a coordinate of one of them is -0 (the minimum of +0
// and -0 depends on which comes first, and this goes through them in position order, not in
// the triangles' order).
std::optional<UsedBounds> used_position_bounds(const ObjParts& obj, const FileElements& flat,
                                               const core::ParallelRunner* runner) {
  std::vector<UsedBounds> bounds(obj.parts.size());
  std::vector<char> negative_zero(obj.parts.size(), 0);
  for_each_block(runner, static_cast<int>(obj.parts.size()), [&](int k) {
    const auto part = static_cast<std::size_t>(k);
    const std::size_t first = obj.position_offset[part];
    const std::vector<Vec3>& positions = obj.parts[part].positions;
    UsedBounds& b = bounds[part];
    for (std::size_t i = 0; i < positions.size(); ++i) {
      if (flat.used[first + i] == 0) continue;
      const Vec3& p = positions[i];
      b.min = glm::min(b.min, p);
      b.max = glm::max(b.max, p);
      for (int c = 0; c < 3; ++c)
        if (p[c] == 0.0 && std::signbit(p[c])) negative_zero[part] = 1;
    }
  });
  UsedBounds all;
  for (std::size_t k = 0; k < bounds.size(); ++k) {
    if (negative_zero[k]) return std::nullopt;
    all.min = glm::min(all.min, bounds[k].min);
    all.max = glm::max(all.max, bounds[k].max);
  }
  return all;
}

// The positions of the sided parts (ObjPart::sided) read again from the text and moved to world
// metres (what positions_to_world made of them), flat.positions_ws then over every part. False
// when the text can no longer be read as it was.
bool sided_positions_to_world(std::string_view text, ObjParts& obj, FileElements& flat,
                              const glm::dmat4& to_world, const core::ParallelRunner* runner,
                              const ObjTextPages& pages) {
  std::vector<char> sided(obj.parts.size());
  for (std::size_t k = 0; k < obj.parts.size(); ++k) sided[k] = obj.parts[k].sided;
  if (std::find(sided.begin(), sided.end(), 1) == sided.end()) return true;
  if (!read_sided_positions_again(text, obj, pages, runner)) return false;
  const bool identity = to_world == glm::dmat4(1.0);
  for_each_block(runner, static_cast<int>(obj.parts.size()), [&](int k) {
    if (sided[static_cast<std::size_t>(k)])
      for (Vec3& p : obj.parts[static_cast<std::size_t>(k)].positions)
        p = obj_position_to_world(p, to_world, identity);
  });
  flat.positions_ws =
      PartedElements(obj, &ObjPart::positions, obj.position_offset, obj.position_count);
  return true;
}

// Keeps the triangles whose horizontal box touches `rect` (the test of crop_terrain_mesh, on
// the same world positions) and notes every triangle's corners in its part's bounds.
ObjTriangleFilter crop_filter(const FileElements& flat, const core::XzBox& rect,
                              std::vector<UsedBounds>& used) {
  return
      [&flat, rect, &used](std::size_t part, std::uint32_t ia, std::uint32_t ib, std::uint32_t ic) {
        const Vec3& a = flat.positions_ws[ia];
        const Vec3& b = flat.positions_ws[ib];
        const Vec3& c = flat.positions_ws[ic];
        UsedBounds& u = used[part];
        u.min = glm::min(glm::min(glm::min(u.min, a), b), c);
        u.max = glm::max(glm::max(glm::max(u.max, a), b), c);
        return !(std::max({a.x, b.x, c.x}) < rect.min_x || std::min({a.x, b.x, c.x}) > rect.max_x ||
                 std::max({a.z, b.z, c.z}) < rect.min_z || std::min({a.z, b.z, c.z}) > rect.max_z);
      };
}

// Pass 2 keeping the triangles whose horizontal box touches `rect` (flat.beyond made for it:
// the test of crop_terrain_mesh on the same world positions, by sides, ObjSidesFilter), with
// `bounds` those of every triangle's corners, as crop_filter's per-part bounds combined in
// file order give them: from the positions the triangles use, or, when those hold a -0, from
// the faces read again through crop_filter. False when a face is one parse_obj would reject.
bool read_cropped_faces(std::string_view text, ObjParts& parts, FileElements& flat,
                        const ObjWorldRect& world, UsedBounds& bounds,
                        const core::ParallelRunner* runner, const ObjTextPages& pages) {
  const core::XzBox& rect = world.rect;
  const ObjSidesFilter sides{flat.beyond.data(), flat.used.data()};
  if (!parse_obj_faces(text, parts, {}, runner, pages, true, &sides)) return false;
  if (flat.every_position &&
      (flat.used.empty() || std::memchr(flat.used.data(), 0, flat.used.size()) == nullptr)) {
    bounds = *flat.every_position;  // every position used (the common case)
    return true;
  }
  // The bounds of the positions used: the sided parts' positions are needed after all.
  if (!sided_positions_to_world(text, parts, flat, world.to_world, runner, pages)) return false;
  if (const std::optional<UsedBounds> used = used_position_bounds(parts, flat, runner)) {
    bounds = *used;
    return true;
  }
  for (ObjPart& part : parts.parts) part.triangles.clear();
  std::vector<UsedBounds> per_part(parts.parts.size());
  if (!parse_obj_faces(text, parts, crop_filter(flat, rect, per_part), runner, pages)) return false;
  bounds = UsedBounds{};
  for (const UsedBounds& u : per_part) {
    bounds.min = glm::min(bounds.min, u.min);
    bounds.max = glm::max(bounds.max, u.max);
  }
  return true;
}

// A dense slot per index marked (file positions or normals the parts' kept triangles use), in
// index order: a bit per index and, per 64 of them, how many marked indices come before (a
// crop's few thousand then need arrays of their own count, not of the whole file's).
class UsedSlots {
 public:
  explicit UsedSlots(std::size_t indices) : bits_(indices / 64 + 1, 0) {}
  // Marks `index` from any of several threads marking at once.
  void mark_shared(std::uint32_t index) {
    std::atomic_ref<std::uint64_t>(bits_[index / 64])
        .fetch_or(std::uint64_t{1} << (index % 64), std::memory_order_relaxed);
  }
  // Counts the marked indices: call after the last mark, before slot.
  void number() {
    before_.resize(bits_.size());
    std::uint32_t count = 0;
    for (std::size_t w = 0; w < bits_.size(); ++w) {
      before_[w] = count;
      count += static_cast<std::uint32_t>(std::popcount(bits_[w]));
    }
    count_ = count;
  }
  std::size_t count() const { return count_; }
  std::size_t words() const { return bits_.size(); }
  // The first word of `blocks` that each hold about as many marked indices (for blocks on
  // threads: a crop's indices lie in a small part of the file's range), and words() last.
  std::vector<std::size_t> balanced_words(int blocks) const {
    std::vector<std::size_t> first{0};
    for (int k = 1; k < blocks; ++k) {
      const std::size_t slot =
          count_ * static_cast<std::size_t>(k) / static_cast<std::size_t>(blocks);
      first.push_back(static_cast<std::size_t>(
          std::lower_bound(before_.begin(), before_.end(), slot) - before_.begin()));
    }
    first.push_back(bits_.size());
    return first;
  }
  // The slot of a marked index.
  std::uint32_t slot(std::uint32_t index) const {
    const std::uint64_t below = (std::uint64_t{1} << (index % 64)) - 1;
    return before_[index / 64] +
           static_cast<std::uint32_t>(std::popcount(bits_[index / 64] & below));
  }
  // Calls f(index, slot) for each marked index of words [first, last), in index order.
  template <class F>
  void for_each(std::size_t first, std::size_t last, F&& f) const {
    for (std::size_t w = first; w < last; ++w) {
      std::uint32_t slot = before_[w];
      for (std::uint64_t bits = bits_[w]; bits != 0; bits &= bits - 1)
        f(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))),
          slot++);
    }
  }

 private:
  std::vector<std::uint64_t> bits_;
  std::vector<std::uint32_t> before_;
  std::size_t count_ = 0;
};

// Lines of a text read again (elements parse_obj_elements read, by their lines, in increasing
// order). With `pages.copy`, a window of the text is copied where a line lies outside the last
// one (a crop's elements lie in runs of lines) instead of each line's pages being faulted into
// the mapping one at a time; a line the copy does not hold whole is read from `text`.
class TextLines {
 public:
  TextLines(std::string_view text, const ObjTextPages& pages) : text_(text), pages_(pages) {}

  // The position or normal whose line starts at `at`: the bits parse_obj_elements read.
  Vec3 position(std::size_t at) { return elements_.position(from(at)); }
  Vec3 normal(std::size_t at) { return elements_.normal(from(at)); }

  // Where the line of element `index` (a position or a normal: `position`) starts, `anchor`
  // being obj_position_anchor or obj_normal_anchor of it: stepped to from the last element's
  // line found when that one lies between the anchor and it (indices asked in increasing order
  // step over each line once).
  std::size_t line_of(const ObjElementAnchor& anchor, std::size_t index, bool position) {
    const bool on = last_.found && last_.position == position && last_.index < index &&
                    index - last_.index <= anchor.steps;
    const std::size_t at = on ? last_.at : anchor.at;
    const std::size_t steps = on ? index - last_.index : anchor.steps;
    const std::size_t found =
        step_statements([this](std::size_t line) { return from(line); }, at, steps, position);
    last_ = {true, position, index, found};
    return found;
  }

  // The text from `at`, a line's start, on: at least that line and its line break (or up to
  // the text's end).
  std::string_view from(std::size_t at) {
    if (!pages_.copy) return text_.substr(at);
    if (!holds_line(at)) copy_from(at);
    if (!holds_line(at)) return text_.substr(at);
    return {buffer_.get() + (at - begin_), end_ - at};
  }

 private:
  static constexpr std::size_t kWindowBytes = std::size_t{8} << 10;

  // Whether the window holds the line at `at` with its line break (or up to the text's end).
  bool holds_line(std::size_t at) const {
    if (at < begin_ || at >= end_) return false;
    const char* line = buffer_.get() + (at - begin_);
    const std::size_t bytes = end_ - at;
    return std::memchr(line, '\n', bytes) != nullptr || std::memchr(line, '\r', bytes) != nullptr ||
           end_ == text_.size();
  }
  void copy_from(std::size_t at) {
    const std::size_t bytes = std::min(kWindowBytes, text_.size() - at);
    if (!buffer_) buffer_.reset(new char[kWindowBytes]);
    begin_ = end_ = 0;
    if (pages_.copy(at, buffer_.get(), bytes)) begin_ = at, end_ = at + bytes;
  }

  std::string_view text_;
  const ObjTextPages& pages_;
  std::unique_ptr<char[]> buffer_;
  std::size_t begin_ = 0, end_ = 0;  // the text's bytes the buffer holds
  ObjElementLines elements_;
  struct Found {  // the last element line_of found
    bool found = false;
    bool position = false;
    std::size_t index = 0;
    std::size_t at = 0;
  } last_;
};

// Calls f(index, slot, lines) for each index marked in `used`, in blocks on `runner`'s threads,
// each block's indices in increasing order with one TextLines over `flat`'s text.
template <typename F>
void for_used_lines(const FileElements& flat, const UsedSlots& used,
                    const core::ParallelRunner* runner, F&& f) {
  const int blocks = block_count(runner, static_cast<long long>(used.count()), 512);
  const std::vector<std::size_t> first_word = used.balanced_words(blocks);
  const ObjTextPages no_pages;
  for_each_block(runner, blocks, [&](int k) {
    const auto b = static_cast<std::size_t>(k);
    TextLines lines(flat.text, flat.pages ? *flat.pages : no_pages);
    used.for_each(first_word[b], first_word[b + 1],
                  [&](std::uint32_t index, std::uint32_t slot) { f(index, slot, lines); });
  });
}

// The world-space unit normals of the normals the kept triangles use, by their slot in `used`
// (those parse_obj_elements did not store read again from the text).
std::vector<Vec3> used_normals_ws(const FileElements& flat, const UsedSlots& used,
                                  const glm::dmat3& normal_matrix,
                                  const core::ParallelRunner* runner) {
  std::vector<Vec3> out(used.count());
  for_used_lines(
      flat, used, runner, [&](std::uint32_t normal, std::uint32_t slot, TextLines& lines) {
        const Vec3 n = flat.unstored_normals
                           ? lines.normal(lines.line_of(
                                 obj_normal_anchor(*flat.unstored_normals, normal), normal, false))
                           : flat.normal(normal);
        out[slot] = core::safe_normalize(normal_matrix * n, Vec3(0.0));
      });
  return out;
}

// The world positions of the positions the kept triangles use, by their slot in `used`: as
// positions_to_world left them in the parts that keep them, read again from the text and moved
// to world metres the same way in sided parts (ObjPart::sided).
std::vector<Vec3> used_positions_ws(const ObjParts& obj, const FileElements& flat,
                                    const UsedSlots& used, const glm::dmat4& to_world,
                                    const core::ParallelRunner* runner) {
  std::vector<Vec3> out(used.count());
  const bool identity = to_world == glm::dmat4(1.0);
  for_used_lines(
      flat, used, runner, [&](std::uint32_t position, std::uint32_t slot, TextLines& lines) {
        const auto after =
            std::upper_bound(obj.position_offset.begin(), obj.position_offset.end(), position);
        const ObjPart& part =
            obj.parts[static_cast<std::size_t>(after - obj.position_offset.begin()) - 1];
        out[slot] = part.sided ? obj_position_to_world(
                                     lines.position(lines.line_of(
                                         obj_position_anchor(obj, position), position, true)),
                                     to_world, identity)
                               : flat.positions_ws[position];
      });
  return out;
}

// A corner's position and normal indices as one key (normal -1: none).
inline std::uint64_t corner_key(std::uint32_t position, std::int32_t normal) {
  return std::uint64_t{position} << 32 | static_cast<std::uint32_t>(normal);
}

// Distinct corner keys, each kept once, in the order first added (open addressing).
class FirstUses {
 public:
  explicit FirstUses(std::size_t expected) { resize_table(expected); }
  void add(std::uint64_t key) {
    std::size_t slot = spread(key) & mask_;
    for (; table_[slot] != kEmpty; slot = (slot + 1) & mask_)
      if (table_[slot] == key) return;
    table_[slot] = key;
    keys_.push_back(key);
    if (2 * keys_.size() > table_.size()) rehash();
  }
  std::vector<std::uint64_t> take_keys() { return std::move(keys_); }

 private:
  // No key is this: a position index is below 2^32 - 1 (ObjParts::position_count fits 32 bits).
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  static std::size_t spread(std::uint64_t key) {
    key *= 0x9e3779b97f4a7c15ull;
    return static_cast<std::size_t>(key ^ (key >> 29));
  }
  void resize_table(std::size_t expected) {
    table_.assign(table_capacity(expected), kEmpty);
    mask_ = table_.size() - 1;
  }
  void rehash() {
    resize_table(keys_.size() * 2);
    for (const std::uint64_t key : keys_) {
      std::size_t slot = spread(key) & mask_;
      while (table_[slot] != kEmpty) slot = (slot + 1) & mask_;
      table_[slot] = key;
    }
  }

  std::vector<std::uint64_t> table_, keys_;
  std::size_t mask_ = 0;
};

// Calls f(corners, t) for each kept triangle t in [first, last) of the parts' kept triangles
// (numbered over the parts, in order).
template <typename F>
void for_kept_triangles(const ObjParts& obj, std::size_t first, std::size_t last, F&& f) {
  std::size_t before = 0;
  for (const ObjPart& part : obj.parts) {
    const std::size_t count = part.triangles.size();
    for (std::size_t t = std::max(first, before); t < std::min(last, before + count); ++t)
      f(part.triangles[t - before], t);
    before += count;
    if (before >= last) return;
  }
}

// The parts' kept triangles (numbered over the parts, in order) cut into blocks for the
// merge's parallel steps.
struct KeptBlocks {
  static constexpr std::size_t kTriangles = 16384;  // per block, at least

  KeptBlocks(const ObjParts& obj, const core::ParallelRunner* runner) {
    for (const ObjPart& part : obj.parts) kept += part.triangles.size();
    count = block_count(runner, static_cast<long long>(kept), static_cast<long long>(kTriangles));
    per_block = (kept + static_cast<std::size_t>(count) - 1) / static_cast<std::size_t>(count);
  }
  // Block b's triangles [first, last).
  std::pair<std::size_t, std::size_t> range(int b) const {
    const std::size_t first = std::min(kept, static_cast<std::size_t>(b) * per_block);
    return {first, std::min(kept, first + per_block)};
  }

  std::size_t kept = 0;
  int count = 1;
  std::size_t per_block = 0;
};

// Per block, on `runner`'s threads: the distinct (position, normal) index pairs of its corners
// in order of first use (corner_key; normal -1 throughout without normals), each one's indices
// marked in `positions` (and `normals`).
std::vector<std::vector<std::uint64_t>> first_uses_by_block(const ObjParts& obj,
                                                            const KeptBlocks& blocks,
                                                            bool with_normals, UsedSlots& positions,
                                                            UsedSlots& normals,
                                                            const core::ParallelRunner* runner) {
  std::vector<std::vector<std::uint64_t>> out(static_cast<std::size_t>(blocks.count));
  for_each_block(runner, blocks.count, [&](int b) {
    const auto [first, last] = blocks.range(b);
    FirstUses uses((last - first) / 2);  // a grid's triangles share each vertex about 6 times
    for_kept_triangles(obj, first, last, [&](const std::array<ObjCorner, 3>& corners, std::size_t) {
      for (const ObjCorner& c : corners)
        uses.add(corner_key(c.position, with_normals ? c.normal : -1));
    });
    std::vector<std::uint64_t>& keys = out[static_cast<std::size_t>(b)];
    keys = uses.take_keys();
    for (const std::uint64_t key : keys) {
      positions.mark_shared(static_cast<std::uint32_t>(key >> 32));
      if (with_normals) normals.mark_shared(static_cast<std::uint32_t>(key));
    }
  });
  return out;
}

// Corners merged into vertices (see obj_terrain_mesh), over the parts' kept triangles, in three
// steps: per block of triangles on the runner's threads, its distinct (position, normal) pairs
// in order of first use; on this thread, those of every block in block order, each made a
// vertex unless its bits already are one (the first pair of a vertex's bits met this way is the
// one of its first corner in face order, so the vertices come in the order of the one-thread
// merge); then per block again, each corner's vertex.
core::TerrainMesh merge_corners(const ObjParts& obj, const FileElements& flat,
                                const glm::dmat4& to_world, const core::ParallelRunner* runner) {
  const glm::dmat3 normal_matrix = glm::inverseTranspose(glm::dmat3(to_world));
  const bool mirrored = glm::determinant(glm::dmat3(to_world)) < 0.0;
  const bool with_normals = obj.triangle_count > 0 && obj.every_corner_has_normal;
  const KeptBlocks blocks(obj, runner);
  core::TerrainMesh mesh;
  // A whole mesh's vertex arrays and table are sized by its positions before the blocks' lists
  // are made (no hole where those were, at the peak of a large level's read); a part's after
  // them, by its own corners (a crop's sized for its few vertices, not for the file's).
  const bool whole = blocks.kept == obj.triangle_count;
  const std::size_t whole_vertices = std::min(obj.position_count, 3 * blocks.kept);
  if (whole) reserve_vertices(mesh, with_normals, whole_vertices);
  mesh.triangles.reserve(blocks.kept);  // before the blocks' lists: no hole where they were
  std::optional<VertexIndex> index;
  if (whole) index.emplace(mesh, with_normals, whole_vertices);
  UsedSlots positions(obj.position_count), normals(with_normals ? obj.normal_count : 0);
  std::vector<std::vector<std::uint64_t>> first_uses =
      first_uses_by_block(obj, blocks, with_normals, positions, normals, runner);
  positions.number(), normals.number();
  if (!whole) {
    // At most one vertex per block's first use (fewer where blocks share corners), and without
    // normals one per position used.
    std::size_t expected = 0;
    for (const std::vector<std::uint64_t>& keys : first_uses) expected += keys.size();
    if (!with_normals) expected = std::min(expected, positions.count());
    index.emplace(mesh, with_normals, expected);
  }
  const std::vector<Vec3> normals_ws = used_normals_ws(flat, normals, normal_matrix, runner);
  // Sided parts keep no positions: those used, by their slot in `positions`.
  const bool sided = std::any_of(obj.parts.begin(), obj.parts.end(),
                                 [](const ObjPart& part) { return part.sided; });
  const std::vector<Vec3> used_ws =
      sided ? used_positions_ws(obj, flat, positions, to_world, runner) : std::vector<Vec3>();
  const auto position_ws = [&](std::uint32_t position, std::uint32_t slot) -> const Vec3& {
    return sided ? used_ws[slot] : flat.positions_ws[position];
  };
  // Per position used: the normal index it was last used with (kUnseen: none yet) and the
  // vertex that gave (a terrain uses each position with one normal, so the table is asked once
  // per position).
  constexpr std::int32_t kUnseen = std::numeric_limits<std::int32_t>::min();
  std::vector<std::int32_t> cached_normal(positions.count(), kUnseen);
  core::UnwrittenResizeVector<std::uint32_t> cached_vertex;
  core::resize_unwritten(cached_vertex, positions.count());
  const Vec3 no_normal(0.0);
  const auto normal_ws = [&](std::int32_t normal) -> const Vec3& {
    return normal >= 0 ? normals_ws[normals.slot(static_cast<std::uint32_t>(normal))] : no_normal;
  };
  for (std::vector<std::uint64_t>& keys : first_uses) {
    for (const std::uint64_t key : keys) {
      const auto position = static_cast<std::uint32_t>(key >> 32);
      const auto normal = static_cast<std::int32_t>(static_cast<std::uint32_t>(key));
      const std::uint32_t slot = positions.slot(position);
      if (cached_normal[slot] == normal) continue;
      cached_vertex[slot] = index->find_or_add(position_ws(position, slot), normal_ws(normal));
      cached_normal[slot] = normal;
    }
    std::vector<std::uint64_t>().swap(keys);  // freed for the vertices growing meanwhile
  }
  const auto vertex_of = [&](const ObjCorner& c) {
    const std::int32_t normal = with_normals ? c.normal : -1;
    const std::uint32_t slot = positions.slot(c.position);
    if (cached_normal[slot] == normal) return cached_vertex[slot];
    return index->find(position_ws(c.position, slot), normal_ws(normal));
  };
  mesh.triangles.resize(blocks.kept);
  for_each_block(runner, blocks.count, [&](int b) {
    const auto [first, last] = blocks.range(b);
    for_kept_triangles(obj, first, last,
                       [&](const std::array<ObjCorner, 3>& corners, std::size_t t) {
                         std::array<std::uint32_t, 3> tri{
                             vertex_of(corners[0]), vertex_of(corners[1]), vertex_of(corners[2])};
                         if (mirrored) std::swap(tri[1], tri[2]);
                         mesh.triangles[t] = tri;
                       });
  });
  return mesh;
}

// Hands the pages of the heap's free blocks back to the system (glibc: malloc_trim releases
// whole free pages in every arena and shrinks the heap's top). The CLI keeps freed blocks for
// reuse (cli/heap_setup), but a large OBJ's parse can leave hundreds of MB freed at once (a
// chunk's arrays outgrowing the room reserved for them, moved as they double), which would
// otherwise stay resident for the rest of the run. Only then, and only for texts of
// kTrimAfterBytes or more (a small one frees little): a trim also gives back the heap's top,
// whose pages grown again later lack the huge-page advice cli/heap_setup gave the reserved
// heap, so every 4 KiB of them would cost a page fault on first touch.
constexpr std::size_t kTrimAfterBytes = std::size_t{64} << 20;
void give_back_freed_pages(std::size_t text_bytes, const std::optional<ObjParts>& parts) {
  const bool outgrown =
      !parts || std::any_of(parts->parts.begin(), parts->parts.end(),
                            [](const ObjPart& part) { return part.outgrew_reserve; });
#if defined(__GLIBC__)
  if (text_bytes >= kTrimAfterBytes && outgrown) malloc_trim(0);
#else
  (void)text_bytes, (void)outgrown;
#endif
}

// Chunks of the parallel reader's passes are at least this long.
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

// cropped_first_pass's chunks, read on `runner`'s threads with `rect` (sided parts).
std::optional<ObjParts> read_first_pass(std::string_view text, const core::ParallelRunner* runner,
                                        const ObjTextPages& pages, const ObjWorldRect& rect) {
  const std::unique_ptr<ObjElementChunks> chunks = cropped_first_pass(text, runner, pages);
  chunks->set_world_rect(rect);
  chunks->read_unclaimed_on(runner);
  return chunks->result();
}

// Whether a sided part (ObjPart::sided) holds a position whose sides and bounds do not serve.
bool any_sided_irregular(const ObjParts& parts) {
  return std::any_of(parts.parts.begin(), parts.parts.end(),
                     [](const ObjPart& part) { return part.sided && part.sided_irregular; });
}

// Both passes of the parallel reader, pass 1 first ending at each chunk's first face, then
// over whole chunks where an element follows a face: the parts, their positions in world
// metres in `flat` and, with `keep_ws`, only the triangles touching it (their corners' bounds
// in `used`). Cropped, the normals are not stored: the few the kept triangles use are read
// again from the text. Nothing where the reader refused the text.
std::optional<ObjParts> read_obj_parts(std::string_view text, const glm::dmat4& to_world,
                                       const core::ParallelRunner* runner,
                                       const std::optional<core::XzBox>& keep_ws,
                                       const ObjTextPages& pages, FileElements& flat,
                                       UsedBounds& used, const ObjFirstPass& first_pass) {
  const ObjWorldRect world{to_world, keep_ws.value_or(core::XzBox{})};
  for (const bool end_at_faces : {true, false}) {
    flat = FileElements{};
    flat.text = text;
    flat.pages = &pages;
    std::optional<ObjParts> parts;
    if (keep_ws && end_at_faces)
      parts = first_pass ? first_pass(world) : read_first_pass(text, runner, pages, world);
    else
      parts = parse_obj_elements(text, runner, pages, kChunkBytes, !keep_ws.has_value(), true,
                                 end_at_faces);
    give_back_freed_pages(text.size(), parts);  // the chunks' arrays outgrown while parsing
    // A position the sides and bounds found while reading do not serve (not finite, or -0):
    // every position read again, as without the rectangle.
    if (parts && any_sided_irregular(*parts) &&
        !read_sided_positions_again(text, *parts, pages, runner))
      parts.reset();
    if (!parts) return std::nullopt;
    positions_to_world(*parts, to_world, flat, runner, keep_ws ? &*keep_ws : nullptr);
    const bool ok = keep_ws ? read_cropped_faces(text, *parts, flat, world, used, runner, pages)
                            : parse_obj_faces(text, *parts, {}, runner, pages);
    if (ok) return parts;
  }
  return std::nullopt;
}

// The sequential reader reads the text in place. Where the text is a mapped file the passes
// read through copies (`pages.copy`), a file cut shorter since it was mapped would fault past
// its new end there (SIGBUS): refused by name instead, when its last byte can no longer be read.
void throw_if_shortened(std::string_view text, const ObjTextPages& pages, const std::string& file) {
  char last = 0;
  if (pages.copy && !text.empty() && !pages.copy(text.size() - 1, &last, 1))
    throw InputError(file,
                     "cannot be read again: the file was cut shorter or changed while it was read");
}

void throw_if_bad(const FileElements& flat, const std::string& file) {
  if (flat.first_bad != std::numeric_limits<std::size_t>::max())
    throw InputError(file,
                     "vertex " + std::to_string(flat.first_bad + 1) + " is not finite in metres");
}

}  // namespace

core::TerrainMesh obj_terrain_mesh(const ObjParts& obj, const glm::dmat4& to_world,
                                   const std::string& file, const core::ParallelRunner* runner) {
  ObjParts copy = obj;
  FileElements flat;
  positions_to_world(copy, to_world, flat, runner);
  throw_if_bad(flat, file);
  find_normals(copy, flat);
  return merge_corners(copy, flat, to_world, runner);
}

std::unique_ptr<ObjElementChunks> cropped_first_pass(std::string_view text,
                                                     const core::ParallelRunner* runner,
                                                     const ObjTextPages& pages) {
  // Normals not stored: the few the kept triangles use are read again (used_normals_ws).
  return std::make_unique<ObjElementChunks>(text, runner ? runner->threads() : 1, pages,
                                            kChunkBytes, /*store_normals=*/false, /*lean=*/true,
                                            /*end_at_faces=*/true);
}

core::TerrainMesh read_obj_terrain(std::string_view text, const glm::dmat4& to_world,
                                   const std::string& file, const core::ParallelRunner* runner,
                                   const std::optional<core::XzBox>& keep_ws,
                                   core::TerrainCrop* crop, const ObjTextPages& pages,
                                   const ObjFirstPass& first_pass) {
  FileElements flat;
  UsedBounds used;
  std::optional<ObjParts> parts =
      read_obj_parts(text, to_world, runner, keep_ws, pages, flat, used, first_pass);
  if (!parts) {  // parse_obj names the line and the problem, or reads what this reader refused
    throw_if_shortened(text, pages, file);
    parts = as_parts(parse_obj(text, file));
    flat = FileElements{};
    positions_to_world(*parts, to_world, flat, runner);
    if (keep_ws) {
      std::vector<UsedBounds> bounds(1);
      const ObjTriangleFilter keep = crop_filter(flat, *keep_ws, bounds);
      std::erase_if(parts->parts[0].triangles, [&](const std::array<ObjCorner, 3>& t) {
        return !keep(0, t[0].position, t[1].position, t[2].position);
      });
      used = bounds.front();
    }
  }
  throw_if_bad(flat, file);
  if (parts->every_corner_has_normal && parts->triangle_count > 0)
    find_normals(*parts, flat, text, &pages);
  core::TerrainMesh mesh = merge_corners(*parts, flat, to_world, runner);
  if (keep_ws && crop) {
    *crop = core::TerrainCrop{};
    crop->whole_min = used.min, crop->whole_max = used.max;
    crop->min_x = keep_ws->min_x, crop->min_z = keep_ws->min_z;
    crop->max_x = keep_ws->max_x, crop->max_z = keep_ws->max_z;
  }
  return mesh;
}

}  // namespace ikfix::io
