#include "io/file_util.hpp"

#include <fcntl.h>  // AT_FDCWD
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
#include <stdexcept>
#include <system_error>
#include <utility>
#include <vector>

#include "io/error.hpp"
#include "io/output_set.hpp"
#include "io/temp_files.hpp"

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

// Refuses an output path that exists and is not a regular file (or a link to one): a rename
// would put a file where a device, FIFO, socket or folder was.
void require_regular_or_new(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return;
  const char* kind = S_ISDIR(st.st_mode)                          ? "a folder"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                     : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                     : S_ISSOCK(st.st_mode)                       ? "a socket"
                                                                  : "not a regular file";
  throw InputError(path.string(),
                   std::string("is ") + kind + ", not a regular file; refusing to replace it");
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

namespace {

// write_file_atomic's temp file, written: `path`'s replacement, not yet in place.
StagedFile write_staged(const std::filesystem::path& path,
                        const std::function<void(const ByteSink& emit)>& produce) {
  require_regular_or_new(path);
  std::error_code ec;
  const auto parent = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::filesystem::create_directories(parent, ec);
  if (ec) throw InputError(path.string(), "cannot create folder: " + ec.message());
  // A unique temp name in the same folder, so that putting it in place is a rename.
  const auto temp = temp_path_for(path);
  StagedFile staged{temp, path, TempFileListing(temp)};
  std::FILE* f = std::fopen(staged.temp.c_str(), "wbx");
  if (!f) throw InputError(path.string(), std::string("cannot write: ") + std::strerror(errno));
  int error = 0;  // the first write error's errno
  try {
    produce([&](std::string_view data) {
      if (error == 0 && std::fwrite(data.data(), 1, data.size(), f) != data.size())
        error = errno != 0 ? errno : EIO;
    });
  } catch (...) {
    std::fclose(f);
    std::filesystem::remove(staged.temp, ec);
    throw;
  }
  if (std::fflush(f) != 0 && error == 0) error = errno != 0 ? errno : EIO;
  if (std::fclose(f) != 0 && error == 0) error = errno != 0 ? errno : EIO;
  if (error != 0) {
    std::filesystem::remove(staged.temp, ec);
    throw InputError(path.string(), std::string("write failed: ") + std::strerror(error));
  }
  return staged;
}

// Into this thread's transaction, or in place now.
void stage_or_place(StagedFile staged) {
  if (OutputTransaction* transaction = OutputTransaction::current()) {
    transaction->stage(std::move(staged));
    return;
  }
  std::vector<StagedFile> one;
  one.push_back(std::move(staged));
  place_all(one);
}

}  // namespace

void write_file_atomic(const std::filesystem::path& path,
                       const std::function<void(const ByteSink& emit)>& produce) {
  stage_or_place(write_staged(path, produce));
}

WrittenFile::WrittenFile() = default;
WrittenFile::WrittenFile(StagedFile file) : file_(std::make_unique<StagedFile>(std::move(file))) {}
WrittenFile::WrittenFile(WrittenFile&&) noexcept = default;
WrittenFile& WrittenFile::operator=(WrittenFile&&) noexcept = default;

WrittenFile::~WrittenFile() {
  if (!file_) return;
  std::error_code ec;
  std::filesystem::remove(file_->temp, ec);
}

WrittenFile write_temp_file(const std::filesystem::path& path,
                            std::span<const std::string_view> pieces) {
  return WrittenFile(write_staged(path, [&](const ByteSink& emit) {
    for (const std::string_view data : pieces) emit(data);
  }));
}

void place_written(WrittenFile file) {
  if (!file.file_) throw std::logic_error("place_written: no file written");
  StagedFile staged = std::move(*file.file_);
  file.file_.reset();  // handed over: its temp file is no longer this one's to remove
  stage_or_place(std::move(staged));
}

}  // namespace ikfix::io
