#pragma once
// `ikfix map SOURCE --to TARGET [--save map.json] [--json]`: the automatic bone map from a
// source clip's skeleton to a target character's, as a table (or JSON), optionally saved for
// editing and `ikfix retarget --map`. Exit 2 naming the missing roles when it is unusable.
#include <CLI/CLI.hpp>

namespace ikfix::cli {

void add_map_command(CLI::App& app, int& exit_code);

}  // namespace ikfix::cli
