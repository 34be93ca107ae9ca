#include "io/prepared_terrain.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/mapped_file.hpp"
#include "io/parallel_blocks.hpp"

namespace ikfix::io {

static_assert(std::endian::native == std::endian::little,
              "the prepared terrain is written and mapped as little-endian");

namespace {

using core::Vec3;

constexpr char kMagic[8] = {'I', 'K', 'T', 'E', 'R', 'R', 'A', '\x1a'};
constexpr std::size_t kTrianglesPerTile = 2048;
constexpr std::uint32_t kMaxTilesPerSide = 1024;
constexpr std::uint32_t kUnset = std::numeric_limits<std::uint32_t>::max();

// The file's first 256 bytes. Offsets are bytes from the file's start, all multiples of 8.
struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t header_bytes;  // sizeof(Header)
  std::uint64_t file_bytes;
  std::uint64_t vertex_count;
  std::uint64_t triangle_count;
  std::uint32_t has_normals;  // 1: each tile holds a normal per vertex after its records
  std::uint32_t zero;
  std::uint32_t tile_columns, tile_rows;
  double bounds_min[3], bounds_max[3];  // of every vertex, world metres
  double tile_origin_x, tile_origin_z, tile_size_x, tile_size_z;
  std::uint64_t tile_table_offset, tiles_offset;  // the tile table; the first tile's data
  std::uint64_t tile_table_checksum;
  std::uint64_t header_checksum;  // of these 256 bytes with this field 0
  char reserved[88];
};
static_assert(sizeof(Header) == 256);

// Per tile (row-major, x fastest): the horizontal bounds of its triangles (empty: +inf..-inf),
// where its data lies, its counts and the checksums of its data. A triangle belongs to the
// tile holding the centre of its horizontal bounding box; the tile's data holds the vertices
// its triangles use (a vertex used by several tiles is stored in each).
struct TileEntry {
  double min_x, min_z, max_x, max_z;
  std::uint64_t offset;  // of the tile's data, from the file's start
  std::uint32_t vertex_count, triangle_count;
  std::uint64_t checksum;          // of the tile's shape_bytes() bytes (all but its normals)
  std::uint64_t normals_checksum;  // of its normals, which follow (no normals: of 0 bytes)
};
static_assert(sizeof(TileEntry) == 64);

// A triangle in a tile: its index in the mesh and its three vertex indices (in the writer: the
// mesh's; in the file: the tile's own).
struct TriangleRecord {
  std::uint32_t index, v0, v1, v2;
};

// A tile's data: its shape (u32 mesh vertex index per tile vertex, zero-padded to 8 bytes;
// f64 x 3 position per tile vertex; a TriangleRecord per triangle), then f64 x 3 normal per
// tile vertex (with normals). Each part has its own checksum, so that a reader that does not
// use the normals neither reads nor checks them.
std::uint64_t ids_bytes(std::uint64_t vertices) { return (4 * vertices + 7) / 8 * 8; }
std::uint64_t shape_bytes(std::uint64_t vertices, std::uint64_t triangles) {
  return ids_bytes(vertices) + vertices * sizeof(Vec3) + triangles * sizeof(TriangleRecord);
}
std::uint64_t tile_bytes(std::uint64_t vertices, std::uint64_t triangles, bool normals) {
  return shape_bytes(vertices, triangles) + (normals ? vertices * sizeof(Vec3) : 0);
}

std::uint64_t mix(std::uint64_t h) {
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

template <typename T>
std::string_view bytes_of(const std::vector<T>& v) {
  return {reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)};
}

struct Tiling {
  std::uint32_t columns = 1, rows = 1;
  double origin_x = 0, origin_z = 0, size_x = 1, size_z = 1;
  std::uint32_t tile_of(double x, double z) const {
    const double fx = std::floor((x - origin_x) / size_x), fz = std::floor((z - origin_z) / size_z);
    const auto cx = static_cast<std::uint32_t>(std::clamp(fx, 0.0, double(columns - 1)));
    const auto cz = static_cast<std::uint32_t>(std::clamp(fz, 0.0, double(rows - 1)));
    return cz * columns + cx;
  }
};

Tiling make_tiling(const Vec3& lo, const Vec3& hi, std::size_t triangles) {
  Tiling t;
  const double width = std::max(hi.x - lo.x, 1e-6), depth = std::max(hi.z - lo.z, 1e-6);
  const double tiles = std::max(1.0, static_cast<double>(triangles) / kTrianglesPerTile);
  const double side = std::sqrt(width * depth / tiles);
  t.columns = static_cast<std::uint32_t>(std::clamp(std::ceil(width / side), 1.0, 1024.0));
  t.rows = static_cast<std::uint32_t>(std::clamp(std::ceil(depth / side), 1.0, 1024.0));
  t.origin_x = lo.x, t.origin_z = lo.z;
  t.size_x = width / t.columns, t.size_z = depth / t.rows;
  return t;
}

void check_mesh(const std::string& file, const core::TerrainMesh& mesh) {
  if (mesh.triangles.empty()) throw InputError(file, "cannot prepare: the mesh has no triangles");
  if (mesh.vertices.size() >= std::numeric_limits<std::uint32_t>::max() ||
      mesh.triangles.size() >= std::numeric_limits<std::uint32_t>::max())
    throw InputError(file, "cannot prepare: more than 2^32 - 2 vertices or triangles");
  const bool normals = !mesh.vertex_normals.empty();
  if (normals && mesh.vertex_normals.size() != mesh.vertices.size())
    throw InputError(file, "cannot prepare: normals are not one per vertex");
  for (std::size_t i = 0; i < mesh.vertices.size(); ++i)
    if (!core::is_finite(mesh.vertices[i]) || (normals && !core::is_finite(mesh.vertex_normals[i])))
      throw InputError(file, "cannot prepare: vertex " + std::to_string(i) + " is not finite");
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    for (const std::uint32_t v : mesh.triangles[t])
      if (v >= mesh.vertices.size())
        throw InputError(
            file, "cannot prepare: triangle " + std::to_string(t) + " uses a vertex out of range");
}

// A run of records or vertex indices: [first, first + count).
struct Run {
  std::size_t first = 0, count = 0;
};

// The triangles bucketed by tile (counting sort: each tile's run in mesh order, mesh vertex
// indices) and each tile's bounds.
void assign_triangles(const core::TerrainMesh& mesh, const Tiling& tiling,
                      std::vector<TriangleRecord>& records, std::vector<TileEntry>& tiles,
                      std::vector<Run>& runs) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  tiles.assign(std::size_t{tiling.columns} * tiling.rows,
               TileEntry{kInf, kInf, -kInf, -kInf, 0, 0, 0, 0, 0});
  runs.assign(tiles.size(), Run{});
  std::vector<std::uint32_t> tile_of(mesh.triangles.size());
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    const Vec3 &a = mesh.vertices[tri[0]], &b = mesh.vertices[tri[1]], &c = mesh.vertices[tri[2]];
    const double lo_x = std::min({a.x, b.x, c.x}), hi_x = std::max({a.x, b.x, c.x});
    const double lo_z = std::min({a.z, b.z, c.z}), hi_z = std::max({a.z, b.z, c.z});
    const std::uint32_t k = tile_of[t] = tiling.tile_of(0.5 * (lo_x + hi_x), 0.5 * (lo_z + hi_z));
    TileEntry& tile = tiles[k];
    tile.min_x = std::min(tile.min_x, lo_x), tile.max_x = std::max(tile.max_x, hi_x);
    tile.min_z = std::min(tile.min_z, lo_z), tile.max_z = std::max(tile.max_z, hi_z);
    ++runs[k].count;
  }
  std::size_t first = 0;
  for (Run& run : runs) run.first = first, first += run.count, run.count = 0;
  records.resize(mesh.triangles.size());
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    Run& run = runs[tile_of[t]];
    const auto& tri = mesh.triangles[t];
    records[run.first + run.count++] = {static_cast<std::uint32_t>(t), tri[0], tri[1], tri[2]};
  }
}

