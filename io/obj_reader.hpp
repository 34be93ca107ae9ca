#pragma once
// Wavefront OBJ geometry, read directly (terrains are the common case and Assimp's importer set-up
// costs more than reading a small terrain: ~20% of an `ikfix run`). Only what a terrain needs:
// positions, normals and faces; numbers are read in double (Assimp reads OBJ in float).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/math.hpp"

namespace ikfix::io {

// One face corner: 0-based indices into ObjGeometry::positions / normals (normal -1: none).
struct ObjCorner {
  std::uint32_t position = 0;
  std::int32_t normal = -1;
};

// The file's numbers as written (file units and axes).
struct ObjGeometry {
  std::vector<core::Vec3> positions;  // "v x y z [w | r g b]": x, y, z
  std::vector<core::Vec3> normals;    // "vn x y z"
  // Every polygon ("f") fan-triangulated in file order: (c0, c1, c2), (c0, c2, c3), ...
  std::vector<std::array<ObjCorner, 3>> triangles;
  bool every_corner_has_normal = true;  // false as soon as one corner of a face has none
};

// Parses OBJ text: "v", "vn" and "f" (corners "v", "v/vt", "v/vt/vn", "v//vn"; negative indices
// count back from the last element defined so far, positive vertex indices may point ahead);
// comments ("#" to end of line), blank lines, LF/CRLF/CR, and every other statement (vt, o, g,
// s, usemtl, mtllib, l, p, ...) are skipped.
// Throws InputError naming `source_name` and the 1-based line on malformed or non-finite
// numbers, a face with fewer than 3 corners, or an index that is 0 or out of range.
ObjGeometry parse_obj(std::string_view text, const std::string& source_name);

}  // namespace ikfix::io
