#pragma once
// The boundary every command runs behind: bad input or usage found while running becomes one
// error line and exit code 2 (see exit_codes.hpp), whatever threw it.
#include <functional>
#include <string>

namespace ikfix::cli {

// `text` as one printable line: line breaks, tabs and other control bytes are written as \n, \r,
// \t and \xNN (an excerpt of a damaged file, a file name with a newline in it). Every error a
// command prints passes through it.
std::string escape_controls(const std::string& text);

// Runs `command` and returns its exit code. io::InputError and std::invalid_argument already
// name their file or option; any other exception is prefixed with `context` (the input).
int run_guarded(const std::string& context, const std::function<int()>& command);

}  // namespace ikfix::cli
