#pragma once
// A glTF 2.0 asset (.gltf or .glb) kept whole: the original bytes, the parsed JSON and the
// buffers, plus the node and animation tables the reader derives from them. The writer patches
// this document (see writer.hpp), so every byte it does not have to change stays as it was.
//
// Nodes are identified by their index in `nodes`, never by name: names may be missing or
// repeated. `display_name` gives every node a stable, unique name for messages and for
// core::Skeleton ("node_12" for an unnamed node 12).
//
// Ownership: a Document owns all its bytes; buffers are (owner, offset, length) triples into
// `file_bytes` or `owned_buffers`, so a Document can be moved freely.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/math.hpp"

namespace ikfix::io::gltf {

using Json = nlohmann::ordered_json;

enum class Container : std::uint8_t { gltf, glb };

// Where a buffer's bytes come from.
enum class BufferSource : std::uint8_t {
  glb_bin,   // the GLB BIN chunk (buffer 0 of a .glb without a uri)
  data_uri,  // an embedded base64 data URI
  external,  // a file next to the asset (relative uri) or an absolute path
};

struct Buffer {
  BufferSource source = BufferSource::glb_bin;
  std::string uri;              // as written in the JSON ("" for glb_bin)
  std::size_t byte_length = 0;  // buffer.byteLength
  int owner = -1;               // -1: bytes live in Document::file_bytes; else owned_buffers[owner]
  std::size_t offset = 0;       // first byte within the owner
};

struct Node {
  std::string display_name;  // name, or "node_<i>"; unique within the document
  int parent = -1;           // -1 for a root
  std::vector<int> children;
  bool has_matrix = false;  // the node uses `matrix` (glTF forbids animating such a node)
  core::Transform rest;     // its TRS (matrix decomposed), metres
};

enum class Path : std::uint8_t { translation, rotation, scale, other };
enum class Interpolation : std::uint8_t { linear, step, cubic_spline };

struct Sampler {
  int input = -1;   // accessor of key times (seconds)
  int output = -1;  // accessor of key values
  Interpolation interpolation = Interpolation::linear;
};

struct Channel {
  int sampler = -1;
  int node = -1;  // -1 when the channel has no node target (e.g. KHR_animation_pointer)
  Path path = Path::other;
};

struct Animation {
  std::string name;          // as in the file ("" when unnamed)
  std::string display_name;  // name, or "animation_<i>"
  std::vector<Sampler> samplers;
  std::vector<Channel> channels;
};

struct Document {
  std::filesystem::path path;  // the file read (base for external uris)
  std::string source_name;     // for error messages
  Container container = Container::gltf;

  // The whole file as read. For .glb, the JSON chunk is file_bytes[json_offset, +json_length)
  // and the BIN chunk data (if any) is file_bytes[bin_offset, +bin_length); chunks after the
  // BIN chunk (unknown types) start at tail_offset and are kept verbatim.
  std::string file_bytes;
  std::size_t json_offset = 0;
  std::size_t json_length = 0;
  bool has_bin_chunk = false;
  std::size_t bin_offset = 0;
  std::size_t bin_length = 0;
  std::size_t tail_offset = 0;

  Json json;  // parsed JSON, keys in file order
  // Where each top-level member's value lies in json_text() (key, [begin, end)), in text order,
  // so the writer can splice without scanning the text again.
  struct MemberSpan {
    std::string key;
    std::size_t begin = 0;
    std::size_t end = 0;
  };
  std::vector<MemberSpan> top_members;
  std::size_t top_begin = 0, top_end = 0;  // the top-level object
  std::vector<std::string> owned_buffers;  // decoded data URIs and external files
  std::vector<Buffer> buffers;
  std::vector<Node> nodes;
  std::vector<Animation> animations;
  int scene = -1;  // the default scene (`scene`, else 0 when scenes exist, else -1)

  std::string_view json_text() const {
    return std::string_view(file_bytes).substr(json_offset, json_length);
  }
  std::string_view buffer_bytes(int buffer) const {
    const Buffer& b = buffers[buffer];
    const std::string& owner = b.owner < 0 ? file_bytes : owned_buffers[b.owner];
    return std::string_view(owner).substr(b.offset, b.byte_length);
  }
};

// obj[key] when it is an array, else an empty array (never copies).
inline const Json& array_member(const Json& obj, const char* key) {
  static const Json empty = Json::array();
  const auto it = obj.find(key);
  return it != obj.end() && it->is_array() ? *it : empty;
}

inline std::string_view path_name(Path p) {
  switch (p) {
    case Path::translation:
      return "translation";
    case Path::rotation:
      return "rotation";
    case Path::scale:
      return "scale";
    default:
      return "other";
  }
}

}  // namespace ikfix::io::gltf
