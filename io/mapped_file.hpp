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
  // Drops the mapped pages wholly inside bytes [begin, end) from this process's memory (they
  // stay in the page cache; reading them again maps them again). Nothing for a file read into
  // memory. Lets a reader of a file larger than the memory it may use go through it once.
  void release(std::size_t begin, std::size_t end) const;
  // Maps the pages of bytes [begin, end) now, in one call (reading them then takes no page
  // fault); a hint, nothing where the system cannot.
  void map_now(std::size_t begin, std::size_t end) const;
  // Copies bytes [begin, begin + bytes) of the file into `out` with read calls, never touching
  // the mapping (none of its pages mapped); false when they cannot all be read (the file
  // shrank, a read error) or lie past the size mapped.
  bool copy(std::size_t begin, char* out, std::size_t bytes) const;

 private:
  const char* data_ = nullptr;  // the mapping, or owned_'s bytes
  std::size_t size_ = 0;
  bool mapped_ = false;
  int fd_ = -1;  // the mapped file, kept open for copy
  std::string owned_;
};

}  // namespace ikfix::io