// The vertices no triangle uses, bucketed by the tile under them (so that a whole read gives
// the mesh back as prepared): `ids` with a run per tile.
void unused_vertices(const core::TerrainMesh& mesh, const Tiling& tiling,
                     std::vector<std::uint32_t>& ids, std::vector<Run>& runs) {
  std::vector<char> used(mesh.vertices.size(), 0);
  for (const auto& tri : mesh.triangles) used[tri[0]] = used[tri[1]] = used[tri[2]] = 1;
  runs.assign(std::size_t{tiling.columns} * tiling.rows, Run{});
  std::vector<std::uint32_t> tile_of(mesh.vertices.size(), kUnset);
  for (std::size_t v = 0; v < mesh.vertices.size(); ++v)
    if (!used[v]) ++runs[tile_of[v] = tiling.tile_of(mesh.vertices[v].x, mesh.vertices[v].z)].count;
  std::size_t first = 0;
  for (Run& run : runs) run.first = first, first += run.count, run.count = 0;
  ids.resize(first);
  for (std::size_t v = 0; v < mesh.vertices.size(); ++v)
    if (tile_of[v] != kUnset) {
      Run& run = runs[tile_of[v]];
      ids[run.first + run.count++] = static_cast<std::uint32_t>(v);
    }
}

// Lays out the tiles' data one after the other (see tile_bytes).
class TileWriter {
 public:
  TileWriter(const core::TerrainMesh& mesh, std::uint64_t first_offset)
      : mesh_(mesh),
        local_of_(mesh.vertices.size()),
        tile_of_(mesh.vertices.size(), kUnset),
        first_offset_(first_offset) {}

