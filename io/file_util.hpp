#pragma once
// Whole-file reads and atomic writes (temp file in the same folder + rename), so a crash or a
// Ctrl-C never leaves a half-written output and an input is never clobbered by accident.
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace ikfix::io {

// Reads the whole file; throws InputError naming the path when it cannot. Notes it as an input
// (note_input).
std::string read_file(const std::filesystem::path& path);

// Inputs this process has read, by identity (device, inode and birth time, so any path to the
// file counts, and a new file given a deleted input's inode number does not).
// write_file_atomic replaces an input the careful way (see there). Readers that open files
// themselves note them here. Thread-safe.
void note_input(const std::filesystem::path& path);
bool is_noted_input(const std::filesystem::path& path);

// Writes `data` to `path` via a temp file beside it (io/temp_files.hpp) and a rename. Creates
// missing parent folders. Throws InputError naming the path on failure (with the errno text);
// leaves no temp file behind. A `path` that exists and is not a regular file (a device, FIFO,
// socket, folder) is refused. An existing file at `path` is swapped with the temp file in one
// step and then removed (io::place_all): `path` holds a whole file throughout. Inside an
// io::OutputTransaction on this thread the temp file is only written; the transaction's commit
// puts it in place together with the command's other outputs.
void write_file_atomic(const std::filesystem::path& path, std::string_view data);
// Same, the file being the concatenation of `pieces` (saves joining them in memory first).
void write_file_atomic(const std::filesystem::path& path, std::span<const std::string_view> pieces);

// Receives the next bytes of a file being written.
using ByteSink = std::function<void(std::string_view bytes)>;
// Same, the file being every byte `produce` passes to `emit`, in order, as it goes (a writer can
// stream its output through a small buffer instead of holding all of it). When `produce` throws,
// the temp file is removed, `path` is left as it was and the exception propagates.
void write_file_atomic(const std::filesystem::path& path,
                       const std::function<void(const ByteSink& emit)>& produce);

struct StagedFile;  // io/output_set.hpp
// write_file_atomic in two halves, for a file made on another thread than the one whose
// io::OutputTransaction is to take it: write_temp_file writes the temp file (any thread), and
// place_written, on that thread, puts it in place or hands it to the transaction. A WrittenFile
// dropped before that removes its temp file.
class WrittenFile {
 public:
  WrittenFile();
  explicit WrittenFile(StagedFile file);
  WrittenFile(WrittenFile&&) noexcept;
  WrittenFile& operator=(WrittenFile&&) noexcept;
  ~WrittenFile();

 private:
  friend void place_written(WrittenFile file);
  std::unique_ptr<StagedFile> file_;
};
WrittenFile write_temp_file(const std::filesystem::path& path,
                            std::span<const std::string_view> pieces);
void place_written(WrittenFile file);

}  // namespace ikfix::io
