#pragma once
// A whole input file mapped read-only into memory: large meshes are parsed straight from the
// page cache, without first copying every byte into a string.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace ikfix::io {

class MappedFile {
 public:
  // Maps `path` (an empty file gives an empty view); what is not a regular file (a pipe) is read
  // into memory instead (read_file). Throws InputError naming the path when it cannot be
  // opened, read or mapped. Notes the file as an input (note_input).
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view text() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;  // the mapping, or owned_'s bytes
  std::size_t size_ = 0;
  bool mapped_ = false;
  std::string owned_;
};

}  // namespace ikfix::io
