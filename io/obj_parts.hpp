#pragma once
// Wavefront OBJ geometry parsed in parallel: the file is cut into chunks at line ends and each
// chunk is read on its own thread, straight from memory, into its own arrays.
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "io/obj_reader.hpp"

namespace ikfix::core {
class ParallelRunner;
}

namespace ikfix::io {

// One chunk's statements, in file order. Corner indices are 0-based over the whole file.
struct ObjPart {
  std::vector<core::Vec3> positions;
  std::vector<core::Vec3> normals;
  std::vector<std::array<ObjCorner, 3>> triangles;
};

struct ObjParts {
  std::vector<ObjPart> parts;                // in file order
  std::vector<std::size_t> position_offset;  // per part: positions in the parts before it
  std::vector<std::size_t> normal_offset;    // per part: normals in the parts before it
  std::size_t position_count = 0;
  std::size_t normal_count = 0;
  std::size_t triangle_count = 0;
  bool every_corner_has_normal = true;
};

// The geometry parse_obj(text) returns, bit for bit (the parts' positions, normals and
// triangles, concatenated, are parse_obj's), read on `runner`'s threads (null: this thread).
// Returns nothing when the text is not one parse_obj accepts as it is: parse_obj then names
// the line and the problem (and a text this reader is stricter on still gets read there).
// Chunks are at least `min_chunk_bytes` long (smaller ones cost a thread more than they save).
std::optional<ObjParts> parse_obj_parts(std::string_view text, const core::ParallelRunner* runner,
                                        std::size_t min_chunk_bytes = std::size_t{1} << 20);

// parse_obj's result as one part (for a text parse_obj_parts left to parse_obj).
ObjParts as_parts(ObjGeometry geometry);

}  // namespace ikfix::io
