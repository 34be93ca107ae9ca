// Helpers shared by the OBJ reader's tests.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <glm/mat4x4.hpp>
#include <optional>
#include <string>

#include "core/parallel.hpp"
#include "io/error.hpp"
#include "io/obj_parts.hpp"
#include "io/obj_reader.hpp"
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

// Pages that copy `text` (as a mapped file's ObjTextPages::copy does); `text` must outlive them.
inline ObjTextPages copies_of(const std::string& text) {
  ObjTextPages pages;
  pages.copy = [&text](std::size_t begin, char* out, std::size_t bytes) {
    if (begin + bytes > text.size()) return false;
    std::memcpy(out, text.data() + begin, bytes);
    return true;
  };
  return pages;
}

// The error parse_obj gives for `text`, or "" when it reads it.
inline std::string parse_obj_error(const std::string& text) {
  try {
    parse_obj(text, "t.obj");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A text parse_obj refuses with `error` ("" when it reads it) is refused by the terrain reader
// on `runner` with the same message.
inline void expect_terrain_refuses_as_parse_obj(const std::string& text, const std::string& error,
                                                const core::ParallelRunner* runner,
                                                const std::string& line) {
  if (error.empty()) return;
  try {
    read_obj_terrain(text, glm::dmat4(1.0), "t.obj", runner, std::nullopt, nullptr);
    ADD_FAILURE() << "read: " << line;
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), error) << line;
  }
}

}  // namespace ikfix::io
