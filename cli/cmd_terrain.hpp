#pragma once
// `ikfix terrain flat|stairs|slope|bumps|cliff [options] -o out.obj`: writes a test terrain.
#include <CLI/CLI.hpp>

namespace ikfix::cli {

// Adds the `terrain` subcommand to `app`. When it runs it sets `exit_code`: 0 on success,
// 2 on an invalid parameter value, an option that does not apply to the kind, or a write
// failure (each reported as one spdlog error line). `exit_code` must outlive `app`'s parse.
void add_terrain_command(CLI::App& app, int& exit_code);

}  // namespace ikfix::cli
