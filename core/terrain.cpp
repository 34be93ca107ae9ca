#include "core/terrain.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/xz_grid.hpp"

namespace ikfix::core {

namespace {

// A triangle whose unit normal has |y| at or below this is vertical for a vertical ray: it can
// only be grazed, never stood on, so it is left out of the query structures.
constexpr double kVerticalNormalY = 1e-12;

// No prim: a miss.
constexpr unsigned kInvalidId = std::numeric_limits<unsigned>::max();

// At most this many scene tiles (SceneTiles), whatever the triangle count.
constexpr double kMaxSceneTiles = 1 << 18;

}  // namespace

// What a query needs of one scene primitive, gathered once at build time: a hit then reads one
// 128-byte record (two adjacent cache lines) instead of the triangle's indices and three
// vertices scattered over the mesh, and finds its plane normal and face normal computed.
// Every value is computed by exactly the operations the queries used to perform on the mesh,
// so answers are bit for bit the same. Cost: 128 bytes per ground triangle (12.8 MB and ~8 ms
// of first-touch page faults at build for a 100k-triangle terrain, measured), paid once per
// process; queries on random points got ~15-20% faster, the fix on a 100k grid ~3.5%.
struct alignas(64) GroundPrim {
  // First line: everything well_inside reads (the horizontal projection), plus a.y, n.y.
  double ax, az, bx, bz, cx, cz;
  double ay;
  double ny;
  // Second line: the rest of the plane, its height range, and the face normal.
  double nx, nz;  // n = cross(b - a, c - a), n.y above
  double min_y, max_y;
  Vec3 face_normal;        // normalize(n) turned to face up
  std::uint32_t triangle;  // index into mesh.triangles
  bool ccw;                // the horizontal projection a, b, c turns counter-clockwise (x to z)
};
static_assert(sizeof(GroundPrim) == 128, "a GroundPrim should fill exactly two cache lines");

// Whether keep(d, ex, ez) holds for every edge (ex, ez) of g's horizontal projection, where d is
// the signed distance of (x, z) to the edge's line (positive inside) times the edge's length:
// the tests of a point against a triangle, compared without a sqrt.
template <typename Keep>
bool every_edge(const GroundPrim& g, double x, double z, Keep&& keep) {
  const double vx[3] = {g.ax, g.bx, g.cx};
  const double vz[3] = {g.az, g.bz, g.cz};
  const double sign = g.ccw ? 1.0 : -1.0;
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3;
    const double ex = vx[j] - vx[i], ez = vz[j] - vz[i];
    if (!keep(sign * (ex * (z - vz[i]) - ez * (x - vx[i])), ex, ez)) return false;
  }
  return true;
}

// The query structure ("scene") over the ground triangles whose horizontal bounding box touches
// the rectangle [min_x, max_x] x [min_z, max_z] (world metres): one tile of SceneTiles grown by
// its margin, or the whole mesh. Every point a query is asked at lies inside the rectangle by
// more than the nudges of an edge case, so every triangle holding it, and every triangle the
// edge search can pick, is in the scene: the answers are those of a scene over the whole
// terrain (same prims in the same order, mesh order, which also breaks ties).
struct GroundScene {
  // Prim id -> its query record, in ascending mesh triangle order.
  std::vector<GroundPrim> prims;
  // The prims by horizontal bounds (ids ascending in each cell): a vertical cast visits the few
  // in the cell under its point, the edge search those within its nudges.
  XzGrid grid;
  // Per prim, found on first use (Terrain::Impl::alone): kUnknown, kAlone (no other prim's
  // horizontal projection overlaps its own) or kCovered.
  enum : std::uint8_t { kUnknown = 0, kAlone = 1, kCovered = 2 };
  std::unique_ptr<std::atomic<std::uint8_t>[]> alone_state;

  const XzGrid& near_grid() const { return grid; }
};

// A grid of square tiles over the mesh's horizontal bounds (or the part held), each listing the
// ground triangles whose box touches the tile grown by `margin` (ascending). A query point takes
// the scene of the tile holding it (a point outside the grid: the nearest tile), built on the first
// query there: a clip's feet reach a few tiles of a level, and the scene a point gets does not
// depend on the order or the threads of the queries.
struct SceneTiles {
  double origin_x = 0.0, origin_z = 0.0;  // world metres
  double size = 1.0;                      // tile side, metres
  double inv_size = 1.0;                  // 1 / size
  double margin = 0.0;                    // metres a tile's scene reaches past the tile
  int columns = 0, rows = 0;
  // The ground triangles of a tile are listed on its first use (Terrain::Impl::tile_triangles),
  // from the blocks of `block` consecutive mesh triangles listed under it: every tile the box of
  // a block's vertices, grown by the margin, reaches.
  std::uint32_t block = 1;                   // mesh triangles per block
  std::vector<std::uint32_t> block_start;    // columns * rows + 1 offsets into `blocks`
  std::vector<std::uint32_t> blocks;         // per tile, the blocks reaching it, ascending
  std::unique_ptr<std::once_flag[]> listed;  // per tile: its list made
  std::unique_ptr<std::vector<std::uint32_t>[]> triangles;  // per tile: its ground, ascending
  // Per tile: its scene once built (owned by Terrain::Impl::scenes), else null.
  std::unique_ptr<std::atomic<const GroundScene*>[]> built;

  std::size_t tile_of(double x, double z) const {
    if (columns == 1 && rows == 1) return 0;  // a small terrain: no conversion per point
    return std::size_t{row_of(z)} * static_cast<std::size_t>(columns) + column_of(x);
  }
  std::uint32_t column_of(double x) const { return cell((x - origin_x) * inv_size, columns); }
  std::uint32_t row_of(double z) const { return cell((z - origin_z) * inv_size, rows); }
  // floor(u) clamped to [0, count - 1] (NaN: 0); below 1 or from count - 1 on no conversion is
  // needed, and in between floor is truncation.
  static std::uint32_t cell(double u, int count) {
    if (!(u >= 1.0)) return 0;
    if (u >= static_cast<double>(count - 1)) return static_cast<std::uint32_t>(count - 1);
    return static_cast<std::uint32_t>(u);
  }
  // The first and last column and row of the tiles the box [min_x, max_x] x [min_z, max_z]
  // (world metres) grown by the margin reaches: {column, row, column, row}.
  std::array<std::uint32_t, 4> reach(double min_x, double min_z, double max_x, double max_z) const {
    return {column_of(min_x - margin), row_of(min_z - margin), column_of(max_x + margin),
            row_of(max_z + margin)};
  }
};

