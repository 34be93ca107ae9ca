#pragma once
// Terrain meshes in and out: any mesh format Assimp reads (OBJ, glTF/GLB, FBX, Collada, PLY,
// STL, ...) in; Wavefront OBJ out. Units and up axis are converted here, at the boundary, so
// core::TerrainMesh is always metres, Y up.
#include <cstdint>
#include <filesystem>
#include <optional>

#include "core/terrain.hpp"
#include "core/xz_grid.hpp"

namespace ikfix::core {
class ParallelRunner;
}

namespace ikfix::io {

class ObjReadAhead;

// Reads every triangle of every mesh in the file, with node transforms applied (a mesh used by
// several nodes appears once per node), polygons triangulated, points and lines ignored.
// Vertices shared by identical position (and normal) are merged; vertex normals are kept when
// every mesh has them, else none are returned.
//   metres_per_unit: scale from file units to metres (0.01 for centimetres), finite and > 0.
//   up_axis: 'y' (file is Y up, as OBJ and glTF) or 'z' (Z up: rotated -90 degrees about X so
//            +Z becomes +Y and +Y becomes -Z); case-insensitive.
// .obj files are read by io/obj_reader (numbers in double; faster than Assimp's set-up), every
// other format through Assimp.
// Throws InputError naming the file when it is missing, unreadable, holds no triangles or
// non-finite numbers, or when the arguments are invalid.
core::TerrainMesh load_terrain_mesh(const std::filesystem::path& path, double metres_per_unit = 1.0,
                                    char up_axis = 'y');

// A terrain as read for a clip: the whole mesh, or the part of it a rectangle touches.
struct TerrainRead {
  core::TerrainMesh mesh;
  std::optional<core::TerrainCrop> crop;  // set when `mesh` is a part (core::TerrainCrop)
};

// load_terrain_mesh, but with `keep_ws` (world metres: after the unit and up axis) an OBJ file
// keeps only the triangles whose horizontal bounding box touches it, dropped as soon as read:
// `mesh` is crop_terrain_mesh(whole mesh, keep_ws) bit for bit and `crop` holds the whole
// mesh's bounds, so core::Terrain answers as on the whole mesh inside keep_ws. Other formats
// are read whole (`crop` empty). A prepared terrain (.ikterrain, io/prepared_terrain.hpp) is
// mapped and only its tiles under keep_ws are read; it is in metres, Y up already (other
// arguments: InputError). An OBJ file is read on `threads` threads (0: one per core, at most
// 8; 1: this thread only); the result is the same whatever the number. Without `normals`, a
// prepared terrain's part comes without vertex normals (other files keep theirs: their normals
// are checked as read). With `runner`, an OBJ file or a prepared terrain's part is read on its
// threads instead of on a pool of `threads` made for the read and ended after it (a caller
// that has a pool idle meanwhile saves the threads' start and join). With `ahead`
// (ObjReadAhead::start(path, runner)), an OBJ file read with `keep_ws` on `runner` begins with
// the pass `ahead` began (the same result); any other read stops `ahead` first.
TerrainRead load_terrain_part(const std::filesystem::path& path, double metres_per_unit,
                              char up_axis, const std::optional<core::XzBox>& keep_ws,
                              int threads = 0, bool normals = true,
                              const core::ParallelRunner* runner = nullptr,
                              ObjReadAhead* ahead = nullptr);

// Whether `path` ends in ".obj", in any case (read by io/obj_reader, not Assimp).
bool has_obj_extension(const std::filesystem::path& path);

// Whether reading `path` only under a clip's footprint (load_terrain_part with `keep_ws`) can
// save time: a prepared terrain, or an OBJ file of at least kCropFromBytes. Smaller OBJ files
// and other formats are read whole, so a caller need not compute the footprint (a forward
// kinematics pass over the clip, which costs more than reading a small file whole). Answers
// are the same either way (load_terrain_part).
inline constexpr std::uintmax_t kCropFromBytes = std::uintmax_t{1} << 20;
bool terrain_worth_cropping(const std::filesystem::path& path);

// Writes `mesh` as a Wavefront OBJ (metres, Y up; "v", "vn" when the mesh has vertex normals,
// "f" with 1-based indices), numbers in fixed notation (positions to 1e-9 m, normals to 1e-7),
// so equal meshes give byte-identical files. Atomic (temp file + rename). Throws InputError
// naming the file on write failure or on a malformed mesh (index out of range, non-finite).
void save_obj(const std::filesystem::path& path, const core::TerrainMesh& mesh);

}  // namespace ikfix::io
