#include "io/output_set.hpp"

#include <fcntl.h>  // AT_FDCWD, open
#include <stdio.h>  // renameat2, RENAME_EXCHANGE (glibc)
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "io/error.hpp"
#include "io/file_util.hpp"

namespace ikfix::io {

namespace {

namespace fs = std::filesystem;

thread_local OutputTransaction* t_current = nullptr;

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// The nearest existing folder at or above `path` (absolute, normalised) and the rest below it.
bool locate(const fs::path& path, struct stat& st, std::string& rest) {
  std::error_code ec;
  fs::path at = fs::absolute(path, ec).lexically_normal();
  if (ec) return false;
  fs::path below;
  while (::stat(at.c_str(), &st) != 0) {
    if (!at.has_relative_path()) return false;
    below = below.empty() ? at.filename() : at.filename() / below;
    at = at.parent_path();
  }
  rest = below.string();
  return true;
}

void fsync_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

enum class Placed { Nothing, Swapped, Created };

// Puts one temp at its path; errno is set when it returns false.
bool place_one(const StagedFile& file, Placed& placed) {
  struct stat st {};
  const bool exists = ::lstat(file.path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    return false;
  }
  if (exists && is_noted_input(file.path)) fsync_file(file.temp);
  if (exists &&
      ::renameat2(AT_FDCWD, file.temp.c_str(), AT_FDCWD, file.path.c_str(), RENAME_EXCHANGE) == 0) {
    placed = Placed::Swapped;
    return true;
  }
  if (exists && errno != EINVAL && errno != ENOSYS) return false;
  // No file there, or a file system that cannot swap: a plain rename (no undo for the latter).
  if (::rename(file.temp.c_str(), file.path.c_str()) != 0) return false;
  placed = exists ? Placed::Nothing : Placed::Created;
  return true;
}

void undo(const StagedFile& file, Placed placed) {
  if (placed == Placed::Swapped)
    ::renameat2(AT_FDCWD, file.temp.c_str(), AT_FDCWD, file.path.c_str(), RENAME_EXCHANGE);
  if (placed == Placed::Created) ::unlink(file.path.c_str());
}

}  // namespace

void OutputSet::add_input(const fs::path& path, const std::string& role) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return;
  const Key key{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino), ""};
  const auto output = outputs_.find(key);
  if (output != outputs_.end() && !output->second.may_be_input)
    throw std::invalid_argument(output->second.role + " " + output->second.path + " is the input " +
                                path.string() + " (" + role + "); refusing to overwrite it");
  inputs_.emplace(key, Named{path.string(), role, false});
}

void OutputSet::add_output(const fs::path& path, const std::string& role, bool may_be_input) {
  if (path.empty()) return;
  struct stat st {};
  Key key;
  if (!locate(path, st, key.rest))
    throw std::invalid_argument(role + " " + path.string() + ": no folder of it can be reached");
  if (key.rest.empty() && !S_ISREG(st.st_mode))
    throw std::invalid_argument(role + " " + path.string() + " is " + kind_of(st.st_mode) +
                                ", not a regular file; refusing to replace it");
  key.device = static_cast<std::uint64_t>(st.st_dev);
  key.inode = static_cast<std::uint64_t>(st.st_ino);
  const auto input = inputs_.find(key);
  if (!may_be_input && input != inputs_.end())
    throw std::invalid_argument(role + " " + path.string() + " is the input " + input->second.path +
                                " (" + input->second.role + "); refusing to overwrite it");
  const auto [other, added] = outputs_.emplace(key, Named{path.string(), role, may_be_input});
  if (!added)
    throw std::invalid_argument(role + " " + path.string() + " and " + other->second.role + " " +
                                other->second.path + " are the same file");
}

OutputTransaction::OutputTransaction() : outer_(t_current) { t_current = this; }

OutputTransaction::~OutputTransaction() {
  t_current = outer_;
  if (committed_) return;
  for (const StagedFile& file : staged_) ::unlink(file.temp.c_str());
}

OutputTransaction* OutputTransaction::current() { return t_current; }

void OutputTransaction::stage(StagedFile file) { staged_.push_back(std::move(file)); }

void OutputTransaction::commit() {
  committed_ = true;  // place_all removes the temps whatever happens
  if (outer_) {       // a transaction inside another: its files join the outer one's
    for (StagedFile& file : staged_) outer_->stage(std::move(file));
  } else {
    place_all(staged_);
  }
  staged_.clear();
}

void place_all(std::vector<StagedFile>& files) {
  std::vector<Placed> placed(files.size(), Placed::Nothing);
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (place_one(files[i], placed[i])) continue;
    const int error = errno;
    for (std::size_t j = i; j-- > 0;) undo(files[j], placed[j]);
    for (const StagedFile& file : files) ::unlink(file.temp.c_str());
    throw InputError(files[i].path.string(),
                     std::string("cannot put the output in place: ") + std::strerror(error));
  }
  for (std::size_t i = 0; i < files.size(); ++i)
    if (placed[i] == Placed::Swapped) ::unlink(files[i].temp.c_str());  // the old file
}

}  // namespace ikfix::io