// Horizontal rectangle of query points, world metres (empty: min > max).
struct QueryRect {
  double min_x = std::numeric_limits<double>::infinity();
  double min_z = std::numeric_limits<double>::infinity();
  double max_x = -std::numeric_limits<double>::infinity();
  double max_z = -std::numeric_limits<double>::infinity();
  bool empty() const { return min_x > max_x; }
  void add(double x, double z) {
    min_x = std::min(min_x, x), max_x = std::max(max_x, x);
    min_z = std::min(min_z, z), max_z = std::max(max_z, z);
  }
};

// Per cell of a square grid over the ground, an upper and a lower bound of every height a query
// in the cell can answer (Terrain::ground_ceiling, Terrain::ground_floor). The cells divide each
// scene tile (SceneTiles) into per_tile x per_tile, so a cell's candidate triangles are its tile's
// list; they are found a block of up to kBlock x kBlock cells of one tile at a time, on the first
// ask of a cell there.
struct CeilingGrid {
  static constexpr int kCellsAlong = 256;  // about this many, along the longer side
  static constexpr int kBlock = 8;         // cells along a block's side, at most
  double origin_x = 0.0, origin_z = 0.0;   // world metres: the scene tiles' origin
  double inv_cell = 1.0;                   // 1 / cell side
  double cell = 1.0;                       // cell side, metres: a scene tile's side / per_tile
  int per_tile = 1;                        // cells along a scene tile's side
  int columns = 1, rows = 1;               // scene tile columns (rows) x per_tile
  // Per cell: 1 once its bounds are stored (release, after them), else 0.
  std::unique_ptr<std::atomic<std::uint8_t>[]> known;
  // Per cell: its upper and lower bounds, unwritten until `known` is set (the set-up zero fills
  // a byte a cell, not two doubles); read through std::atomic_ref once that is seen (acquire).
  std::unique_ptr<double[]> upper, lower;
};

struct Terrain::Impl {
  TerrainMesh mesh;
  TerrainOptions options;
  bool smooth = false;  // smooth_normals requested and vertex normals present
  Vec3 bounds_min{0.0};
  Vec3 bounds_max{0.0};
  // Edge tolerances, metres (see the class comment's "How"): a point closer than
  // edge_band to the edge of the triangle holding it, or held by none inside the bounds, is
  // answered by the topmost triangle within `nudge` of it or of its four diagonal nudges.
  double edge_band = 0.0;
  double nudge = 0.0;
  // How many mesh triangles a vertical ray can land on (is_ground), counted on first ask.
  mutable std::once_flag ground_count_once;
  mutable std::size_t ground_count = 0;

  // Scenes are built on first use, one per tile the queries reach (SceneTiles; or one over
  // the whole mesh without tiles). A scene once published is never freed before the terrain: a
  // thread may still be querying it.
  mutable std::once_flag tiles_once;
  mutable SceneTiles tiles;  // set up on the first query
  // A tile's scene is built under the mutex of its stripe (tile % kBuildStripes), so that
  // threads whose queries reach different tiles build them at the same time.
  static constexpr std::size_t kBuildStripes = 64;
  mutable std::array<std::mutex, kBuildStripes> build_mutex;
  mutable std::mutex scenes_mutex;
  mutable std::vector<std::unique_ptr<GroundScene>> scenes;  // guarded by scenes_mutex
  mutable std::once_flag ceiling_once;
  mutable CeilingGrid ceiling;  // set up on the first ground_ceiling
  const CeilingGrid& ceiling_grid() const;
  void list_ceiling(CeilingGrid& c) const;
  void fill_ceiling_block(const CeilingGrid& c, int column, int row) const;
  double ground_ceiling(const CeilingGrid& c, double x, double z) const;
  double ground_floor(const CeilingGrid& c, double x, double z) const;
  // The index of the cell of c holding (x, z), its bounds found: the caller has found that a
  // query there may hit and lies in the part held.
  std::size_t known_cell(const CeilingGrid& c, double x, double z) const;

  // Checks the mesh and finds its bounds (and the whole mesh's, with a crop); the errors in the
  // order: vertices, normals, triangles, crop.
  void validate_and_bound();
  // Checks each triangle's vertex indices.
  void check_triangles() const;
  // Whether a vertical ray can land on mesh triangle t (neither zero-area nor vertical): only
  // such triangles are in the scenes.
  bool is_ground(std::size_t t) const;
  // Throws when a whole mesh has no ground triangle.
  void require_ground() const;
  // The tiles, set up on first use; a tile's ground triangles, listed on its first use.
  const SceneTiles& scene_tiles() const;
  void list_tiles(SceneTiles& t) const;
  // Lists every block of `block` consecutive mesh triangles under the tiles it reaches.
  void index_blocks(SceneTiles& t, std::uint32_t block) const;
  std::span<const std::uint32_t> tile_triangles(std::size_t tile) const;
  void list_tile(const SceneTiles& t, std::size_t tile) const;
  // The scene of tile `tile`, built on first use.
  const GroundScene& tile_scene(std::size_t tile) const;
  // Throws TerrainPartTooSmall unless every point of `rect` lies kTerrainCropMargin inside the
  // part held.
  void require_served(const QueryRect& rect) const {
    require_held(rect.min_x - kTerrainCropMargin, rect.min_z - kTerrainCropMargin,
                 rect.max_x + kTerrainCropMargin, rect.max_z + kTerrainCropMargin,
                 "a ground query");
  }
  std::unique_ptr<GroundScene> build_scene(std::span<const std::uint32_t> triangles) const;
  void gather_prims(std::span<const std::uint32_t> triangles, GroundScene& s) const;
  // The rectangle whose triangles are all in `mesh` (world metres): infinite without a crop,
  // and on each side where the crop reaches the whole mesh's bounds (nothing lies past them).
  QueryRect held;
  void set_held() {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    held.min_x = held.min_z = -kInf;
    held.max_x = held.max_z = kInf;
    if (!options.crop) return;
    const TerrainCrop& c = *options.crop;
    if (c.min_x > bounds_min.x) held.min_x = c.min_x;
    if (c.min_z > bounds_min.z) held.min_z = c.min_z;
    if (c.max_x < bounds_max.x) held.max_x = c.max_x;
    if (c.max_z < bounds_max.z) held.max_z = c.max_z;
  }
  void require_held(double min_x, double min_z, double max_x, double max_z,
                    const char* what) const {
    if (min_x < held.min_x || max_x > held.max_x || min_z < held.min_z || max_z > held.max_z)
      throw TerrainPartTooSmall(std::string("terrain: ") + what +
                                " reaches past the part of the terrain read for the clip");
  }

