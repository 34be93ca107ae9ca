#include "io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "io/error.hpp"
#include "io/file_util.hpp"

namespace ikfix::io {

MappedFile::MappedFile(const std::filesystem::path& path) {
  const std::string name = path.string();
  const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(name, std::string("cannot open: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    throw InputError(name, std::string("cannot read: ") + std::strerror(error));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    owned_ = read_file(path);
    data_ = owned_.data();
    size_ = owned_.size();
    return;
  }
  size_ = static_cast<std::size_t>(info.st_size);
  if (size_ > 0) {
    void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapped == MAP_FAILED) {
      const int error = errno;
      ::close(fd);
      throw InputError(name, std::string("cannot map: ") + std::strerror(error));
    }
    data_ = static_cast<const char*>(mapped);
    mapped_ = true;
    ::madvise(mapped, size_, MADV_WILLNEED);
  }
  fd_ = fd;
  note_input(path);
}

bool MappedFile::copy(std::size_t begin, char* out, std::size_t bytes) const {
  if (begin > size_ || bytes > size_ - begin) return false;
  if (!mapped_) {
    if (bytes > 0) std::memcpy(out, data_ + begin, bytes);
    return true;
  }
  while (bytes > 0) {
    const ssize_t got = ::pread(fd_, out, bytes, static_cast<off_t>(begin));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    const auto n = static_cast<std::size_t>(got);
    out += n, begin += n, bytes -= n;
  }
  return true;
}

void MappedFile::release(std::size_t begin, std::size_t end) const {
  if (!mapped_ || end > size_ || begin >= end) return;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t first = (begin + page - 1) / page * page;
  const std::size_t last = end == size_ ? end : end / page * page;
  if (first >= last) return;
  ::madvise(const_cast<char*>(data_) + first, last - first, MADV_DONTNEED);
}

void MappedFile::map_now(std::size_t begin, std::size_t end) const {
#ifdef MADV_POPULATE_READ
  if (!mapped_ || end > size_ || begin >= end) return;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t first = begin / page * page;
  ::madvise(const_cast<char*>(data_) + first, end - first, MADV_POPULATE_READ);
#else
  (void)begin, (void)end;
#endif
}

MappedFile::~MappedFile() {
  if (mapped_) ::munmap(const_cast<char*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace ikfix::io
