// Helpers shared by the OBJ reader's tests.
#pragma once

#include "io/obj_parts.hpp"
#include "io/obj_terrain.hpp"

namespace ikfix::io {

// The parts' geometry in part order, as one mesh (what the whole-file read would give).
inline ObjGeometry joined_parts(const ObjParts& parts) {
  ObjGeometry out;
  out.every_corner_has_normal = parts.every_corner_has_normal;
  for (const ObjPart& part : parts.parts) {
    out.positions.insert(out.positions.end(), part.positions.begin(), part.positions.end());
    out.normals.insert(out.normals.end(), part.normals.begin(), part.normals.end());
    out.triangles.insert(out.triangles.end(), part.triangles.begin(), part.triangles.end());
  }
  return out;
}

}  // namespace ikfix::io
