#pragma once
// FBX 7.x node-tree reader and writer, binary (32- and 64-bit record offsets, raw and zlib
// arrays) and ASCII.
//
// Accepted: binary "Kaydara FBX Binary" files of version 7000..7999 (64-bit record headers
// from 7500 on) and ASCII files whose FBXHeaderExtension says FBXVersion 7000..7999.
// Rejected with InputError naming the file: FBX 6.x and older ("FBX 6.1 is not supported"),
// other versions, anything that is not FBX, and structural damage (truncation, record offsets
// out of range, property lists that do not add up, unknown property types, unbalanced braces),
// with the byte offset (binary) or line (ASCII) where it was found. Array contents are checked
// only when decoded (fbx::as_doubles, ...), so reading stays fast.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "io/fbx/document.hpp"

namespace ikfix::io::fbx {

// How much of the tree parse() builds.
enum class ParseDepth {
  // Every node.
  all,
  // What fbx::read_scene reads (GlobalSettings, Definitions, Connections, and under Objects the
  // Models, AnimationStacks, AnimationLayers, AnimationCurveNodes and Deformers, whole); of every
  // other node - AnimationCurves, geometry, the header - only the name and properties are built
  // and its children are marked deferred. Deferred children are still checked record by record
  // (binary: the same structural errors as `all`), so a damaged file fails either way. For
  // reading back a written file, where only a few curves are decoded (parse_children). ASCII
  // files are always parsed whole.
  scene,
};

// Parses `data` (taken over). `source_name` names the file in error messages. With
// ParseDepth::scene and `models` (indices among Objects' children, ascending) not empty, only
// those Models are built whole; the others keep their name and properties but not their
// Properties70 (read_scene then gives them the template's transform): for a reader that
// samples a few known Models.
Document parse(std::string data, const std::string& source_name, ParseDepth depth = ParseDepth::all,
               std::span<const std::uint32_t> models = {});
// Builds the children of a node a ParseDepth::scene parse deferred (no-op otherwise).
void parse_children(Document& doc, Node& node);
// Reads and parses a file; errors name `path`.
Document read_file(const std::filesystem::path& path);

// The file bytes of `doc`. For a Document read from a file and not changed, exactly the bytes
// read. Otherwise untouched parts keep their bytes (binary: only record headers and the
// footer's alignment padding move with changed sizes; ASCII: only replaced property texts and
// inserted nodes differ). Replaced and created integer arrays (key times, flags) are
// zlib-compressed (level 1) when the array they replace was, or, for created ones, when they
// hold 128 bytes or more; float arrays (key values, which zlib shrinks by ~10% only) are stored
// raw. Unchanged records (and deferred nodes, which must be unchanged: std::logic_error
// otherwise) are copied whole, only their end offsets moved.
std::string write(const Document& doc);

// write() to `path` atomically (temp file + rename).
void save(const std::filesystem::path& path, const Document& doc);

}  // namespace ikfix::io::fbx
