#pragma once
// Whole-file reads and atomic writes (temp file in the same folder + rename), so a crash or a
// Ctrl-C never leaves a half-written output and an input is never clobbered by accident.
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace ikfix::io {

// Reads the whole file; throws InputError naming the path when it cannot.
std::string read_file(const std::filesystem::path& path);

// Writes `data` to `path` via a temp file beside it and a rename. Creates missing parent
// folders. Throws InputError naming the path on failure; leaves no temp file behind.
void write_file_atomic(const std::filesystem::path& path, std::string_view data);
// Same, the file being the concatenation of `pieces` (saves joining them in memory first).
void write_file_atomic(const std::filesystem::path& path, std::span<const std::string_view> pieces);

}  // namespace ikfix::io