  // Inside the horizontal bounds and finite (anything else misses without a search).
  bool may_hit(double x, double z) const {
    return x >= bounds_min.x && x <= bounds_max.x && z >= bounds_min.z && z <= bounds_max.z;
  }
  // Height at (x, z) of the plane of scene primitive `prim`, clamped to its height range.
  static double plane_height(const GroundPrim& g, double x, double z);
  // True when (x, z) lies inside prim's horizontal projection by at least edge_band.
  bool well_inside(const GroundPrim& g, double x, double z) const;
  // A vertical cast at world (x, z): the topmost prim of `s` whose horizontal projection holds
  // (x, z) (edges included, in double; of equal heights the first), or kInvalidId.
  unsigned cast(const GroundScene& s, double x, double z) const;
  // True when (x, z) lies inside g's horizontal projection or on its edge.
  static bool inside(const GroundPrim& g, double x, double z);
  // True when (x, z) lies inside g's horizontal projection or within `nudge` of it.
  bool holds(const GroundPrim& g, double x, double z) const;
  // The answer for (x, z) given the prim the cast found (kInvalidId: none): near an edge or on
  // a miss, the topmost prim within `nudge` of (x, z) or of its diagonal nudges decides.
  // Both write every field of `out` in place, one by one: building a GroundHit and copying
  // it reloaded the just-stored bool and int with wider loads (a failed store-to-load
  // forwarding, ~15 cycles each; measured: most of the span query's own time).
  // Returns the prim that answered, or kInvalidId on a miss.
  unsigned resolve(const GroundScene& s, double x, double z, unsigned primary,
                   GroundHit& out) const;
  // Whether no other prim of `s` has a horizontal projection overlapping prim p's (sharing an
  // edge or a vertex is not overlapping): a point well inside p then is held by p and nothing
  // else, so p answers there without a cast. Found on first use, kept per prim.
  bool alone(const GroundScene& s, unsigned p) const;
  // Height and normal at (x, z) on primitive record `g`, in double.
  void finish(const GroundPrim& g, double x, double z, GroundHit& out) const;
  static void miss(GroundHit& out) {
    out.hit = false;
    out.height = 0.0;
    out.normal = Vec3(0.0, 1.0, 0.0);
    out.triangle = -1;
  }
  void query(double x, double z, GroundHit& out) const {
    if (!may_hit(x, z)) return miss(out);
    QueryRect rect;
    rect.add(x, z);
    require_served(rect);
    const GroundScene& s = tile_scene(scene_tiles().tile_of(x, z));
    resolve(s, x, z, cast(s, x, z), out);
  }
  void query_points(std::span<const std::array<double, 2>> xz, std::span<GroundHit> out) const;
};

