#pragma once
// Base64 (RFC 4648, standard alphabet, '=' padding) for glTF data URIs.
#include <optional>
#include <string>
#include <string_view>

namespace ikfix::io::gltf {

// Decodes `text`; whitespace is skipped, padding is optional. nullopt on any other character.
std::optional<std::string> base64_decode(std::string_view text);

// Encodes `bytes` with '=' padding.
std::string base64_encode(std::string_view bytes);

}  // namespace ikfix::io::gltf