  // Appends the data of tile `tile`: its triangles (mesh vertex indices) and the unused
  // vertices under it; sets the entry's offset, counts and checksum. The tile's vertices are
  // numbered by first use in its triangles, then the unused ones.
  void add(std::uint32_t tile, std::span<const TriangleRecord> records,
           std::span<const std::uint32_t> unused, TileEntry& entry) {
    ids_.clear();
    local_records_.clear();
    auto local = [&](std::uint32_t v) {
      if (tile_of_[v] != tile)
        tile_of_[v] = tile, local_of_[v] = static_cast<std::uint32_t>(ids_.size()),
        ids_.push_back(v);
      return local_of_[v];
    };
    for (const TriangleRecord& r : records)
      local_records_.push_back({r.index, local(r.v0), local(r.v1), local(r.v2)});
    for (const std::uint32_t v : unused) local(v);
    const bool normals = !mesh_.vertex_normals.empty();
    const std::size_t start = data_.size();
    data_.resize(start + tile_bytes(ids_.size(), records.size(), normals), 0);
    char* out = data_.data() + start;
    // An empty tile has no bytes to copy (memcpy must not see the null data() of an empty vector).
    if (!ids_.empty()) std::memcpy(out, ids_.data(), ids_.size() * sizeof(std::uint32_t));
    out += ids_bytes(ids_.size());
    for (const std::uint32_t v : ids_)
      std::memcpy(out, &mesh_.vertices[v], sizeof(Vec3)), out += sizeof(Vec3);
    if (!local_records_.empty())
      std::memcpy(out, local_records_.data(), local_records_.size() * sizeof(TriangleRecord));
    out += local_records_.size() * sizeof(TriangleRecord);
    if (normals)
      for (const std::uint32_t v : ids_)
        std::memcpy(out, &mesh_.vertex_normals[v], sizeof(Vec3)), out += sizeof(Vec3);
    entry.offset = first_offset_ + start;
    entry.vertex_count = static_cast<std::uint32_t>(ids_.size());
    entry.triangle_count = static_cast<std::uint32_t>(records.size());
    const std::size_t shape = shape_bytes(ids_.size(), records.size());
    entry.checksum = prepared_checksum(data_.data() + start, shape);
    entry.normals_checksum =
        prepared_checksum(data_.data() + start + shape, data_.size() - start - shape);
  }
  const std::vector<char>& data() const { return data_; }

 private:
  const core::TerrainMesh& mesh_;
  std::vector<std::uint32_t> local_of_;  // mesh vertex -> index in the tile tile_of_ names
  std::vector<std::uint32_t> tile_of_;
  std::uint64_t first_offset_;
  std::vector<std::uint32_t> ids_;
  std::vector<TriangleRecord> local_records_;
  std::vector<char> data_;
};

// The bits set in `x`, inline (std::popcount is a library call on the baseline x86-64 this is
// built for).
inline std::uint32_t bits_set(std::uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ull;
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<std::uint32_t>((x * 0x0101010101010101ull) >> 56);
}

// A kept triangle's mesh index and its place in the list of kept triangles.
struct IndexSlot {
  std::uint32_t index, slot;
};

