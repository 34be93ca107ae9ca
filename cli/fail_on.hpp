#pragma once
// `--fail-on` conditions: comma-separated, e.g. "unreachable", "penetration>0.005,slide>0.01".
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ikfix::cli {

struct FailCondition {
  // unreachable (frames), shortfall (m), pelvis-limit (frames), penetration (m),
  // planted-penetration (m), slide (max m/s), slide-mean (m/s), float (mean m),
  // bone-length (relative), knee (degrees outside the limit), nan (count)
  std::string metric;
  double limit = 0;  // the condition holds when value > limit
};

// Throws std::invalid_argument naming the bad item.
std::vector<FailCondition> parse_fail_on(const std::string& text);

// True when a condition reads before/after metrics (penetration, slide, ...), which a run
// report only has when the clip was measured.
bool needs_metrics(const std::vector<FailCondition>& conditions);

// The conditions that hold for a run report; each as "unreachable=12>0". With several takes
// (report["takes"], from --take all) a condition holds when it holds for any take: the largest
// of the report's own value (totals sum unreachable frames over the takes) and every take's is
// compared, and the message names the take it came from: "slide=0.4>0.1 (take 'Run')".
std::vector<std::string> failed_conditions(const std::vector<FailCondition>& conditions,
                                           const nlohmann::ordered_json& report);

}  // namespace ikfix::cli
