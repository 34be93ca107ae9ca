#pragma once
// External glTF buffer files, read confined: a buffer `uri` names a regular file in the glTF
// file's folder or below it. Absolute paths, `file:` uris and paths that leave the folder
// (`..`, also %-encoded, or a link out of it) are refused without touching the file they name,
// unless outside uris are allowed (--allow-outside-uris); a FIFO, device or folder is refused
// either way; never more than the buffer's byteLength is read.
#include <cstddef>
#include <filesystem>
#include <string>

namespace ikfix::io::gltf {

// Process-wide, set once by the CLI before any file is read (default: refused).
void set_allow_outside_uris(bool allow);

// `uri` with %XX sequences decoded.
std::string percent_decode(const std::string& uri);

// The first `byte_length` bytes of the file `uri` names, relative to `gltf_path`'s folder.
// Throws InputError naming `source_name` with `where` ("buffer 2") and the cause; a message
// about a refused uri says nothing of the file (whether it exists, its size).
std::string read_uri_file(const std::filesystem::path& gltf_path, const std::string& source_name,
                          const std::string& uri, std::size_t byte_length,
                          const std::string& where);

}  // namespace ikfix::io::gltf
