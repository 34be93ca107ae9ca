#pragma once
// The batch report (README "Batch report") and `ikfix report merge`. A batch and a merge of shard
// reports build their report with the same function from per-clip entries sorted by input, so a
// merge of shards is byte-identical to a single run, except the "run" block: the one part that
// depends on the run (jobs, shard, timings) and that merge recomputes.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ikfix::cli {

using Json = nlohmann::ordered_json;

inline constexpr int kBatchSchemaVersion = 1;

// What every shard of one batch shares; merge refuses reports that differ here.
struct BatchHeader {
  std::string tool_version;   // of the ikfix that fixed the clips
  std::string terrain;        // as given
  std::string settings_hash;  // settings_hash() of the run
  std::string fail_on;        // --fail-on as given
  long errors_limit = 0;      // the batch fails when more clips than this failed; -1: never
                              // (--allow-errors without `errors` in --fail-on)
};

enum class ClipStatus { Ok, Error, NotDone };

// One clip's entry, kept small until the report is written: `summary` holds every field but the
// full run report, which waits as compact JSON text (a few KB; "null" when there is none), so a
// batch holds no JSON tree per clip and its memory grows only by that text as the library grows.
struct ClipEntry {
  Json summary;
  std::string report = "null";
};

// `report` is the clip's full run report (null unless Ok), `error` its one-line error, `held` the
// --fail-on conditions that held for it ("unreachable=12>0").
ClipEntry clip_entry(const std::string& input, const std::string& output, ClipStatus status,
                     const std::string& error, const Json& report,
                     const std::vector<std::string>& held);

struct BatchReport {
  Json head;                     // header, totals, worst_clips, errors, not_done
  std::vector<ClipEntry> clips;  // sorted by input
  Json run;                      // run-dependent: jobs, shard, timings
};

// Sorts the entries by input and computes totals, worst clips, errors and not-done clips.
BatchReport make_batch_report(const BatchHeader& header, std::vector<ClipEntry> entries,
                              const Json& run);

// The report as `io::save_json` would write the whole object (2-space indent, final newline),
// built one clip at a time. Written atomically by save_batch_report.
std::string batch_report_text(const BatchReport& report);
void save_batch_report(const std::string& path, const BatchReport& report);

// Joins batch report files (e.g. one per shard) into the report one run over all their clips
// writes. Throws io::InputError for an unreadable file and std::invalid_argument when they come
// from different settings or share a clip. Warnings (e.g. a missing shard) go to `warnings`.
BatchReport merge_batch_reports(const std::vector<std::string>& paths,
                                std::vector<std::string>& warnings);

// Whether the batch passed: no --fail-on condition held, no failed clip (unless allowed) and every
// clip done.
bool batch_passed(const BatchReport& report);

}  // namespace ikfix::cli
