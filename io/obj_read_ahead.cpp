#include "io/obj_read_ahead.hpp"

#include <limits>
#include <system_error>
#include <utility>

#include "core/parallel.hpp"
#include "io/obj_terrain.hpp"
#include "io/terrain_io.hpp"

namespace ikfix::io {

std::unique_ptr<ObjReadAhead> ObjReadAhead::start(const std::filesystem::path& path,
                                                  const core::ParallelRunner* runner) {
  if (!runner || runner->threads() < 2 || !has_obj_extension(path)) return nullptr;
  std::error_code ec;
  // A regular file only: what else a path names (a pipe) can be read once.
  if (!std::filesystem::is_regular_file(path, ec) ||
      std::filesystem::file_size(path, ec) < kReadAheadFromBytes || ec)
    return nullptr;
  try {
    return std::unique_ptr<ObjReadAhead>(new ObjReadAhead(path, runner));
  } catch (const std::exception&) {  // no thread: the read is done later, as without
    return nullptr;
  }
}

ObjReadAhead::ObjReadAhead(const std::filesystem::path& path, const core::ParallelRunner* runner)
    : path_(path), runner_(runner), mapped_(mapped_promise_.get_future()) {
  thread_ = std::thread([this] { begin(); });
}

void ObjReadAhead::begin() {
  // Mapping a large file (and the kernel's read-ahead advice) costs the caller nothing here.
  try {
    file_.emplace(path_);
    pages_.copy = [this](std::size_t begin, char* out, std::size_t bytes) {
      return file_->copy(begin, out, bytes);
    };
    chunks_ = cropped_first_pass(file_->text(), runner_, pages_);
  } catch (const std::exception&) {  // read again by load_terrain_part, which names the problem
    file_.reset();
    chunks_.reset();
  }
  mapped_promise_.set_value();
  // From the back: a chunk read before the footprint is known keeps its positions whole (24
  // bytes each, not 1), and a file's positions mostly come first.
  if (chunks_ && !cancelled_.load())
    chunks_->read_unclaimed(std::numeric_limits<std::size_t>::max(), /*from_back=*/true);
}

ObjReadAhead::~ObjReadAhead() { cancel(); }

const MappedFile* ObjReadAhead::file() {
  mapped_.wait();
  return chunks_ ? &*file_ : nullptr;
}

std::optional<ObjParts> ObjReadAhead::finish(const ObjWorldRect& rect) {
  mapped_.wait();
  chunks_->set_world_rect(rect);
  chunks_->read_unclaimed_on(runner_);
  if (thread_.joinable()) thread_.join();
  return chunks_->result();
}

void ObjReadAhead::cancel() {
  cancelled_.store(true);
  mapped_.wait();
  if (chunks_) chunks_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace ikfix::io
