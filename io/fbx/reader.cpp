#include "io/fbx/reader.hpp"

#include "io/error.hpp"
#include "io/fbx/binary.hpp"
#include "io/file_util.hpp"

namespace ikfix::io::fbx {
namespace {

std::string version_text(std::uint32_t v) {
  return std::to_string(v / 1000) + "." + std::to_string((v / 100) % 10);
}

void check_version(const std::string& source_name, std::uint32_t version, const char* kind) {
  if (version >= 7000 && version < 8000) return;
  if (version > 0 && version < 7000)
    throw InputError(source_name,
                     "FBX " + version_text(version) + " is not supported (" + kind + " FBX " +
                         std::to_string(version) +
                         "); ikfix reads FBX 7.x - re-save the file as FBX 2011 or newer");
  throw InputError(source_name, std::string(kind) + " FBX version " + std::to_string(version) +
                                    " is not supported; ikfix reads FBX 7.x (7000-7999)");
}

}  // namespace

Document parse(std::string data, const std::string& source_name, ParseDepth depth,
               std::span<const std::uint32_t> models) {
  Document doc;
  doc.source_name = source_name;
  doc.data = std::move(data);
  if (detail::looks_binary(doc.data)) {
    doc.encoding = Encoding::binary;
    if (doc.data.size() < 27)
      throw InputError(source_name, "file is truncated (binary FBX header)");
    doc.version = detail::binary_version(doc.data);
    check_version(source_name, doc.version, "binary");
    detail::parse_binary(doc, depth == ParseDepth::scene, models);
    return doc;
  }
  doc.encoding = Encoding::ascii;
  doc.version = detail::ascii_version(doc.data);
  if (doc.version == 0) {
    if (doc.data.empty()) throw InputError(source_name, "empty file, not an FBX file");
    throw InputError(source_name, "not an FBX file (no binary FBX header and no ASCII FBXVersion)");
  }
  check_version(source_name, doc.version, "ASCII");
  detail::parse_ascii(doc);
  return doc;
}

void parse_children(Document& doc, Node& node) {
  if (node.deferred) detail::parse_binary_children(doc, node);
}

Document read_file(const std::filesystem::path& path) {
  return parse(io::read_file(path), path.string());
}

std::string write(const Document& doc) {
  if (doc.encoding == Encoding::binary) return detail::write_binary(doc);
  return detail::write_ascii(doc);
}

void save(const std::filesystem::path& path, const Document& doc) {
  write_file_atomic(path, write(doc));
}

}  // namespace ikfix::io::fbx
