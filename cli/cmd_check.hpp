#pragma once
// `ikfix check CLIP --terrain MESH [--report R.json] [--fail-on ...]`: measure a clip as it is
// (penetration, sliding, float, bone lengths, knees, jerk, unreachable frames); writes no clip.
#include <CLI/CLI.hpp>

namespace ikfix::cli {

void add_check_command(CLI::App& app, int& exit_code);

}  // namespace ikfix::cli
