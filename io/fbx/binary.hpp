#pragma once
// Internal: the binary and ASCII halves of the FBX reader/writer (see reader.hpp).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "io/fbx/document.hpp"

namespace ikfix::io::fbx::detail {

// True when `data` starts with the binary FBX magic.
bool looks_binary(std::string_view data);
// The version field of a binary header (0 when too short).
std::uint32_t binary_version(std::string_view data);
// Fills doc.root from doc.data (doc.version and doc.encoding already set). Throws InputError.
// `scene_only`: see ParseDepth::scene.
void parse_binary(Document& doc, bool scene_only = false,
                  std::span<const std::uint32_t> models = {});
// Builds the children of a node parse_binary deferred.
void parse_binary_children(Document& doc, Node& node);
std::string write_binary(const Document& doc);

// ASCII: FBXVersion as declared in the text (the header comment "; FBX 7.5.0 project file"
// or FBXHeaderExtension/FBXVersion), 0 when neither is found.
std::uint32_t ascii_version(std::string_view data);
void parse_ascii(Document& doc);
std::string write_ascii(const Document& doc);

}  // namespace ikfix::io::fbx::detail
