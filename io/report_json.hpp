#pragma once
// The JSON report of a run (schema documented in README.md, "Report schema").
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/diagnostics.hpp"
#include "core/legs.hpp"
#include "core/metrics.hpp"
#include "io/clip_io.hpp"

namespace ikfix::io {

inline constexpr int kReportSchemaVersion = 1;

struct RunReportInput {
  std::string command = "run";
  std::string tool_version;
  const LoadedClip* clip = nullptr;
  const core::LegRig* rig = nullptr;
  std::string output_path;  // empty: nothing written
  std::string terrain_path;
  const core::FixDiagnostics* diagnostics = nullptr;
  // "metrics": {"before": ..., "after": ...} for run; a check report has only `before`, written
  // as "metrics": {...} (what the clip is now). Null: no metrics in the report.
  const core::ClipMetrics* metrics_before = nullptr;
  const core::ClipMetrics* metrics_after = nullptr;
};

// Builds the report. Deterministic: no timings, no absolute times, keys in a fixed order.
nlohmann::ordered_json make_run_report(const RunReportInput& input);

// Legs as {"method", "pelvis", "left": {"hip", "knee", "ankle", "toe"}, "right": {...}}.
nlohmann::ordered_json legs_json(const core::Skeleton& skeleton, const core::LegRig& rig);

// Writes pretty JSON (2-space indent, trailing newline) atomically.
void save_json(const std::filesystem::path& path, const nlohmann::ordered_json& json);

}  // namespace ikfix::io
