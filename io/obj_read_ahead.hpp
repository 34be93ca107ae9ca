#pragma once
// A large OBJ terrain's first pass (its positions and normals, io/obj_parts) begun on a thread of
// its own while the caller still reads the clip whose footprint the rest of the terrain's read
// needs: the cores the clip's read leaves idle read part of the terrain meanwhile. The terrain
// is the same as when read later (each chunk is read the same whichever thread reads it).
#include <atomic>
#include <filesystem>
#include <future>
#include <memory>
#include <optional>
#include <thread>

#include "io/mapped_file.hpp"
#include "io/obj_parts.hpp"

namespace ikfix::core {
class ParallelRunner;
}

namespace ikfix::io {

class ObjReadAhead {
 public:
  // Maps `path` and begins the first pass load_terrain_part makes of it with a footprint on
  // `runner`'s threads. Null when that read would not begin so: a file that is not an OBJ file
  // of kReadAheadFromBytes or more, a runner of fewer than two threads, a file that cannot be
  // opened (load_terrain_part then names the problem, when it reads the file). Never throws.
  static std::unique_ptr<ObjReadAhead> start(const std::filesystem::path& path,
                                             const core::ParallelRunner* runner);
  // Below this, an OBJ file is read on one thread (load_terrain_part): nothing to begin early.
  static constexpr std::uintmax_t kReadAheadFromBytes = std::uintmax_t{2} << 20;

  ~ObjReadAhead();  // stops the pass (a chunk being read is finished) and waits for its thread
  ObjReadAhead(const ObjReadAhead&) = delete;
  ObjReadAhead& operator=(const ObjReadAhead&) = delete;

  const std::filesystem::path& path() const { return path_; }
  const core::ParallelRunner* runner() const { return runner_; }
  // The file as the pass mapped it: null when it could not (then nothing was read).
  const MappedFile* file();
  // The chunks no thread has begun read on runner()'s threads with `rect` (those begun before
  // without), then the pass's result: read_obj_terrain's first pass with a footprint
  // (io/obj_terrain.hpp, cropped_first_pass). Once, after file() gave a file, and not after
  // cancel().
  std::optional<ObjParts> finish(const ObjWorldRect& rect);
  // Stops the pass and waits for its thread (for a read that does not use it).
  void cancel();

 private:
  ObjReadAhead(const std::filesystem::path& path, const core::ParallelRunner* runner);
  void begin();  // on thread_: maps the file, then reads chunks

  std::filesystem::path path_;
  const core::ParallelRunner* runner_;
  // Set on thread_ before `mapped_` is made ready, read after.
  std::optional<MappedFile> file_;
  ObjTextPages pages_;  // copies of the file's bytes, never its mapping's pages
  std::unique_ptr<ObjElementChunks> chunks_;
  std::promise<void> mapped_promise_;
  std::future<void> mapped_;
  std::atomic<bool> cancelled_{false};
  std::thread thread_;
};

}  // namespace ikfix::io
