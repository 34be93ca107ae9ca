#pragma once
// An OBJ file's parsed geometry -> a terrain mesh in world space: positions and normals
// transformed, corners merged into vertices by identical position and normal.
#include <glm/mat4x4.hpp>
#include <string>

#include "core/terrain.hpp"
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

}  // namespace ikfix::io