// Into ascending mesh index: two stable 16-bit counting passes (linear; a crop holds hundreds
// of thousands of triangles).
void sort_by_index(std::vector<IndexSlot>& items) {
  std::vector<IndexSlot> scratch(items.size());
  for (const int shift : {0, 16}) {
    std::vector<std::size_t> start((1u << 16) + 1, 0);
    for (const IndexSlot& r : items) ++start[((r.index >> shift) & 0xffffu) + 1];
    for (std::size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
    for (const IndexSlot& r : items) scratch[start[(r.index >> shift) & 0xffffu]++] = r;
    items.swap(scratch);
  }
}

// Mesh vertex index -> crop vertex index. A table over the range of indices the tiles read
// hold when that range is dense (a crop of a mesh numbered row by row spans a few of its rows:
// hashing them cost cache misses), else open addressing.
class VertexRemap {
 public:
  VertexRemap(std::uint32_t lo, std::uint32_t hi, std::size_t corners) {
    if (lo <= hi && std::size_t{hi - lo} < 8 * corners + 65536) {
      first_ = lo;
      dense_.assign(std::size_t{hi - lo} + 1, kUnset);
      return;
    }
    std::size_t capacity = 16;
    while (capacity < 2 * corners) capacity *= 2;
    keys_.assign(capacity, kUnset);
    values_.resize(capacity);
    mask_ = capacity - 1;
  }
  bool dense() const { return !dense_.empty(); }
  // The value slot of `key`: kUnset when the key is new (the caller sets it). `Dense` is
  // dense(), a template argument so that the crop's loop tests it once, not per corner.
  template <bool Dense>
  std::uint32_t& find_or_add(std::uint32_t key) {
    if constexpr (Dense) return dense_[key - first_];
    std::size_t slot = (key * 0x9e3779b97f4a7c15ull >> 20) & mask_;
    for (; keys_[slot] != kUnset; slot = (slot + 1) & mask_)
      if (keys_[slot] == key) return values_[slot];
    keys_[slot] = key;
    values_[slot] = kUnset;
    return values_[slot];
  }

 private:
  std::uint32_t first_ = 0;
  std::vector<std::uint32_t> dense_;
  std::vector<std::uint32_t> keys_, values_;
  std::size_t mask_ = 0;
};

// One tile's data in the mapping (see tile_bytes), checked: its checksum, every mesh vertex
// index below the vertex count, every triangle index below the triangle count and every
// corner below the tile's vertex count.
struct TileData {
  const char* ids = nullptr;
  const char* positions = nullptr;
  const char* normals = nullptr;  // null without normals
  const char* records = nullptr;
  std::uint32_t vertex_count = 0, triangle_count = 0;
  std::uint32_t min_id = kUnset, max_id = 0;  // of `ids` (empty: kUnset, 0)

  std::uint32_t id(std::uint32_t local) const {
    std::uint32_t out;
    std::memcpy(&out, ids + std::size_t{local} * sizeof out, sizeof out);
    return out;
  }
  static Vec3 vec3(const char* at, std::uint32_t local) {
    Vec3 out;
    std::memcpy(&out, at + std::size_t{local} * sizeof out, sizeof out);
    return out;
  }
  TriangleRecord record(std::uint32_t k) const {
    TriangleRecord out;
    std::memcpy(&out, records + std::size_t{k} * sizeof out, sizeof out);
    return out;
  }
};

// A triangle the crop keeps: its mesh index, the TileData it was read from, its corners there.
struct KeptTriangle {
  std::uint32_t index, tile, v0, v1, v2;
};
// The first `size` of `items` (allocated for every triangle of the tiles read, not cleared).
struct KeptTriangles {
  std::unique_ptr<KeptTriangle[]> items;
  std::size_t size = 0;
  std::span<const KeptTriangle> view() const { return {items.get(), size}; }
};

// order[rank of kept[k]'s index among the kept ones] = k: the bits set in the words of
// `present` (a bit per index from `lo`) before the index's word (`before`) plus those below it
// in its word, counted by `bits`.
template <typename Bits>
[[gnu::always_inline]] inline void rank_with(Bits bits, std::span<const KeptTriangle> kept,
                                             std::uint32_t lo,
                                             std::span<const std::uint64_t> present,
                                             std::span<const std::uint32_t> before,
                                             std::span<std::uint32_t> order) {
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const std::uint32_t i = kept[k].index - lo;
    const std::uint64_t lower = (std::uint64_t{1} << (i & 63u)) - 1;
    order[before[i >> 6] + bits(present[i >> 6] & lower)] = static_cast<std::uint32_t>(k);
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// rank_with the popcnt instruction (every x86-64 CPU since 2008 has it; the baseline x86-64
// build does not assume it, so only after __builtin_cpu_supports("popcnt")).
[[gnu::target("popcnt")]] void rank_popcnt(std::span<const KeptTriangle> kept, std::uint32_t lo,
                                           std::span<const std::uint64_t> present,
                                           std::span<const std::uint32_t> before,
                                           std::span<std::uint32_t> order) {
  rank_with([](std::uint64_t x) { return static_cast<std::uint32_t>(__builtin_popcountll(x)); },
            kept, lo, present, before, order);
}
#endif

void rank_kept(std::span<const KeptTriangle> kept, std::uint32_t lo,
               std::span<const std::uint64_t> present, std::span<const std::uint32_t> before,
               std::span<std::uint32_t> order) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("popcnt")) return rank_popcnt(kept, lo, present, before, order);
#endif
  rank_with(bits_set, kept, lo, present, before, order);
}

// A mapped prepared terrain, its header and tile table checked; a tile's data is checked when
// it is read.
class PreparedReader {
 public:
  explicit PreparedReader(const std::filesystem::path& path)
      : file_(path.string()), mapped_(path), bytes_(mapped_.text()) {
    check_header();
    tiles_ = tile_table();
  }

  std::size_t file_bytes() const { return bytes_.size(); }

  TerrainRead read(const std::optional<core::XzBox>& keep, const core::ParallelRunner* runner,
                   bool normals) {
    TerrainRead out;
    if (!keep) {
      whole(out.mesh);
      return out;
    }
    crop(*keep, out.mesh, runner, normals);
    core::TerrainCrop c;
    c.whole_min = Vec3(h_.bounds_min[0], h_.bounds_min[1], h_.bounds_min[2]);
    c.whole_max = Vec3(h_.bounds_max[0], h_.bounds_max[1], h_.bounds_max[2]);
    c.min_x = keep->min_x, c.min_z = keep->min_z, c.max_x = keep->max_x, c.max_z = keep->max_z;
    out.crop = c;
    return out;
  }