void Terrain::Impl::validate_and_bound() {
  // A crop may hold nothing (no ground under the clip): every query there misses.
  if (mesh.triangles.empty() && !options.crop)
    throw std::invalid_argument("terrain mesh has no triangles");
  if (mesh.vertices.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("terrain mesh has too many vertices");
  if (!mesh.vertex_normals.empty() && mesh.vertex_normals.size() != mesh.vertices.size())
    throw std::invalid_argument("terrain mesh has " + std::to_string(mesh.vertex_normals.size()) +
                                " vertex normals for " + std::to_string(mesh.vertices.size()) +
                                " vertices");
  bounds_min = Vec3(std::numeric_limits<double>::infinity());
  bounds_max = Vec3(-std::numeric_limits<double>::infinity());
  if (options.crop && mesh.vertices.empty()) bounds_min = bounds_max = options.crop->whole_min;
  for (std::size_t i = 0; i < mesh.vertices.size(); ++i) {  // checked and bounded in one pass
    const Vec3& v = mesh.vertices[i];
    if (!is_finite(v))
      throw std::invalid_argument("terrain mesh vertex " + std::to_string(i) + " is not finite");
    bounds_min = glm::min(bounds_min, v);
    bounds_max = glm::max(bounds_max, v);
  }
  for (std::size_t i = 0; i < mesh.vertex_normals.size(); ++i)
    if (!is_finite(mesh.vertex_normals[i]))
      throw std::invalid_argument("terrain mesh vertex normal " + std::to_string(i) +
                                  " is not finite");
  check_triangles();

  if (options.crop) {  // the part read lies within the whole mesh: take the whole one's frame
    const TerrainCrop& c = *options.crop;
    if (!is_finite(c.whole_min) || !is_finite(c.whole_max) ||
        glm::any(glm::lessThan(bounds_min, c.whole_min)) ||
        glm::any(glm::greaterThan(bounds_max, c.whole_max)) || !(c.min_x <= c.max_x) ||
        !(c.min_z <= c.max_z))
      throw std::invalid_argument("terrain crop: the part read is not inside the whole mesh");
    bounds_min = c.whole_min;
    bounds_max = c.whole_max;
  }
  // The tolerances scale with the (whole) mesh's horizontal half extent, in float ulps
  // (`u` in the class comment): the resolution of coordinates stored in float around the
  // mesh's centre, which a mesh read from a file usually was.
  const Vec3 centre = 0.5 * (bounds_min + bounds_max);
  const double half_extent = std::max({bounds_max.x - centre.x, centre.x - bounds_min.x,
                                       bounds_max.z - centre.z, centre.z - bounds_min.z, 1e-3});
  const double ulp = half_extent * std::numeric_limits<float>::epsilon();
  edge_band = 2.0 * ulp;
  nudge = 4.0 * ulp;
}

void Terrain::Impl::check_triangles() const {
  const std::size_t vertex_count = mesh.vertices.size();
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    for (const std::uint32_t index : mesh.triangles[t])
      if (index >= vertex_count)
        throw std::invalid_argument("terrain mesh triangle " + std::to_string(t) + " uses vertex " +
                                    std::to_string(index) + " of " + std::to_string(vertex_count));
}

bool Terrain::Impl::is_ground(std::size_t t) const {
  const auto& tri = mesh.triangles[t];
  const Vec3 n = glm::cross(mesh.vertices[tri[1]] - mesh.vertices[tri[0]],
                            mesh.vertices[tri[2]] - mesh.vertices[tri[0]]);
  const double len = glm::length(n);
  if (!(len > 0.0) || !std::isfinite(len)) return false;  // zero area (or overflow)
  return !(std::abs(n.y) <= kVerticalNormalY * len);      // vertical: riser, cliff wall
}

void Terrain::Impl::require_ground() const {
  if (options.crop) return;
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    if (is_ground(t)) return;
  throw std::invalid_argument(
      "terrain mesh has no triangle to stand on (all are zero-area or vertical)");
}

const SceneTiles& Terrain::Impl::scene_tiles() const {
  std::call_once(tiles_once, [this] { list_tiles(tiles); });
  return tiles;
}

void Terrain::Impl::list_tiles(SceneTiles& t) const {
  // Over the whole mesh's bounds, or the part held within them: a triangle reaching past it
  // lands in the edge tiles (tile_of clamps).
  const double min_x = std::max(bounds_min.x, held.min_x),
               max_x = std::min(bounds_max.x, held.max_x);
  const double min_z = std::max(bounds_min.z, held.min_z),
               max_z = std::min(bounds_max.z, held.max_z);
  const double width = std::max(max_x - min_x, 0.0), depth = std::max(max_z - min_z, 0.0);
  // Far beyond the edge search's reach (2 nudges, 8 ulps).
  t.margin = 16.0 * nudge;
  // Sized from all the mesh's triangles, not its ground ones, which are found per tile reached
  // (a terrain is mostly ground; the answers do not depend on the tiles).
  const std::size_t per_tile = options.scene_tile_triangles;
  const double tiles_wanted =
      per_tile == 0
          ? 1.0
          : std::clamp(static_cast<double>(mesh.triangles.size()) / static_cast<double>(per_tile),
                       1.0, static_cast<double>(kMaxSceneTiles));
  t.size = std::max(std::sqrt(std::max(width * depth, 1e-12) / tiles_wanted), 1e-6);
  t.columns = static_cast<int>(std::clamp(std::ceil(width / t.size), 1.0, 1024.0));
  t.rows = static_cast<int>(std::clamp(std::ceil(depth / t.size), 1.0, 1024.0));
  t.size = std::max({t.size, width / t.columns, depth / t.rows});
  t.inv_size = 1.0 / t.size;
  t.origin_x = min_x, t.origin_z = min_z;
  // Blocks of consecutive triangles: a mesh numbered row by row puts a block in one or two
  // tiles, so a tile's list scans about its own triangles. In another order (a block reaching
  // many tiles) one triangle a block.
  constexpr std::uint32_t kBlock = 16;
  index_blocks(t, kBlock);
  const std::size_t tile_count = static_cast<std::size_t>(t.columns) * t.rows;
  const std::size_t block_count = (mesh.triangles.size() + kBlock - 1) / kBlock;
  if (t.blocks.size() > 4 * block_count + tile_count) index_blocks(t, 1);
  t.listed = std::make_unique<std::once_flag[]>(tile_count);
  t.triangles = std::make_unique<std::vector<std::uint32_t>[]>(tile_count);
  t.built = std::make_unique<std::atomic<const GroundScene*>[]>(tile_count);
  for (std::size_t k = 0; k < tile_count; ++k) t.built[k].store(nullptr);
}

void Terrain::Impl::index_blocks(SceneTiles& t, std::uint32_t block) const {
  // Each block's tiles are those of its vertices' box (column_of and row_of are non-decreasing:
  // a triangle's own tiles are among them), then two passes (count, fill): each tile's blocks
  // ascending.
  t.block = block;
  const std::size_t n = mesh.triangles.size();
  const std::size_t block_count = (n + block - 1) / block;
  std::vector<std::array<std::uint32_t, 4>> reach(block_count);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (std::size_t b = 0; b < block_count; ++b) {
    double min_x = kInf, min_z = kInf, max_x = -kInf, max_z = -kInf;
    // Written as `bound < x ? bound : x`, which minsd/maxsd compute into the bound's register
    // (std::min(bound, x) is `x < bound ? x : bound`, computed into x's: a move per
    // comparison). The vertices are finite (checked): the same bounds but for the sign of a
    // zero, which the tiles' conversion does not see.
    for (std::size_t k = b * block; k < std::min(n, (b + 1) * block); ++k)
      for (const std::uint32_t v : mesh.triangles[k]) {
        const Vec3& p = mesh.vertices[v];
        min_x = min_x < p.x ? min_x : p.x, max_x = max_x > p.x ? max_x : p.x;
        min_z = min_z < p.z ? min_z : p.z, max_z = max_z > p.z ? max_z : p.z;
      }
    reach[b] = t.reach(min_x, min_z, max_x, max_z);
  }
  const auto cols = static_cast<std::size_t>(t.columns);
  auto each_tile = [&](std::size_t b, auto&& body) {
    const auto& r = reach[b];
    for (std::size_t row = r[1]; row <= r[3]; ++row)
      for (std::size_t col = r[0]; col <= r[2]; ++col) body(row * cols + col);
  };
  t.block_start.assign(cols * static_cast<std::size_t>(t.rows) + 1, 0);
  for (std::size_t b = 0; b < block_count; ++b)
    each_tile(b, [&](std::size_t tile) { ++t.block_start[tile + 1]; });
  for (std::size_t k = 1; k < t.block_start.size(); ++k) t.block_start[k] += t.block_start[k - 1];
  t.blocks.resize(t.block_start.back());
  std::vector<std::uint32_t> fill(t.block_start.begin(), t.block_start.end() - 1);
  for (std::size_t b = 0; b < block_count; ++b)
    each_tile(b, [&](std::size_t tile) { t.blocks[fill[tile]++] = static_cast<std::uint32_t>(b); });
}

std::span<const std::uint32_t> Terrain::Impl::tile_triangles(std::size_t tile) const {
  const SceneTiles& t = scene_tiles();
  std::call_once(t.listed[tile], [&] { list_tile(t, tile); });
  return t.triangles[tile];
}

void Terrain::Impl::list_tile(const SceneTiles& t, std::size_t tile) const {
  // The ground triangles whose box grown by the margin touches the tile, ascending (the blocks
  // ascending, a block's triangles ascending).
  const auto cols = static_cast<std::size_t>(t.columns);
  const std::size_t column = tile % cols, row = tile / cols;
  std::vector<std::uint32_t>& out = t.triangles[tile];
  const std::size_t n = mesh.triangles.size();
  for (std::uint32_t k = t.block_start[tile]; k < t.block_start[tile + 1]; ++k) {
    const std::size_t first = std::size_t{t.blocks[k]} * t.block;
    for (std::size_t tri = first; tri < std::min(n, first + t.block); ++tri) {
      const auto& corners = mesh.triangles[tri];
      const Vec3 &a = mesh.vertices[corners[0]], &b = mesh.vertices[corners[1]],
                 &c = mesh.vertices[corners[2]];
      const auto r = t.reach(std::min({a.x, b.x, c.x}), std::min({a.z, b.z, c.z}),
                             std::max({a.x, b.x, c.x}), std::max({a.z, b.z, c.z}));
      if (column >= r[0] && column <= r[2] && row >= r[1] && row <= r[3] && is_ground(tri))
        out.push_back(static_cast<std::uint32_t>(tri));
    }
  }
}

const GroundScene& Terrain::Impl::tile_scene(std::size_t tile) const {
  const SceneTiles& t = scene_tiles();
  const GroundScene* s = t.built[tile].load(std::memory_order_acquire);
  if (s) return *s;
  const std::lock_guard<std::mutex> lock(build_mutex[tile % kBuildStripes]);
  s = t.built[tile].load(std::memory_order_acquire);
  if (s) return *s;
  std::unique_ptr<GroundScene> scene = build_scene(tile_triangles(tile));
  s = scene.get();
  {
    const std::lock_guard<std::mutex> own(scenes_mutex);
    scenes.push_back(std::move(scene));
  }
  t.built[tile].store(s, std::memory_order_release);
  return *s;
}

void Terrain::Impl::gather_prims(std::span<const std::uint32_t> triangles, GroundScene& s) const {
  s.prims.reserve(triangles.size());
  for (const std::uint32_t t : triangles) {
    const auto& tri = mesh.triangles[t];
    const Vec3& a = mesh.vertices[tri[0]];
    const Vec3& b = mesh.vertices[tri[1]];
    const Vec3& c = mesh.vertices[tri[2]];
    const Vec3 n = glm::cross(b - a, c - a);
    GroundPrim& g = s.prims.emplace_back();
    g.ax = a.x, g.az = a.z, g.bx = b.x, g.bz = b.z, g.cx = c.x, g.cz = c.z;
    g.ay = a.y;
    g.nx = n.x, g.ny = n.y, g.nz = n.z;
    g.min_y = std::min({a.y, b.y, c.y});
    g.max_y = std::max({a.y, b.y, c.y});
    const Vec3 up = n.y < 0.0 ? -n : n;  // face up whatever the winding
    g.face_normal = up / glm::length(up);
    g.triangle = t;
    const double area2 = (b.x - a.x) * (c.z - a.z) - (b.z - a.z) * (c.x - a.x);
    g.ccw = area2 > 0.0;
  }
}

std::unique_ptr<GroundScene> Terrain::Impl::build_scene(
    std::span<const std::uint32_t> triangles) const {
  auto s = std::make_unique<GroundScene>();
  gather_prims(triangles, *s);
  s->alone_state = std::make_unique<std::atomic<std::uint8_t>[]>(s->prims.size());
  std::vector<XzBox> boxes(s->prims.size());
  for (std::size_t p = 0; p < s->prims.size(); ++p) {
    const GroundPrim& g = s->prims[p];
    boxes[p] = {std::min({g.ax, g.bx, g.cx}), std::min({g.az, g.bz, g.cz}),
                std::max({g.ax, g.bx, g.cx}), std::max({g.az, g.bz, g.cz})};
  }
  s->grid = XzGrid(boxes);
  return s;
}

double Terrain::Impl::plane_height(const GroundPrim& g, double x, double z) {
  // Plane through a, solved for y at (x, z) (n.y != 0: vertical triangles are not in the
  // scene). Exact for horizontal planes.
  const double y = g.ay - (g.nx * (x - g.ax) + g.nz * (z - g.az)) / g.ny;
  // (x, z) may lie a float-rounding outside the triangle: never leave its height range.
  return std::clamp(y, g.min_y, g.max_y);
}

bool Terrain::Impl::well_inside(const GroundPrim& g, double x, double z) const {
  return every_edge(g, x, z, [this](double d, double ex, double ez) {
    return !(d < 0.0 || d * d < edge_band * edge_band * (ex * ex + ez * ez));
  });
}

unsigned Terrain::Impl::cast(const GroundScene& s, double x, double z) const {
  unsigned best = kInvalidId;
  double best_height = -std::numeric_limits<double>::infinity();
  s.near_grid().for_each_near(x, z, 0.0, [&](std::uint32_t prim) {
    const GroundPrim& g = s.prims[prim];
    if (!inside(g, x, z)) return;
    const double height = plane_height(g, x, z);
    // A cell lists its prims ascending: the first of equal heights stays.
    if (height > best_height) best = prim, best_height = height;
  });
  return best;
}

unsigned Terrain::Impl::resolve(const GroundScene& s, double x, double z, unsigned primary,
                                GroundHit& out) const {
  if (primary != kInvalidId && well_inside(s.prims[primary], x, z)) {
    finish(s.prims[primary], x, z, out);
    return primary;
  }
  // On or next to an edge (a step edge, the mesh border, a shared edge), or a miss: the
  // topmost surface within `nudge` of (x, z) decides, so a step edge always gives the upper
  // step whatever the winding or direction, and a point a float rounding off the mesh's
  // border or a seam still lands: the candidates are every triangle whose horizontal
  // projection holds (x, z) or one of its four diagonal nudges to within `nudge`.
  unsigned best = kInvalidId;
  double best_height = -std::numeric_limits<double>::infinity();
  static constexpr double kDiagonals[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
  s.near_grid().for_each_near(x, z, 2.0 * nudge, [&](std::uint32_t prim) {
    const GroundPrim& g = s.prims[prim];
    bool near = holds(g, x, z);
    for (int k = 0; k < 4 && !near; ++k)
      near = holds(g, x + kDiagonals[k][0] * nudge, z + kDiagonals[k][1] * nudge);
    if (!near) return;
    const double height = plane_height(g, x, z);
    if (height > best_height || (height == best_height && prim < best)) {
      best = prim;
      best_height = height;
    }
  });
  if (best == kInvalidId)
    miss(out);
  else
    finish(s.prims[best], x, z, out);
  return best;
}

namespace {

// Whether triangles g and h (horizontal projections) have disjoint interiors: some edge line of
// one has every vertex of the other on its outer side or on it (convex polygons overlap unless
// an edge separates them). Rounding may call a pair touching at an edge overlapping (the safe
// side: an overlapping pair is only ever answered by a cast).
bool projections_apart(const GroundPrim& g, const GroundPrim& h) {
  auto outside_of = [](const GroundPrim& e, const GroundPrim& o) {
    const double ex_[3] = {e.ax, e.bx, e.cx}, ez_[3] = {e.az, e.bz, e.cz};
    const double ox[3] = {o.ax, o.bx, o.cx}, oz[3] = {o.az, o.bz, o.cz};
    const double sign = e.ccw ? 1.0 : -1.0;
    for (int i = 0; i < 3; ++i) {
      const int j = (i + 1) % 3;
      const double ex = ex_[j] - ex_[i], ez = ez_[j] - ez_[i];
      bool all_out = true;
      for (int k = 0; k < 3 && all_out; ++k)
        all_out = sign * (ex * (oz[k] - ez_[i]) - ez * (ox[k] - ex_[i])) <= 0.0;
      if (all_out) return true;
    }
    return false;
  };
  return outside_of(g, h) || outside_of(h, g);
}

}  // namespace

bool Terrain::Impl::alone(const GroundScene& s, unsigned p) const {
  std::atomic<std::uint8_t>& state = s.alone_state[p];
  const std::uint8_t known = state.load(std::memory_order_relaxed);
  if (known != GroundScene::kUnknown) return known == GroundScene::kAlone;
  // Found the same way by any thread that gets here first: a race only repeats the work.
  const GroundPrim& g = s.prims[p];
  const double min_x = std::min({g.ax, g.bx, g.cx}), max_x = std::max({g.ax, g.bx, g.cx});
  const double min_z = std::min({g.az, g.bz, g.cz}), max_z = std::max({g.az, g.bz, g.cz});
  bool apart = true;
  s.near_grid().for_each_near(0.5 * (min_x + max_x), 0.5 * (min_z + max_z),
                              0.5 * std::max(max_x - min_x, max_z - min_z) + nudge,
                              [&](std::uint32_t q) {
                                if (apart && q != p) apart = projections_apart(g, s.prims[q]);
                              });
  state.store(apart ? GroundScene::kAlone : GroundScene::kCovered, std::memory_order_relaxed);
  return apart;
}

bool Terrain::Impl::inside(const GroundPrim& g, double x, double z) {
  return every_edge(g, x, z, [](double d, double, double) { return !(d < 0.0); });
}

bool Terrain::Impl::holds(const GroundPrim& g, double x, double z) const {
  return every_edge(g, x, z, [this](double d, double ex, double ez) {
    return !(d < 0.0 && d * d > nudge * nudge * (ex * ex + ez * ez));
  });
}

void Terrain::Impl::finish(const GroundPrim& g, double x, double z, GroundHit& hit) const {
  const Vec3& face_normal = g.face_normal;
  hit.hit = true;
  hit.height = plane_height(g, x, z);
  hit.normal = face_normal;
  hit.triangle = static_cast<int>(g.triangle);

  if (smooth) {
    // Barycentric weights of (x, z) in the triangle's horizontal projection, in double.
    const auto& tri = mesh.triangles[g.triangle];
    const double e1x = g.bx - g.ax, e1z = g.bz - g.az;
    const double e2x = g.cx - g.ax, e2z = g.cz - g.az;
    const double px = x - g.ax, pz = z - g.az;
    const double det = e1x * e2z - e1z * e2x;  // non-zero: the projection has area
    double w1 = (px * e2z - pz * e2x) / det;
    double w2 = (e1x * pz - e1z * px) / det;
    w1 = std::clamp(w1, 0.0, 1.0);
    w2 = std::clamp(w2, 0.0, 1.0 - w1);
    const double w0 = 1.0 - w1 - w2;
    Vec3 smooth_n = w0 * mesh.vertex_normals[tri[0]] + w1 * mesh.vertex_normals[tri[1]] +
                    w2 * mesh.vertex_normals[tri[2]];
    if (glm::dot(smooth_n, face_normal) < 0.0) smooth_n = -smooth_n;  // winding-independent
    smooth_n = safe_normalize(smooth_n, face_normal);
    if (smooth_n.y > 0.0) hit.normal = smooth_n;  // else keep the (upward) face normal
  }
}

void Terrain::Impl::query_points(std::span<const std::array<double, 2>> xz,
                                 std::span<GroundHit> out) const {
  QueryRect rect;  // of the points that may hit: all in the part held, or none is answered
  for (const auto& point : xz)
    if (may_hit(point[0], point[1])) rect.add(point[0], point[1]);
  if (!rect.empty()) require_served(rect);
  // The prim that answered the last point resolved (in its scene): a point well inside it, when
  // no other prim overlaps it (alone), is answered by it without a cast, since it is the only
  // prim holding the point, and well inside (as resolve asks); a foot's points stay on a
  // triangle for many frames. A point bit for bit the one before it (a planted foot, frame
  // after frame) takes that point's answer.
  const GroundScene* hint_scene = nullptr;
  unsigned hint = kInvalidId;
  for (std::size_t k = 0; k < xz.size(); ++k) {
    const double x = xz[k][0], z = xz[k][1];
    if (k > 0 && std::memcmp(&xz[k], &xz[k - 1], sizeof xz[0]) == 0) {
      out[k] = out[k - 1];
    } else if (!may_hit(x, z)) {  // off the terrain (or not finite)
      miss(out[k]);
    } else {
      const GroundScene& s = tile_scene(scene_tiles().tile_of(x, z));
      if (hint_scene == &s && alone(s, hint) && well_inside(s.prims[hint], x, z)) {
        finish(s.prims[hint], x, z, out[k]);
      } else {
        const unsigned answered = resolve(s, x, z, cast(s, x, z), out[k]);
        if (answered != kInvalidId) hint_scene = &s, hint = answered;
      }
    }
  }
}

TerrainMesh crop_terrain_mesh(const TerrainMesh& mesh, double min_x, double min_z, double max_x,
                              double max_z, std::vector<std::uint32_t>* original_triangle) {
  TerrainMesh out;
  if (original_triangle) original_triangle->clear();
  const bool normals = mesh.vertex_normals.size() == mesh.vertices.size();
  constexpr std::uint32_t kUnused = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> remap(mesh.vertices.size(), kUnused);
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    if (tri[0] >= mesh.vertices.size() || tri[1] >= mesh.vertices.size() ||
        tri[2] >= mesh.vertices.size())
      throw std::invalid_argument("terrain mesh triangle " + std::to_string(t) +
                                  " uses a vertex out of range");
    const Vec3& a = mesh.vertices[tri[0]];
    const Vec3& b = mesh.vertices[tri[1]];
    const Vec3& c = mesh.vertices[tri[2]];
    if (std::max({a.x, b.x, c.x}) < min_x || std::min({a.x, b.x, c.x}) > max_x ||
        std::max({a.z, b.z, c.z}) < min_z || std::min({a.z, b.z, c.z}) > max_z)
      continue;
    std::array<std::uint32_t, 3> kept{};
    for (int k = 0; k < 3; ++k) {
      std::uint32_t& index = remap[tri[k]];
      if (index == kUnused) {
        index = static_cast<std::uint32_t>(out.vertices.size());
        out.vertices.push_back(mesh.vertices[tri[k]]);
        if (normals) out.vertex_normals.push_back(mesh.vertex_normals[tri[k]]);
      }
      kept[k] = index;
    }
    out.triangles.push_back(kept);
    if (original_triangle) original_triangle->push_back(static_cast<std::uint32_t>(t));
  }
  return out;
}

namespace {

// The heights a query at any point of [x0, x1] x [z0, z1] answers from the ground triangle a,
// b, c (Impl::plane_height: its plane, clamped to its height range) lie within these bounds.
struct TriangleBounds {
  double floor;
  double ceiling;
};

// The plane is linear, so its least and most there are at corners; the margin is far above the
// rounding of either evaluation (a few ulps of the terms' sizes). Where the plane is too steep
// to tell (inf, NaN), the triangle's height range.
TriangleBounds triangle_bounds(const Vec3& a, const Vec3& b, const Vec3& c, double x0, double z0,
                               double x1, double z1) {
  const double low = std::min({a.y, b.y, c.y}), top = std::max({a.y, b.y, c.y});
  const Vec3 n = glm::cross(b - a, c - a);
  double least = std::numeric_limits<double>::infinity();
  double most = -std::numeric_limits<double>::infinity();
  for (const double x : {x0, x1})
    for (const double z : {z0, z1}) {
      const double y = a.y - (n.x * (x - a.x) + n.z * (z - a.z)) / n.y;
      least = std::min(least, y);
      most = std::max(most, y);
    }
  const double size =
      std::abs(a.y) + (std::abs(n.x) * (std::abs(x0) + std::abs(x1) + std::abs(a.x)) +
                       std::abs(n.z) * (std::abs(z0) + std::abs(z1) + std::abs(a.z))) /
                          std::abs(n.y);
  const double upper = most + 1e-9 + 1e-12 * size;
  const double lower = least - 1e-9 - 1e-12 * size;
  return {!(lower > low) ? low : std::min(lower, top), !(upper < top) ? top : std::max(upper, low)};
}

}  // namespace

void Terrain::Impl::list_ceiling(CeilingGrid& c) const {
  // Over the scene tiles, which cover the part of the bounds a query may be asked without
  // throwing (within the part held).
  const SceneTiles& t = scene_tiles();
  const double along = CeilingGrid::kCellsAlong;
  const double wanted = std::max({t.columns * t.size / along, t.rows * t.size / along, 1e-6});
  c.per_tile = static_cast<int>(std::clamp(std::ceil(t.size / wanted), 1.0, along));
  c.cell = t.size / c.per_tile;
  c.inv_cell = 1.0 / c.cell;
  c.origin_x = t.origin_x;
  c.origin_z = t.origin_z;
  c.columns = t.columns * c.per_tile;
  c.rows = t.rows * c.per_tile;
  const std::size_t cells = static_cast<std::size_t>(c.columns) * static_cast<std::size_t>(c.rows);
  c.known = std::make_unique<std::atomic<std::uint8_t>[]>(cells);
  c.upper = std::make_unique_for_overwrite<double[]>(cells);
  c.lower = std::make_unique_for_overwrite<double[]>(cells);
}

const CeilingGrid& Terrain::Impl::ceiling_grid() const {
  std::call_once(ceiling_once, [this] { list_ceiling(ceiling); });
  return ceiling;
}

// The bounds of the block of cells holding cell (column, row): up to kBlock x kBlock cells of
// its scene tile, the highest and the lowest any ground triangle near a cell reaches in it. A
// triangle may answer a point of a cell only where its horizontal box grown by the reach of a
// query's edge search overlaps the cell; every such triangle is in the tile's list (grown by a
// larger margin). Found the same way by any thread that gets here first.
void Terrain::Impl::fill_ceiling_block(const CeilingGrid& c, int column, int row) const {
  const SceneTiles& t = scene_tiles();
  const int tile_column = column / c.per_tile, tile_row = row / c.per_tile;
  const int x0 =
      tile_column * c.per_tile + (column % c.per_tile) / CeilingGrid::kBlock * CeilingGrid::kBlock;
  const int z0 =
      tile_row * c.per_tile + (row % c.per_tile) / CeilingGrid::kBlock * CeilingGrid::kBlock;
  const int x1 = std::min(x0 + CeilingGrid::kBlock, (tile_column + 1) * c.per_tile) - 1;
  const int z1 = std::min(z0 + CeilingGrid::kBlock, (tile_row + 1) * c.per_tile) - 1;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::array<double, CeilingGrid::kBlock * CeilingGrid::kBlock> most, least;
  most.fill(-kInf);
  least.fill(kInf);
  // A query's edge search takes triangles within ~2.5 nudges of the point (resolve, holds).
  const double reach = 4.0 * nudge;
  const std::size_t tile =
      std::size_t{static_cast<std::uint32_t>(tile_row)} * static_cast<std::size_t>(t.columns) +
      static_cast<std::size_t>(tile_column);
  // The cells [from, to] of [lo, hi] that the range [low, high] (metres) may overlap, one more
  // on each side than the rounding of the division could miss (each is tested exactly).
  auto span = [&c](double low, double high, double origin, int lo, int hi) {
    const double a = std::floor((low - origin) * c.inv_cell) - 1.0;
    const double b = std::floor((high - origin) * c.inv_cell) + 1.0;
    return std::pair<int, int>{static_cast<int>(std::max(a, static_cast<double>(lo))),
                               static_cast<int>(std::min(b, static_cast<double>(hi)))};
  };
  for (const std::uint32_t listed : tile_triangles(tile)) {
    const auto& tri = mesh.triangles[listed];
    const Vec3 &a = mesh.vertices[tri[0]], &b = mesh.vertices[tri[1]], &d = mesh.vertices[tri[2]];
    const XzBox box{std::min({a.x, b.x, d.x}) - reach, std::min({a.z, b.z, d.z}) - reach,
                    std::max({a.x, b.x, d.x}) + reach, std::max({a.z, b.z, d.z}) + reach};
    const auto [cx0, cx1] = span(box.min_x, box.max_x, c.origin_x, x0, x1);
    const auto [cz0, cz1] = span(box.min_z, box.max_z, c.origin_z, z0, z1);
    for (int cz = cz0; cz <= cz1; ++cz) {
      const double lz = c.origin_z + cz * c.cell, hz = lz + c.cell;
      if (box.max_z < lz || box.min_z > hz) continue;
      for (int cx = cx0; cx <= cx1; ++cx) {
        const double lx = c.origin_x + cx * c.cell, hx = lx + c.cell;
        if (box.max_x < lx || box.min_x > hx) continue;
        const auto slot = static_cast<std::size_t>(cz - z0) * CeilingGrid::kBlock + (cx - x0);
        const TriangleBounds bounds = triangle_bounds(a, b, d, lx, lz, hx, hz);
        most[slot] = std::max(most[slot], bounds.ceiling);
        least[slot] = std::min(least[slot], bounds.floor);
      }
    }
  }
  for (int cz = z0; cz <= z1; ++cz)
    for (int cx = x0; cx <= x1; ++cx) {
      const auto slot = static_cast<std::size_t>(cz - z0) * CeilingGrid::kBlock + (cx - x0);
      const std::size_t cell =
          static_cast<std::size_t>(cz) * static_cast<std::size_t>(c.columns) + cx;
      std::atomic_ref(c.upper[cell]).store(most[slot], std::memory_order_relaxed);
      std::atomic_ref(c.lower[cell]).store(least[slot], std::memory_order_relaxed);
      c.known[cell].store(1, std::memory_order_release);
    }
}

double Terrain::Impl::ground_ceiling(const CeilingGrid& c, double x, double z) const {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (!may_hit(x, z)) return -kInf;  // a query there misses
  if (x - kTerrainCropMargin < held.min_x || x + kTerrainCropMargin > held.max_x ||
      z - kTerrainCropMargin < held.min_z || z + kTerrainCropMargin > held.max_z)
    return kInf;  // a query there throws TerrainPartTooSmall: it must be asked
  return std::atomic_ref(c.upper[known_cell(c, x, z)]).load(std::memory_order_relaxed);
}

double Terrain::Impl::ground_floor(const CeilingGrid& c, double x, double z) const {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (!may_hit(x, z)) return kInf;  // a query there misses
  if (x - kTerrainCropMargin < held.min_x || x + kTerrainCropMargin > held.max_x ||
      z - kTerrainCropMargin < held.min_z || z + kTerrainCropMargin > held.max_z)
    return -kInf;  // a query there throws TerrainPartTooSmall: it must be asked
  return std::atomic_ref(c.lower[known_cell(c, x, z)]).load(std::memory_order_relaxed);
}

// The block is filled on the first ask of a cell; the acquire load orders the bounds' stores
// (before the release store of `known`) before the caller's read of them.
std::size_t Terrain::Impl::known_cell(const CeilingGrid& c, double x, double z) const {
  const int column = static_cast<int>(SceneTiles::cell((x - c.origin_x) * c.inv_cell, c.columns));
  const int row = static_cast<int>(SceneTiles::cell((z - c.origin_z) * c.inv_cell, c.rows));
  const std::size_t cell =
      static_cast<std::size_t>(row) * static_cast<std::size_t>(c.columns) + column;
  if (c.known[cell].load(std::memory_order_acquire) == 0) fill_ceiling_block(c, column, row);
  return cell;
}

Terrain::Terrain(TerrainMesh mesh, TerrainOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->mesh = std::move(mesh);
  impl_->options = options;
  impl_->smooth = options.smooth_normals && !impl_->mesh.vertex_normals.empty();
  impl_->validate_and_bound();
  impl_->set_held();
  impl_->require_ground();
}

Terrain::~Terrain() = default;

GroundHit Terrain::ground_at(double x, double z) const {
  GroundHit hit;
  impl_->query(x, z, hit);
  return hit;
}

void Terrain::ground_at(std::span<const std::array<double, 2>> xz, std::span<GroundHit> out) const {
  if (out.size() != xz.size())
    throw std::invalid_argument("Terrain::ground_at: " + std::to_string(xz.size()) +
                                " points but " + std::to_string(out.size()) + " results");
  impl_->query_points(xz, out);
}

const TerrainMesh& Terrain::mesh() const { return impl_->mesh; }
void Terrain::require_held(double min_x, double min_z, double max_x, double max_z,
                           const char* what) const {
  impl_->require_held(min_x, min_z, max_x, max_z, what);
}
double Terrain::held_margin(double x, double z) const {
  const auto& held = impl_->held;
  return std::min({x - held.min_x, held.max_x - x, z - held.min_z, held.max_z - z});
}
double Terrain::ground_ceiling(double x, double z) const {
  return impl_->ground_ceiling(impl_->ceiling_grid(), x, z);
}
double Terrain::ground_floor(double x, double z) const {
  return impl_->ground_floor(impl_->ceiling_grid(), x, z);
}
void Terrain::above_ground_ceiling(std::span<const Vec3> points_ws, std::span<char> out) const {
  if (out.size() != points_ws.size())
    throw std::invalid_argument(
        "Terrain::above_ground_ceiling: " + std::to_string(points_ws.size()) + " points but " +
        std::to_string(out.size()) + " results");
  const CeilingGrid& c = impl_->ceiling_grid();
  for (std::size_t i = 0; i < points_ws.size(); ++i) {
    const Vec3& p = points_ws[i];
    out[i] = p.y >= impl_->ground_ceiling(c, p.x, p.z) ? 1 : 0;
  }
}
Vec3 Terrain::bounds_min() const { return impl_->bounds_min; }
Vec3 Terrain::bounds_max() const { return impl_->bounds_max; }
std::size_t Terrain::ground_triangle_count() const {
  std::call_once(impl_->ground_count_once, [this] {
    for (std::size_t t = 0; t < impl_->mesh.triangles.size(); ++t)
      impl_->ground_count += impl_->is_ground(t) ? 1 : 0;
  });
  return impl_->ground_count;
}

}  // namespace ikfix::core
