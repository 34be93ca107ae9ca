#pragma once
// An OBJ file's parsed geometry -> a terrain mesh in world space: positions and normals
// transformed, corners merged into vertices by identical position and normal; optionally only
// the triangles near a clip, dropped as soon as they are read.
#include <functional>
#include <glm/mat4x4.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/terrain.hpp"
#include "core/xz_grid.hpp"
#include "io/obj_parts.hpp"

namespace ikfix::core {
class ParallelRunner;
}

namespace ikfix::io {

// The mesh the Assimp path gives for the same geometry: vertices in order of first use by the
// triangles' corners (in face order), one per distinct pair of position and normal bits (after
// `to_world`), normals kept when every corner has one. Throws InputError naming `file` when a
// position is not finite in metres. Positions are transformed on `runner`'s threads.
core::TerrainMesh obj_terrain_mesh(const ObjParts& obj, const glm::dmat4& to_world,
                                   const std::string& file, const core::ParallelRunner* runner);

// The OBJ text `text` read as a terrain (obj_terrain_mesh of its parts), on `runner`'s threads.
// With `keep_ws` (world metres): only the triangles whose horizontal bounding box touches it,
// each dropped as soon as read, so the result is crop_terrain_mesh(whole, keep_ws) bit for bit;
// `crop` (not null) then receives the whole mesh's bounds and keep_ws (core::TerrainCrop).
// A text the parallel reader does not accept is read by parse_obj, which names the line and
// the problem (InputError naming `file`). `pages` hears of the ranges read next and done with.
// `first_pass`, when given with `keep_ws`: the elements' pass the read begins with, made
// elsewhere (io/obj_read_ahead: begun before the footprint was known) from
// cropped_first_pass(text, runner, pages), given the rectangle (ObjElementChunks::
// set_world_rect) before its chunks left unread are read, its chunks all read.
using ObjFirstPass = std::function<std::optional<ObjParts>(const ObjWorldRect&)>;
core::TerrainMesh read_obj_terrain(std::string_view text, const glm::dmat4& to_world,
                                   const std::string& file, const core::ParallelRunner* runner,
                                   const std::optional<core::XzBox>& keep_ws,
                                   core::TerrainCrop* crop, const ObjTextPages& pages = {},
                                   const ObjFirstPass& first_pass = {});

// The chunks of the elements' pass read_obj_terrain begins with when it has a `keep_ws` (which
// needs no `keep_ws`: only the faces are kept or dropped), to be read on `runner`'s threads.
std::unique_ptr<ObjElementChunks> cropped_first_pass(std::string_view text,
                                                     const core::ParallelRunner* runner,
                                                     const ObjTextPages& pages);

}  // namespace ikfix::io