 private:
  [[noreturn]] void corrupt(const std::string& what) const {
    throw InputError(file_, "corrupt prepared terrain (" + what + "): prepare it again");
  }

  void check_header() {
    if (bytes_.size() < sizeof(Header) || std::memcmp(bytes_.data(), kMagic, sizeof kMagic) != 0) {
      if (bytes_.size() >= sizeof kMagic && std::memcmp(bytes_.data(), kMagic, sizeof kMagic) == 0)
        throw InputError(file_, "truncated prepared terrain (" + std::to_string(bytes_.size()) +
                                    " bytes): prepare it again");
      throw InputError(file_, "not a prepared terrain (no .ikterrain header)");
    }
    std::memcpy(&h_, bytes_.data(), sizeof h_);
    if (h_.version != kPreparedTerrainVersion)
      throw InputError(file_, "prepared terrain of format version " + std::to_string(h_.version) +
                                  ", this ikfix reads version " +
                                  std::to_string(kPreparedTerrainVersion) +
                                  ": prepare it again (ikfix terrain prepare)");
    Header zeroed = h_;
    zeroed.header_checksum = 0;
    if (prepared_checksum(&zeroed, sizeof zeroed) != h_.header_checksum) corrupt("header checksum");
    if (h_.file_bytes != bytes_.size())
      throw InputError(file_, "truncated prepared terrain (" + std::to_string(bytes_.size()) +
                                  " bytes of " + std::to_string(h_.file_bytes) +
                                  "): prepare it again");
    const std::uint64_t tile_count = std::uint64_t{h_.tile_columns} * h_.tile_rows;
    if (h_.header_bytes != sizeof(Header) ||
        h_.vertex_count >= std::numeric_limits<std::uint32_t>::max() ||
        h_.triangle_count >= std::numeric_limits<std::uint32_t>::max() || h_.tile_columns == 0 ||
        h_.tile_rows == 0 || h_.tile_columns > kMaxTilesPerSide ||
        h_.tile_rows > kMaxTilesPerSide || h_.tile_table_offset != sizeof(Header) ||
        h_.tiles_offset != h_.tile_table_offset + tile_count * sizeof(TileEntry) ||
        h_.tiles_offset > h_.file_bytes)
      corrupt("inconsistent header");
  }

  // The tile table, checked: its checksum, and the tiles' data lying one after the other up
  // to the file's end, every triangle in one of them.
  std::vector<TileEntry> tile_table() const {
    std::vector<TileEntry> tiles(std::size_t{h_.tile_columns} * h_.tile_rows);
    if (!tiles.empty())
      std::memcpy(tiles.data(), bytes_.data() + h_.tile_table_offset,
                  tiles.size() * sizeof(TileEntry));
    if (prepared_checksum(tiles.data(), tiles.size() * sizeof(TileEntry)) != h_.tile_table_checksum)
      corrupt("tile table checksum");
    std::uint64_t end = h_.tiles_offset, triangles = 0;
    for (const TileEntry& t : tiles) {
      if (t.offset != end || t.vertex_count > h_.vertex_count ||
          t.triangle_count > h_.triangle_count)
        corrupt("a tile's data does not follow the one before");
      end += tile_bytes(t.vertex_count, t.triangle_count, h_.has_normals != 0);
      triangles += t.triangle_count;
      if (end > h_.file_bytes) corrupt("a tile's data lies outside the file");
    }
    if (end != h_.file_bytes || triangles != h_.triangle_count)
      corrupt("the tiles do not hold the file's triangles");
    return tiles;
  }

  // The tile's data, its checksums and vertex indices checked (its records are checked as read:
  // checked_record). Without `normals` the tile's normals are neither read nor checked
  // (TileData::normals null).
  TileData tile_data(const TileEntry& t, bool normals) const {
    const char* at = bytes_.data() + t.offset;
    const std::uint64_t shape = shape_bytes(t.vertex_count, t.triangle_count);
    if (prepared_checksum(at, shape) != t.checksum) corrupt("tile checksum");
    normals = normals && h_.has_normals != 0;
    if (normals && prepared_checksum(at + shape, std::size_t{t.vertex_count} * sizeof(Vec3)) !=
                       t.normals_checksum)
      corrupt("tile checksum");
    TileData d;
    d.vertex_count = t.vertex_count, d.triangle_count = t.triangle_count;
    d.ids = at;
    d.positions = d.ids + ids_bytes(t.vertex_count);
    d.records = d.positions + std::size_t{t.vertex_count} * sizeof(Vec3);
    d.normals = normals ? at + shape : nullptr;
    for (std::uint32_t v = 0; v < d.vertex_count; ++v) {
      const std::uint32_t id = d.id(v);
      d.min_id = std::min(d.min_id, id), d.max_id = std::max(d.max_id, id);
    }
    if (d.vertex_count > 0 && d.max_id >= h_.vertex_count) corrupt("a vertex index out of range");
    return d;
  }
  // Record `k` of tile `d`: its triangle index below the triangle count, its corners below the
  // tile's vertex count.
  TriangleRecord checked_record(const TileData& d, std::uint32_t k) const {
    const TriangleRecord r = d.record(k);
    if (r.index >= h_.triangle_count || r.v0 >= d.vertex_count || r.v1 >= d.vertex_count ||
        r.v2 >= d.vertex_count)
      corrupt("an index out of range");
    return r;
  }

