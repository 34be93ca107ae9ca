#pragma once
// `ikfix report merge A.json B.json... -o ALL.json [--junit ALL.xml]`: joins batch reports (one per
// shard) into the report a single batch over all their clips writes.
#include <CLI/CLI.hpp>

namespace ikfix::cli {

// Adds the `report` subcommand (with `merge`); its callback sets `exit_code`: 0 the merged batch
// passed, 1 it did not (a --fail-on condition held, a clip failed, or a clip was not done), 2 bad
// usage or reports that do not belong together.
void add_report_command(CLI::App& app, int& exit_code);

}  // namespace ikfix::cli
