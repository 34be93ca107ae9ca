#include "io/prepared_terrain.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/mapped_file.hpp"

namespace ikfix::io {

static_assert(std::endian::native == std::endian::little,
              "the prepared terrain is written and mapped as little-endian");

namespace {

using core::Vec3;

constexpr char kMagic[8] = {'I', 'K', 'T', 'E', 'R', 'R', 'A', '\x1a'};
constexpr std::uint32_t kVerticesPerBlock = 1u << 16;
constexpr std::size_t kTrianglesPerTile = 2048;
constexpr std::uint32_t kMaxTilesPerSide = 1024;

// The file's first 256 bytes. Offsets are bytes from the file's start, all multiples of 8.
struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t header_bytes;  // sizeof(Header)
  std::uint64_t file_bytes;
  std::uint64_t vertex_count;
  std::uint64_t triangle_count;
  std::uint32_t has_normals;  // 1: a normal per vertex follows the positions
  std::uint32_t vertices_per_block;
  std::uint32_t tile_columns, tile_rows;
  double bounds_min[3], bounds_max[3];  // of every vertex, world metres
  double tile_origin_x, tile_origin_z, tile_size_x, tile_size_z;
  std::uint64_t block_table_offset, tile_table_offset, positions_offset, normals_offset,
      triangles_offset;
  std::uint64_t block_table_checksum, tile_table_checksum;
  std::uint64_t header_checksum;  // of these 256 bytes with this field 0
  char reserved[56];
};
static_assert(sizeof(Header) == 256);

// Per block of kVerticesPerBlock vertices: checksums of its positions and normals (0: none).
struct BlockEntry {
  std::uint64_t positions_checksum, normals_checksum;
};

// Per tile (row-major, x fastest): the horizontal bounds of its triangles (empty: +inf..-inf),
// its run of triangle records and their checksum. A triangle belongs to the tile holding the
// centre of its horizontal bounding box.
struct TileEntry {
  double min_x, min_z, max_x, max_z;
  std::uint64_t first, count;
  std::uint64_t checksum;
};
static_assert(sizeof(TileEntry) == 56);

// A triangle in a tile: its index in the mesh and its three vertex indices.
struct TriangleRecord {
  std::uint32_t index, v0, v1, v2;
};

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

// The triangles bucketed by tile (counting sort: each tile's run in mesh order) and the tiles.
void build_tiles(const core::TerrainMesh& mesh, const Tiling& tiling,
                 std::vector<TriangleRecord>& records, std::vector<TileEntry>& tiles) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  tiles.assign(std::size_t{tiling.columns} * tiling.rows,
               TileEntry{kInf, kInf, -kInf, -kInf, 0, 0, 0});
  std::vector<std::uint32_t> tile_of(mesh.triangles.size());
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    const Vec3 &a = mesh.vertices[tri[0]], &b = mesh.vertices[tri[1]], &c = mesh.vertices[tri[2]];
    const double lo_x = std::min({a.x, b.x, c.x}), hi_x = std::max({a.x, b.x, c.x});
    const double lo_z = std::min({a.z, b.z, c.z}), hi_z = std::max({a.z, b.z, c.z});
    TileEntry& tile = tiles[tile_of[t] = tiling.tile_of(0.5 * (lo_x + hi_x), 0.5 * (lo_z + hi_z))];
    tile.min_x = std::min(tile.min_x, lo_x), tile.max_x = std::max(tile.max_x, hi_x);
    tile.min_z = std::min(tile.min_z, lo_z), tile.max_z = std::max(tile.max_z, hi_z);
    ++tile.count;
  }
  std::uint64_t first = 0;
  for (TileEntry& tile : tiles) tile.first = first, first += tile.count, tile.count = 0;
  records.resize(mesh.triangles.size());
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    TileEntry& tile = tiles[tile_of[t]];
    const auto& tri = mesh.triangles[t];
    records[tile.first + tile.count++] = {static_cast<std::uint32_t>(t), tri[0], tri[1], tri[2]};
  }
  for (TileEntry& tile : tiles)
    tile.checksum =
        prepared_checksum(records.data() + tile.first, tile.count * sizeof(TriangleRecord));
}

std::vector<BlockEntry> block_checksums(const core::TerrainMesh& mesh) {
  std::vector<BlockEntry> blocks((mesh.vertices.size() + kVerticesPerBlock - 1) /
                                 kVerticesPerBlock);
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const std::size_t first = b * kVerticesPerBlock;
    const std::size_t n = std::min<std::size_t>(kVerticesPerBlock, mesh.vertices.size() - first);
    blocks[b].positions_checksum = prepared_checksum(&mesh.vertices[first], n * sizeof(Vec3));
    blocks[b].normals_checksum =
        mesh.vertex_normals.empty()
            ? 0
            : prepared_checksum(&mesh.vertex_normals[first], n * sizeof(Vec3));
  }
  return blocks;
}