  void whole(core::TerrainMesh& mesh) {
    mesh.vertices.resize(h_.vertex_count);
    if (h_.has_normals) mesh.vertex_normals.resize(h_.vertex_count);
    mesh.triangles.resize(h_.triangle_count);
    std::vector<char> vertex_seen(h_.vertex_count, 0), triangle_seen(h_.triangle_count, 0);
    for (const TileEntry& t : tiles_) {
      const TileData d = tile_data(t, /*normals=*/true);
      for (std::uint32_t v = 0; v < d.vertex_count; ++v) {
        const std::uint32_t id = d.id(v);
        const Vec3 p = TileData::vec3(d.positions, v);
        const Vec3 n = d.normals ? TileData::vec3(d.normals, v) : Vec3(0.0);
        if (vertex_seen[id] &&
            (std::memcmp(&mesh.vertices[id], &p, sizeof p) != 0 ||
             (d.normals && std::memcmp(&mesh.vertex_normals[id], &n, sizeof n) != 0)))
          corrupt("a vertex stored twice with different values");
        vertex_seen[id] = 1;
        mesh.vertices[id] = p;
        if (d.normals) mesh.vertex_normals[id] = n;
      }
      for (std::uint32_t k = 0; k < d.triangle_count; ++k) {
        const TriangleRecord r = checked_record(d, k);
        if (triangle_seen[r.index]) corrupt("a triangle stored twice");
        triangle_seen[r.index] = 1;
        mesh.triangles[r.index] = {d.id(r.v0), d.id(r.v1), d.id(r.v2)};
      }
    }
    if (std::find(vertex_seen.begin(), vertex_seen.end(), 0) != vertex_seen.end())
      corrupt("a vertex missing");
    if (std::find(triangle_seen.begin(), triangle_seen.end(), 0) != triangle_seen.end())
      corrupt("a triangle missing");
  }

  // crop_terrain_mesh(whole, keep): the triangles touching `keep`, in mesh order, vertices
  // numbered by first use; without `normals`, no vertex normals.
  void crop(const core::XzBox& keep, core::TerrainMesh& mesh, const core::ParallelRunner* runner,
            bool normals) {
    std::vector<TileData> read;
    const KeptTriangles kept_items = kept_triangles(keep, read, runner, normals);
    const std::span<const KeptTriangle> kept = kept_items.view();
    std::uint32_t lo = kUnset, hi = 0;
    for (const TileData& d : read) lo = std::min(lo, d.min_id), hi = std::max(hi, d.max_id);
    VertexRemap remap(lo, hi, 3 * kept.size());
    mesh.triangles.reserve(kept.size());
    mesh.vertices.reserve(kept.size() + 16);  // a grid's part: about half as many vertices
    if (normals && h_.has_normals) mesh.vertex_normals.reserve(kept.size() + 16);
    if (remap.dense())
      add_in_mesh_order<true>(kept, read, remap, mesh);
    else
      add_in_mesh_order<false>(kept, read, remap, mesh);
  }

  // Appends `kept` (read from `read`) to `mesh` in mesh order, their vertices numbered by first
  // use through `remap` (dense: Dense).
  template <bool Dense>
  void add_in_mesh_order(std::span<const KeptTriangle> kept, const std::vector<TileData>& read,
                         VertexRemap& remap, core::TerrainMesh& mesh) const {
    for_each_in_mesh_order(kept, [&](const KeptTriangle& t) {
      const TileData& d = read[t.tile];
      auto vertex = [&](std::uint32_t local) {
        std::uint32_t& slot = remap.find_or_add<Dense>(d.id(local));
        if (slot == kUnset) {
          slot = static_cast<std::uint32_t>(mesh.vertices.size());
          mesh.vertices.push_back(TileData::vec3(d.positions, local));
          if (d.normals) mesh.vertex_normals.push_back(TileData::vec3(d.normals, local));
        }
        return slot;
      };
      const std::uint32_t a = vertex(t.v0), b = vertex(t.v1), c = vertex(t.v2);
      mesh.triangles.push_back({a, b, c});
    });
  }

