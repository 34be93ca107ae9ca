#pragma once
// `--fail-on` conditions: comma-separated, e.g. "unreachable" or "unreachable>10".
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ikfix::cli {

struct FailCondition {
  std::string metric;  // "unreachable" (frames), "shortfall" (metres), "pelvis-limit" (frames)
  double limit = 0;    // the condition holds when value > limit
};

// Throws std::invalid_argument naming the bad item.
std::vector<FailCondition> parse_fail_on(const std::string& text);

// The conditions that hold for a run report; each as "unreachable=12>0".
std::vector<std::string> failed_conditions(const std::vector<FailCondition>& conditions,
                                           const nlohmann::ordered_json& report);

}  // namespace ikfix::cli
