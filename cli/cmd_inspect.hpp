#pragma once
// `ikfix inspect CLIP [--json]`: skeleton, legs found, fps, frames, unit and up axis.
#include <CLI/CLI.hpp>

namespace ikfix::cli {

void add_inspect_command(CLI::App& app, int& exit_code);

}  // namespace ikfix::cli