  // Calls visit(t) for each of `kept` in ascending mesh index; a triangle kept twice is
  // corrupt. Through a bit per index of the kept indices' range when it is dense enough (a part
  // of a mesh numbered row by row): each kept triangle's rank is the bits set before its own.
  // Else sorted.
  template <typename Visit>
  void for_each_in_mesh_order(std::span<const KeptTriangle> kept, Visit&& visit) const {
    std::uint32_t lo = kUnset, hi = 0;
    for (const KeptTriangle& t : kept) lo = std::min(lo, t.index), hi = std::max(hi, t.index);
    if (kept.empty()) return;
    if (std::size_t{hi - lo} / 64 < 4 * kept.size()) {
      std::vector<std::uint64_t> present(std::size_t{hi - lo} / 64 + 1, 0);
      for (const KeptTriangle& t : kept) {
        const std::uint32_t i = t.index - lo;
        const std::uint64_t bit = std::uint64_t{1} << (i & 63u);
        if (present[i >> 6] & bit) corrupt("a triangle stored twice");
        present[i >> 6] |= bit;
      }
      std::vector<std::uint32_t> before(present.size());  // bits set in the words before
      std::uint32_t count = 0;
      for (std::size_t w = 0; w < present.size(); ++w)
        before[w] = count, count += bits_set(present[w]);
      // Every slot written by rank_kept (the ranks are 0..size-1): not zeroed first.
      const auto order = std::make_unique_for_overwrite<std::uint32_t[]>(kept.size());
      rank_kept(kept, lo, present, before, {order.get(), kept.size()});
      for (std::size_t j = 0; j < kept.size(); ++j) visit(kept[order[j]]);
      return;
    }
    std::vector<IndexSlot> order(kept.size());
    for (std::size_t k = 0; k < kept.size(); ++k)
      order[k] = {kept[k].index, static_cast<std::uint32_t>(k)};
    sort_by_index(order);
    for (std::size_t k = 0; k < order.size(); ++k) {
      if (k > 0 && order[k].index == order[k - 1].index) corrupt("a triangle stored twice");
      visit(kept[order[k].slot]);
    }
  }

  // The triangles whose horizontal box touches `keep`, from the tiles whose bounds touch it
  // (appended to `read`, checked; their normals only with `normals`), in the tiles' order: the
  // tiles are read on `runner`'s threads, each into its own stretch of the result, and an error is
  // the one of the first tile that has one, as in a loop over the tiles.
  KeptTriangles kept_triangles(const core::XzBox& keep, std::vector<TileData>& read,
                               const core::ParallelRunner* runner, bool normals) {
    std::vector<const TileEntry*> touched;
    std::vector<std::size_t> first{0};  // per touched tile, where its triangles go in `kept`
    for (const TileEntry& t : tiles_)
      if (t.triangle_count > 0 && t.max_x >= keep.min_x && t.min_x <= keep.max_x &&
          t.max_z >= keep.min_z && t.min_z <= keep.max_z)
        touched.push_back(&t), first.push_back(first.back() + t.triangle_count);
    KeptTriangles kept;
    kept.items = std::make_unique_for_overwrite<KeptTriangle[]>(first.back());
    read.resize(touched.size());
    auto read_tile = [&](std::size_t k, KeptTriangle* out) {
      read[k] = tile_data(*touched[k], normals);
      return keep_from_tile(keep, *touched[k], read[k], static_cast<std::uint32_t>(k), out);
    };
    if (!runner || runner->threads() < 2) {
      for (std::size_t k = 0; k < touched.size(); ++k)
        kept.size += read_tile(k, kept.items.get() + kept.size);
      return kept;
    }
    std::vector<std::size_t> count(touched.size());
    for_each_block(runner, static_cast<int>(touched.size()),
                   [&](int k) { count[k] = read_tile(k, kept.items.get() + first[k]); });
    for (std::size_t k = 0; k < touched.size(); ++k) {  // closes the gaps, moving down
      const KeptTriangle* from = kept.items.get() + first[k];
      std::copy(from, from + count[k], kept.items.get() + kept.size);
      kept.size += count[k];
    }
    return kept;
  }

  // Writes to `out` the triangles of tile `t` (read as `d`, slot `slot` of the tiles read) whose
  // horizontal box touches `keep`, checked; returns how many. A tile whose bounds lie inside
  // `keep` is taken whole without looking at its triangles' corners.
  std::size_t keep_from_tile(const core::XzBox& keep, const TileEntry& t, const TileData& d,
                             std::uint32_t slot, KeptTriangle* out) const {
    const bool inside = t.min_x >= keep.min_x && t.max_x <= keep.max_x && t.min_z >= keep.min_z &&
                        t.max_z <= keep.max_z;
    std::size_t n = 0;
    for (std::uint32_t k = 0; k < d.triangle_count; ++k) {
      const TriangleRecord r = checked_record(d, k);
      if (!inside) {
        const Vec3 a = TileData::vec3(d.positions, r.v0), b = TileData::vec3(d.positions, r.v1),
                   c = TileData::vec3(d.positions, r.v2);
        if (std::max({a.x, b.x, c.x}) < keep.min_x || std::min({a.x, b.x, c.x}) > keep.max_x ||
            std::max({a.z, b.z, c.z}) < keep.min_z || std::min({a.z, b.z, c.z}) > keep.max_z)
          continue;
      }
      out[n++] = {r.index, slot, r.v0, r.v1, r.v2};
    }
    return n;
  }

