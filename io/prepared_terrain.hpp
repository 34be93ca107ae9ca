#pragma once
// The prepared terrain file (.ikterrain): a terrain mesh in world metres (Y up) written once by
// `ikfix terrain prepare`, then memory-mapped by every run, which reads only the tiles under its
// clip. Little-endian, versioned, checksummed; the layout is in io/README.md ("Prepared
// terrains").
#include <cstdint>
#include <filesystem>
#include <optional>

#include "core/terrain.hpp"
#include "core/xz_grid.hpp"
#include "io/terrain_io.hpp"

namespace ikfix::io {

inline constexpr std::uint32_t kPreparedTerrainVersion = 3;

// True when `path` names a prepared terrain (extension .ikterrain, any case).
bool is_prepared_terrain(const std::filesystem::path& path);

// Writes `mesh` (world metres, Y up; as load_terrain_mesh returns it) with its tile index,
// atomically. Throws InputError naming `path` on a malformed mesh (no triangles, an index out of
// range, a non-finite number, more than 2^32 - 2 vertices) or a write failure.
void save_prepared_terrain(const std::filesystem::path& path, const core::TerrainMesh& mesh);

// Reads a prepared terrain: the whole mesh (bit for bit the mesh it was prepared from), or with
// `keep_ws` the triangles whose horizontal bounding box touches it (crop_terrain_mesh of the
// whole mesh, bit for bit) and the crop (core::TerrainCrop). A crop reads and checks only the
// tiles whose bounds touch `keep_ws` (each tile holds its triangles and the vertices they use).
// Throws InputError naming `path` with one line when the file is not a prepared terrain, is of
// another format version (stale: prepare it again), is truncated, or fails a checksum or an
// index check in what it reads (corrupt). A crop of a file of 2 MB or more reads its tiles on
// `threads` threads (0: one per hardware thread, at most 8); the result and any error are the
// same whatever the number. A crop without `normals` leaves out the vertex normals (a caller
// whose terrain uses face normals only): it neither reads nor checks them (they have their own
// checksum per tile). With `runner`, the tiles are read on its threads instead (no pool made).
TerrainRead load_prepared_terrain(const std::filesystem::path& path,
                                  const std::optional<core::XzBox>& keep_ws, int threads = 1,
                                  bool normals = true,
                                  const core::ParallelRunner* runner = nullptr);

// The 64-bit checksum the format uses over `size` bytes (exposed for the tests).
std::uint64_t prepared_checksum(const void* data, std::size_t size);

}  // namespace ikfix::io
