#pragma once
// `ikfix batch INPUTS... --terrain MESH --out-dir DIR [--jobs N] [--shard I/N] [--report R.json]
// [--junit R.xml] [--fail-on LIST] [--allow-errors] [--resume]`: fix a whole library of clips onto
// one terrain, in parallel, each output mirrored under DIR. README "Batch" has the details.
#include <CLI/CLI.hpp>

namespace ikfix::cli {

// Exit codes of an interrupted batch: 128 + the signal, as shells report it.
inline constexpr int kExitInterrupted = 130;  // SIGINT (Ctrl-C); SIGTERM gives 143

// Adds the `batch` subcommand; its callback sets `exit_code` (see exit_codes.hpp).
void add_batch_command(CLI::App& app, int& exit_code);

}  // namespace ikfix::cli