  std::string file_;
  MappedFile mapped_;
  std::string_view bytes_;
  Header h_{};
  std::vector<TileEntry> tiles_;
};

}  // namespace

std::uint64_t prepared_checksum(const void* data, std::size_t size) {
  // Four lanes, word k of each 32-byte group into lane k: four independent multiply chains
  // (one chain's latency, not the loop, bounded a single lane), each seeded apart so that
  // words swapped between lanes change the sum. The words and bytes past the last group go
  // into lane 0; the lanes are folded in order.
  constexpr std::uint64_t kOdd = 0x9e3779b97f4a7c15ull;
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h0 = mix(size + kOdd), h1 = mix(size + 2 * kOdd), h2 = mix(size + 3 * kOdd),
                h3 = mix(size + 4 * kOdd);
  for (; size >= 32; p += 32, size -= 32) {
    std::uint64_t w[4];
    std::memcpy(w, p, sizeof w);
    h0 = (std::rotl(h0, 29) ^ w[0]) * kOdd, h1 = (std::rotl(h1, 29) ^ w[1]) * kOdd;
    h2 = (std::rotl(h2, 29) ^ w[2]) * kOdd, h3 = (std::rotl(h3, 29) ^ w[3]) * kOdd;
  }
  for (; size >= 8; p += 8, size -= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    h0 = (std::rotl(h0, 29) ^ word) * kOdd;
  }
  for (; size > 0; ++p, --size) h0 = (std::rotl(h0, 29) ^ *p) * kOdd;
  return mix(mix(mix(mix(h0) ^ h1) ^ h2) ^ h3);
}

bool is_prepared_terrain(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return ext == ".ikterrain";
}

void save_prepared_terrain(const std::filesystem::path& path, const core::TerrainMesh& mesh) {
  const std::string file = path.string();
  check_mesh(file, mesh);
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kPreparedTerrainVersion;
  h.header_bytes = sizeof(Header);
  h.vertex_count = mesh.vertices.size();
  h.triangle_count = mesh.triangles.size();
  h.has_normals = mesh.vertex_normals.empty() ? 0 : 1;
  Vec3 lo(std::numeric_limits<double>::infinity()), hi(-std::numeric_limits<double>::infinity());
  for (const Vec3& v : mesh.vertices) lo = glm::min(lo, v), hi = glm::max(hi, v);
  for (int k = 0; k < 3; ++k) h.bounds_min[k] = lo[k], h.bounds_max[k] = hi[k];
  const Tiling tiling = make_tiling(lo, hi, mesh.triangles.size());
  h.tile_columns = tiling.columns, h.tile_rows = tiling.rows;
  h.tile_origin_x = tiling.origin_x, h.tile_origin_z = tiling.origin_z;
  h.tile_size_x = tiling.size_x, h.tile_size_z = tiling.size_z;
  std::vector<TriangleRecord> records;
  std::vector<TileEntry> tiles;
  std::vector<Run> triangle_runs, unused_runs;
  assign_triangles(mesh, tiling, records, tiles, triangle_runs);
  std::vector<std::uint32_t> unused;
  unused_vertices(mesh, tiling, unused, unused_runs);
  h.tile_table_offset = sizeof(Header);
  h.tiles_offset = h.tile_table_offset + tiles.size() * sizeof(TileEntry);
  TileWriter writer(mesh, h.tiles_offset);
  for (std::uint32_t k = 0; k < tiles.size(); ++k)
    writer.add(k, std::span(records).subspan(triangle_runs[k].first, triangle_runs[k].count),
               std::span(unused).subspan(unused_runs[k].first, unused_runs[k].count), tiles[k]);
  h.file_bytes = h.tiles_offset + writer.data().size();
  h.tile_table_checksum = prepared_checksum(tiles.data(), tiles.size() * sizeof(TileEntry));
  h.header_checksum = prepared_checksum(&h, sizeof h);
  const std::array<std::string_view, 3> pieces = {
      std::string_view(reinterpret_cast<const char*>(&h), sizeof h), bytes_of(tiles),
      bytes_of(writer.data())};
  write_file_atomic(path, pieces);
}

TerrainRead load_prepared_terrain(const std::filesystem::path& path,
                                  const std::optional<core::XzBox>& keep_ws, int threads,
                                  bool normals, const core::ParallelRunner* runner) {
  PreparedReader reader(path);
  std::optional<core::ThreadPool> pool;
  const bool worth_threads = keep_ws && reader.file_bytes() >= (2u << 20);
  return reader.read(keep_ws, reader_threads(runner, threads, worth_threads, pool), normals);
}

}  // namespace ikfix::io
