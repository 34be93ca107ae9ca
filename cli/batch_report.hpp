#pragma once
// The batch report (README "Batch report") and `ikfix report merge`. A batch and a merge of shard
// reports build their report with the same function from per-clip entries sorted by input, so a
// merge of shards is byte-identical to a single run, except the "run" block: the one part that
// depends on the run (jobs, shard, timings) and that merge recomputes.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ikfix::cli {

using Json = nlohmann::ordered_json;

inline constexpr int kBatchSchemaVersion = 1;

// What every shard of one batch shares; merge refuses reports that differ here.
struct BatchHeader {
  std::string tool_version;    // of the ikfix that fixed the clips
  std::string terrain;         // as given
  std::string settings_hash;   // settings_hash() of the run
  std::string fail_on;         // --fail-on as given
  long errors_limit = 0;       // the batch fails when more clips than this failed; -1: never
                               // (--allow-errors without `errors` in --fail-on)
};

enum class ClipStatus { Ok, Error, NotDone };

// One clip's entry: `report` is its full run report (null unless Ok), `error` the one-line error,
// `held` the --fail-on conditions that held for it ("unreachable=12>0").
Json clip_entry(const std::string& input, const std::string& output, ClipStatus status, const std::string& error,
                const Json& report, const std::vector<std::string>& held);

// The whole report: header, totals, worst clips, errors, not-done clips, every entry (sorted here
// by input), then `run` as given (run-dependent: jobs, shard, timings).
Json make_batch_report(const BatchHeader& header, std::vector<Json> entries, const Json& run);

// Joins batch reports (e.g. one per shard) into the report one run over all their clips writes.
// Throws std::invalid_argument when they come from different settings or share a clip.
// `sources` name the reports in messages. Warnings (e.g. a missing shard) go to `warnings`.
Json merge_batch_reports(const std::vector<Json>& reports, const std::vector<std::string>& sources,
                         std::vector<std::string>& warnings);

// Whether the batch passed: no --fail-on condition held, no failed clip (unless allowed) and every
// clip done. Read from a batch report's totals.
bool batch_passed(const Json& report);

// Throws std::invalid_argument unless `report` looks like a batch report.
void check_batch_report(const Json& report, const std::string& source);

}  // namespace ikfix::cli