// Records into ascending triangle index: two stable 16-bit counting passes (linear; a crop
// holds hundreds of thousands of records).
void sort_by_index(std::vector<TriangleRecord>& records) {
  std::vector<TriangleRecord> scratch(records.size());
  for (const int shift : {0, 16}) {
    std::vector<std::size_t> start((1u << 16) + 1, 0);
    for (const TriangleRecord& r : records) ++start[((r.index >> shift) & 0xffffu) + 1];
    for (std::size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
    for (const TriangleRecord& r : records) scratch[start[(r.index >> shift) & 0xffffu]++] = r;
    records.swap(scratch);
  }
}

// File vertex index -> crop vertex index. A table over the range of indices the kept
// triangles use when that range is dense (a crop of a mesh numbered row by row spans a few of
// its rows, read nearly in order: hashing them cost cache misses), else open addressing.
class VertexRemap {
 public:
  static constexpr std::uint32_t kUnset = std::numeric_limits<std::uint32_t>::max();
  explicit VertexRemap(const std::vector<TriangleRecord>& kept) {
    std::uint32_t lo = kUnset, hi = 0;
    for (const TriangleRecord& r : kept)
      lo = std::min({lo, r.v0, r.v1, r.v2}), hi = std::max({hi, r.v0, r.v1, r.v2});
    const std::size_t corners = 3 * kept.size();
    if (!kept.empty() && std::size_t{hi - lo} < 8 * corners + 65536) {
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
  // The value slot of `key`: kUnset when the key is new (the caller sets it).
  std::uint32_t& find_or_add(std::uint32_t key) {
    if (!dense_.empty()) return dense_[key - first_];
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

// A mapped prepared terrain, its header and tables checked; the blocks and tiles are checked
// when first read.
class PreparedReader {
 public:
  explicit PreparedReader(const std::filesystem::path& path)
      : file_(path.string()), mapped_(path), bytes_(mapped_.text()) {
    check_header();
    blocks_ = table<BlockEntry>(h_.block_table_offset, block_count(), h_.block_table_checksum);
    tiles_ = table<TileEntry>(h_.tile_table_offset, std::size_t{h_.tile_columns} * h_.tile_rows,
                              h_.tile_table_checksum);
    block_checked_.assign(block_count(), 0);
    for (const TileEntry& t : tiles_)
      if (t.first > h_.triangle_count || t.count > h_.triangle_count - t.first)
        corrupt("a tile's triangles lie outside the file");
  }

  TerrainRead read(const std::optional<core::XzBox>& keep) {
    TerrainRead out;
    if (!keep) {
      whole(out.mesh);
      return out;
    }
    crop(*keep, out.mesh);
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
  std::size_t block_count() const {
    return static_cast<std::size_t>((h_.vertex_count + kVerticesPerBlock - 1) / kVerticesPerBlock);
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
                                  std::to_string(kPreparedTerrainVersion) + ": prepare it again");
    Header zeroed = h_;
    zeroed.header_checksum = 0;
    if (prepared_checksum(&zeroed, sizeof zeroed) != h_.header_checksum) corrupt("header checksum");
    if (h_.file_bytes != bytes_.size())
      throw InputError(file_, "truncated prepared terrain (" + std::to_string(bytes_.size()) +
                                  " bytes of " + std::to_string(h_.file_bytes) +
                                  "): prepare it again");
    const std::uint64_t vertex_bytes = h_.vertex_count * sizeof(Vec3);
    if (h_.header_bytes != sizeof(Header) || h_.vertices_per_block != kVerticesPerBlock ||
        h_.vertex_count >= std::numeric_limits<std::uint32_t>::max() ||
        h_.triangle_count >= std::numeric_limits<std::uint32_t>::max() || h_.tile_columns == 0 ||
        h_.tile_rows == 0 || h_.tile_columns > kMaxTilesPerSide ||
        h_.tile_rows > kMaxTilesPerSide ||
        h_.normals_offset != h_.positions_offset + vertex_bytes ||
        h_.triangles_offset != h_.normals_offset + (h_.has_normals ? vertex_bytes : 0) ||
        h_.file_bytes != h_.triangles_offset + h_.triangle_count * sizeof(TriangleRecord))
      corrupt("inconsistent header");
  }

  template <typename T>
  std::vector<T> table(std::uint64_t offset, std::size_t count, std::uint64_t checksum) const {
    if (offset > bytes_.size() || count * sizeof(T) > bytes_.size() - offset)
      corrupt("a table lies outside the file");
    std::vector<T> out(count);
    std::memcpy(out.data(), bytes_.data() + offset, count * sizeof(T));
    if (prepared_checksum(out.data(), count * sizeof(T)) != checksum) corrupt("table checksum");
    return out;
  }

  void check_block(std::size_t b) {
    if (block_checked_[b]) return;
    const std::size_t first = b * kVerticesPerBlock;
    const std::size_t n = std::min<std::size_t>(kVerticesPerBlock, h_.vertex_count - first);
    const char* positions = bytes_.data() + h_.positions_offset + first * sizeof(Vec3);
    if (prepared_checksum(positions, n * sizeof(Vec3)) != blocks_[b].positions_checksum)
      corrupt("vertex checksum");
    if (h_.has_normals) {
      const char* normals = bytes_.data() + h_.normals_offset + first * sizeof(Vec3);
      if (prepared_checksum(normals, n * sizeof(Vec3)) != blocks_[b].normals_checksum)
        corrupt("normal checksum");
    }
    block_checked_[b] = 1;
  }
  Vec3 vec3_at(std::uint64_t offset, std::uint32_t v) const {
    Vec3 out;
    std::memcpy(&out, bytes_.data() + offset + std::size_t{v} * sizeof(Vec3), sizeof out);
    return out;
  }
  Vec3 position(std::uint32_t v) {
    check_block(v / kVerticesPerBlock);
    return vec3_at(h_.positions_offset, v);
  }

  // The tile's records, checked (checksum, indices in range).
  std::vector<TriangleRecord> tile_records(const TileEntry& t) const {
    std::vector<TriangleRecord> out(t.count);
    std::memcpy(out.data(), bytes_.data() + h_.triangles_offset + t.first * sizeof(TriangleRecord),
                out.size() * sizeof(TriangleRecord));
    if (prepared_checksum(out.data(), out.size() * sizeof(TriangleRecord)) != t.checksum)
      corrupt("triangle checksum");
    for (const TriangleRecord& r : out)
      if (r.index >= h_.triangle_count || r.v0 >= h_.vertex_count || r.v1 >= h_.vertex_count ||
          r.v2 >= h_.vertex_count)
        corrupt("an index out of range");
    return out;
  }

  void whole(core::TerrainMesh& mesh) {
    for (std::size_t b = 0; b < block_count(); ++b) check_block(b);
    mesh.vertices.resize(h_.vertex_count);
    std::memcpy(mesh.vertices.data(), bytes_.data() + h_.positions_offset,
                h_.vertex_count * sizeof(Vec3));
    if (h_.has_normals) {
      mesh.vertex_normals.resize(h_.vertex_count);
      std::memcpy(mesh.vertex_normals.data(), bytes_.data() + h_.normals_offset,
                  h_.vertex_count * sizeof(Vec3));
    }
    mesh.triangles.resize(h_.triangle_count);
    std::vector<char> seen(h_.triangle_count, 0);
    for (const TileEntry& t : tiles_)
      for (const TriangleRecord& r : tile_records(t)) {
        if (seen[r.index]) corrupt("a triangle stored twice");
        seen[r.index] = 1;
        mesh.triangles[r.index] = {r.v0, r.v1, r.v2};
      }
    if (std::find(seen.begin(), seen.end(), 0) != seen.end()) corrupt("a triangle missing");
  }

  // crop_terrain_mesh(whole, keep): the triangles touching `keep`, in mesh order, vertices
  // numbered by first use.
  void crop(const core::XzBox& keep, core::TerrainMesh& mesh) {
    std::vector<TriangleRecord> kept = kept_records(keep);
    sort_by_index(kept);
    VertexRemap remap(kept);
    auto vertex = [&](std::uint32_t v) {
      std::uint32_t& slot = remap.find_or_add(v);
      if (slot == VertexRemap::kUnset) {
        slot = static_cast<std::uint32_t>(mesh.vertices.size());
        mesh.vertices.push_back(vec3_at(h_.positions_offset, v));
        if (h_.has_normals) mesh.vertex_normals.push_back(vec3_at(h_.normals_offset, v));
      }
      return slot;
    };
    mesh.triangles.reserve(kept.size());
    for (std::size_t k = 0; k < kept.size(); ++k) {
      if (k > 0 && kept[k].index == kept[k - 1].index) corrupt("a triangle stored twice");
      const std::uint32_t a = vertex(kept[k].v0), b = vertex(kept[k].v1), c = vertex(kept[k].v2);
      mesh.triangles.push_back({a, b, c});
    }
  }

  // The records of the triangles whose horizontal box touches `keep`, their vertex blocks
  // checked. A tile whose bounds lie inside `keep` is taken whole without looking at its
  // triangles' corners.
  std::vector<TriangleRecord> kept_records(const core::XzBox& keep) {
    std::vector<TriangleRecord> kept;
    for (const TileEntry& t : tiles_) {
      if (t.count == 0 || t.max_x < keep.min_x || t.min_x > keep.max_x || t.max_z < keep.min_z ||
          t.min_z > keep.max_z)
        continue;
      const bool inside = t.min_x >= keep.min_x && t.max_x <= keep.max_x && t.min_z >= keep.min_z &&
                          t.max_z <= keep.max_z;
      for (const TriangleRecord& r : tile_records(t)) {
        if (inside) {
          for (const std::uint32_t v : {r.v0, r.v1, r.v2}) check_block(v / kVerticesPerBlock);
          kept.push_back(r);
          continue;
        }
        const Vec3 a = position(r.v0), b = position(r.v1), c = position(r.v2);
        if (std::max({a.x, b.x, c.x}) < keep.min_x || std::min({a.x, b.x, c.x}) > keep.max_x ||
            std::max({a.z, b.z, c.z}) < keep.min_z || std::min({a.z, b.z, c.z}) > keep.max_z)
          continue;
        kept.push_back(r);
      }
    }
    return kept;
  }

  std::string file_;
  MappedFile mapped_;
  std::string_view bytes_;
  Header h_{};
  std::vector<BlockEntry> blocks_;
  std::vector<TileEntry> tiles_;
  std::vector<char> block_checked_;
};

}  // namespace

std::uint64_t prepared_checksum(const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = mix(size + 0x9e3779b97f4a7c15ull);
  for (; size >= 8; p += 8, size -= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    h = (std::rotl(h, 29) ^ word) * 0x9e3779b97f4a7c15ull;
  }
  for (; size > 0; ++p, --size) h = (std::rotl(h, 29) ^ *p) * 0x9e3779b97f4a7c15ull;
  return mix(h);
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
  h.vertices_per_block = kVerticesPerBlock;
  Vec3 lo(std::numeric_limits<double>::infinity()), hi(-std::numeric_limits<double>::infinity());
  for (const Vec3& v : mesh.vertices) lo = glm::min(lo, v), hi = glm::max(hi, v);
  for (int k = 0; k < 3; ++k) h.bounds_min[k] = lo[k], h.bounds_max[k] = hi[k];
  const Tiling tiling = make_tiling(lo, hi, mesh.triangles.size());
  h.tile_columns = tiling.columns, h.tile_rows = tiling.rows;
  h.tile_origin_x = tiling.origin_x, h.tile_origin_z = tiling.origin_z;
  h.tile_size_x = tiling.size_x, h.tile_size_z = tiling.size_z;
  std::vector<TriangleRecord> records;
  std::vector<TileEntry> tiles;
  build_tiles(mesh, tiling, records, tiles);
  const std::vector<BlockEntry> blocks = block_checksums(mesh);
  h.block_table_offset = sizeof(Header);
  h.tile_table_offset = h.block_table_offset + blocks.size() * sizeof(BlockEntry);
  h.positions_offset = h.tile_table_offset + tiles.size() * sizeof(TileEntry);
  h.normals_offset = h.positions_offset + mesh.vertices.size() * sizeof(Vec3);
  h.triangles_offset = h.normals_offset + mesh.vertex_normals.size() * sizeof(Vec3);
  h.file_bytes = h.triangles_offset + records.size() * sizeof(TriangleRecord);
  h.block_table_checksum = prepared_checksum(blocks.data(), blocks.size() * sizeof(BlockEntry));
  h.tile_table_checksum = prepared_checksum(tiles.data(), tiles.size() * sizeof(TileEntry));
  h.header_checksum = prepared_checksum(&h, sizeof h);
  const std::array<std::string_view, 6> pieces = {
      std::string_view(reinterpret_cast<const char*>(&h), sizeof h),
      bytes_of(blocks),
      bytes_of(tiles),
      bytes_of(mesh.vertices),
      bytes_of(mesh.vertex_normals),
      bytes_of(records)};
  write_file_atomic(path, pieces);
}

TerrainRead load_prepared_terrain(const std::filesystem::path& path,
                                  const std::optional<core::XzBox>& keep_ws) {
  PreparedReader reader(path);
  return reader.read(keep_ws);
}

}  // namespace ikfix::io
