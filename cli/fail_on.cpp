#include "cli/fail_on.hpp"

#include <charconv>
#include <sstream>
#include <stdexcept>

namespace ikfix::cli {
namespace {

const char* kMetrics[] = {"unreachable", "shortfall", "pelvis-limit"};

double metric_value(const std::string& metric, const nlohmann::ordered_json& report) {
  if (metric == "unreachable") return report["totals"]["unreachable_frames"].get<double>();
  if (metric == "shortfall") return report["totals"]["max_shortfall_m"].get<double>();
  if (metric == "pelvis-limit") return report["body"]["pelvis_limit_frames"].get<double>();
  return 0;
}

}  // namespace

std::vector<FailCondition> parse_fail_on(const std::string& text) {
  std::vector<FailCondition> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    FailCondition c;
    const auto gt = item.find('>');
    c.metric = item.substr(0, gt);
    bool known = false;
    for (const char* m : kMetrics) known = known || c.metric == m;
    if (!known)
      throw std::invalid_argument("--fail-on: unknown condition '" + c.metric +
                                  "' (known: unreachable, shortfall, pelvis-limit; optionally '>N')");
    if (gt != std::string::npos) {
      const std::string number = item.substr(gt + 1);
      const auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), c.limit);
      if (ec != std::errc() || p != number.data() + number.size() || number.empty())
        throw std::invalid_argument("--fail-on: '" + item + "' needs a number after '>'");
    }
    out.push_back(c);
  }
  return out;
}

std::vector<std::string> failed_conditions(const std::vector<FailCondition>& conditions,
                                           const nlohmann::ordered_json& report) {
  std::vector<std::string> failed;
  for (const auto& c : conditions) {
    const double v = metric_value(c.metric, report);
    if (v > c.limit) {
      std::ostringstream s;
      s << c.metric << "=" << v << ">" << c.limit;
      failed.push_back(s.str());
    }
  }
  return failed;
}

}  // namespace ikfix::cli
