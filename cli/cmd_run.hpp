#pragma once
// `ikfix run CLIP --terrain MESH [-o OUT] [--report R.json]`: fix one clip onto a terrain.
#include <CLI/CLI.hpp>

namespace ikfix::cli {

// Adds the `run` subcommand; its callback sets `exit_code` (see exit_codes.hpp).
void add_run_command(CLI::App& app, int& exit_code);

}  // namespace ikfix::cli
