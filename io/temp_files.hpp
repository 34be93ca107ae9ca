#pragma once
// The hidden temp files outputs are written to before they are put in place
// (`.NAME.tmp-PID-SEQ` beside NAME), known to this process so that a SIGINT or SIGTERM can remove
// them (remove_temp_files_now is async-signal-safe) and a later run can remove those a killed
// process left behind (remove_stale_temp_files).
#include <filesystem>
#include <string>

namespace ikfix::io {

// A fresh temp path beside `path` for this process (unique within it too).
std::filesystem::path temp_path_for(const std::filesystem::path& path);

// True when `name` (a file name, no folder) has the form temp_path_for gives.
bool is_temp_file_name(const std::string& name);

// Holds `path` in the process's list of temp files while alive; the destructor takes it off the
// list (it does not remove the file). Paths longer than PATH_MAX or beyond the list's 256 slots
// are not listed (a signal then leaves that one temp, as before).
class TempFileListing {
 public:
  explicit TempFileListing(const std::filesystem::path& path);
  ~TempFileListing();
  TempFileListing(TempFileListing&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
  TempFileListing& operator=(TempFileListing&&) = delete;
  TempFileListing(const TempFileListing&) = delete;
  TempFileListing& operator=(const TempFileListing&) = delete;

 private:
  int slot_ = -1;
};

// Unlinks every listed temp file. Async-signal-safe: for a SIGINT/SIGTERM handler.
void remove_temp_files_now();

// Installs SIGINT and SIGTERM handlers that remove the listed temp files and then end the
// process by the same signal (the shell sees the usual 128+N). For commands that do not handle
// the signals themselves (batch does: see cmd_batch.cpp).
void remove_temp_files_on_signals();

// Removes the temp files under `folder` (recursively when `recursive`) whose writing process
// is gone (its PID no longer runs, or is this process's own from before). Returns how many.
int remove_stale_temp_files(const std::filesystem::path& folder, bool recursive);

}  // namespace ikfix::io
