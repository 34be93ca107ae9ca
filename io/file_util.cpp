#include "io/file_util.hpp"

#include <fcntl.h>  // AT_FDCWD
#include <stdio.h>  // renameat2, RENAME_EXCHANGE (glibc)
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <compare>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <system_error>
#include <utility>

#include "io/error.hpp"

namespace ikfix::io {

namespace {

// Device, inode and birth time: an inode number freed by a deleted input can be given to a new
// file, which must not count as that input (a test process that reads and deletes many files saw
// it). Birth time is 0 where the file system does not keep it; identity is then device + inode.
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::int64_t birth_sec = 0;
  std::uint32_t birth_nsec = 0;
  auto operator<=>(const FileIdentity&) const = default;
};

struct NotedInputs {
  std::mutex mutex;
  std::set<FileIdentity> files;
};

NotedInputs& noted_inputs() {
  static NotedInputs inputs;
  return inputs;
}

bool identity_of(const std::filesystem::path& path, FileIdentity& id) {
  struct statx st {};
  if (::statx(AT_FDCWD, path.c_str(), 0, STATX_INO | STATX_BTIME, &st) != 0) return false;
  id = {};
  id.device = (static_cast<std::uint64_t>(st.stx_dev_major) << 32) | st.stx_dev_minor;
  id.inode = st.stx_ino;
  if (st.stx_mask & STATX_BTIME) {
    id.birth_sec = st.stx_btime.tv_sec;
    id.birth_nsec = st.stx_btime.tv_nsec;
  }
  return true;
}

// Puts `temp` at `path` in one step when a file is there, then removes the old one (now at
// `temp`). False when nothing was swapped (no file at `path`, or a file system that cannot swap).
bool swap_into_place(const std::filesystem::path& temp, const std::filesystem::path& path) {
  // Only over a regular file: a swap would also trade places with a directory or a device,
  // where a rename fails with the error the caller reports.
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) != 0)
    return false;
  // The new file is in place whatever happens next; an old file that cannot be removed stays
  // under the hidden temp name, as after an interrupted write.
  std::error_code ec;
  std::filesystem::remove(temp, ec);
  return true;
}

}  // namespace

void note_input(const std::filesystem::path& path) {
  FileIdentity id;
  if (!identity_of(path, id)) return;
  NotedInputs& inputs = noted_inputs();
  const std::lock_guard lock(inputs.mutex);
  inputs.files.insert(id);
}

bool is_noted_input(const std::filesystem::path& path) {
  FileIdentity id;
  if (!identity_of(path, id)) return false;
  NotedInputs& inputs = noted_inputs();
  const std::lock_guard lock(inputs.mutex);
  return inputs.files.count(id) > 0;
}

std::string read_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path.string(), "is a directory, not a file");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path.string(), std::string("cannot open: ") + std::strerror(errno));
  // Read straight into a string of the file's size (growing it chunk by chunk copied a 2 MB
  // clip several times over, with fresh pages each time); keep reading in case it grew.
  std::string data;
  const auto size = std::filesystem::file_size(path, ec);
  std::size_t used = 0;
  if (!ec && size > 0) {
    data.resize(static_cast<std::size_t>(size));
    used = std::fread(data.data(), 1, data.size(), f);
  }
  if (used < data.size()) {
    data.resize(used);  // shorter than it was a moment ago (or a read error, checked below)
  } else {
    char buffer[1 << 16];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) data.append(buffer, n);
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw InputError(path.string(), "read error");
  note_input(path);
  return data;
}

void write_file_atomic(const std::filesystem::path& path, std::string_view data) {
  write_file_atomic(path, std::span<const std::string_view>(&data, 1));
}

void write_file_atomic(const std::filesystem::path& path,
                       std::span<const std::string_view> pieces) {
  write_file_atomic(path, [&](const ByteSink& emit) {
    for (const std::string_view data : pieces) emit(data);
  });
}

void write_file_atomic(const std::filesystem::path& path,
                       const std::function<void(const ByteSink& emit)>& produce) {
  std::error_code ec;
  const auto parent = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::filesystem::create_directories(parent, ec);
  if (ec) throw InputError(path.string(), "cannot create folder: " + ec.message());
  // Unique temp name in the same folder so the rename is atomic on the same file system.
  std::string temp_name = "." + path.filename().string() + ".tmp-" + std::to_string(::getpid());
  const auto temp = parent / temp_name;
  std::FILE* f = std::fopen(temp.c_str(), "wb");
  if (!f) throw InputError(path.string(), std::string("cannot write: ") + std::strerror(errno));
  bool wrote = true;
  try {
    produce([&](std::string_view data) {
      wrote = wrote && std::fwrite(data.data(), 1, data.size(), f) == data.size();
    });
  } catch (...) {
    std::fclose(f);
    std::filesystem::remove(temp, ec);
    throw;
  }
  const bool flushed = std::fflush(f) == 0;
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !flushed || !closed) {
    std::filesystem::remove(temp, ec);
    throw InputError(path.string(), "write failed (disk full?)");
  }
  if (!is_noted_input(path) && swap_into_place(temp, path)) return;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    throw InputError(path.string(), "cannot replace file: " + ec.message());
  }
}

}  // namespace ikfix::io
