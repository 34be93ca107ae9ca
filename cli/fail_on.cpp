#include "cli/fail_on.hpp"

#include <charconv>
#include <sstream>
#include <stdexcept>

namespace ikfix::cli {
namespace {

// Each condition reads one number from the report (a run report's "metrics.after", or a check
// report's "metrics"). Units: frames, metres, metres/second, degrees, metres/second^3.
struct MetricPath {
  const char* name;
  const char* group;  // "" for totals/body, else a key of the metrics object
  const char* key;    // a key of the group, or "sub.key" for a group's object
};
const MetricPath kMetrics[] = {
    {"unreachable", "", "unreachable_frames"},
    {"shortfall", "", "max_shortfall_m"},
    {"pelvis-limit", "", "pelvis_limit_frames"},
    {"penetration", "penetration", "max_m"},
    {"planted-penetration", "planted_penetration", "max_m"},
    {"foot-penetration", "foot_penetration", "nearest.max_m"},
    {"planted-foot-penetration", "foot_penetration", "planted_nearest.max_m"},
    {"foot-penetration-vertical", "foot_penetration", "vertical.max_m"},
    {"planted-foot-penetration-vertical", "foot_penetration", "planted_vertical.max_m"},
    {"slide", "slide", "max_mps"},
    {"slide-mean", "slide", "mean_mps"},
    {"float", "float", "mean_m"},
    {"bone-length", "bone_length_change", "max"},
    {"knee", "knee", "limit_violation_deg"},
    {"foot-jerk", "jerk", "foot_max"},
    {"pelvis-jerk", "jerk", "pelvis_max"},
    {"foot-jerk-mean", "jerk", "foot_mean_mps3"},
    {"pelvis-jerk-mean", "jerk", "pelvis_mean_mps3"},
    {"nan", "", "non_finite"},
};

const nlohmann::ordered_json* metrics_of(const nlohmann::ordered_json& report) {
  if (!report.contains("metrics")) return nullptr;
  const auto& m = report["metrics"];
  return m.contains("after") ? &m["after"] : &m;
}

// path.group's path.key in a metrics object; 0 when the report has no such value (a report
// written before the metric existed).
double group_value(const nlohmann::ordered_json& metrics, const MetricPath& path) {
  const nlohmann::ordered_json* at = metrics.contains(path.group) ? &metrics[path.group] : nullptr;
  std::stringstream keys(path.key);
  std::string key;
  while (at && std::getline(keys, key, '.'))
    at = at->is_object() && at->contains(key) ? &(*at)[key] : nullptr;
  // The largest single-frame jerks are objects: their value (`mps3`), frame and leg.
  if (at && at->is_object() && at->contains("mps3")) at = &(*at)["mps3"];
  return at && at->is_number() ? at->get<double>() : 0.0;
}

double metric_value(const std::string& metric, const nlohmann::ordered_json& report) {
  for (const auto& path : kMetrics) {
    if (metric != path.name) continue;
    if (metric == "nan") {
      const auto* m = metrics_of(report);
      return m ? (*m)["non_finite"].get<double>() : 0.0;
    }
    if (*path.group == 0) {
      if (metric == "pelvis-limit")
        return report.contains("body") ? report["body"]["pelvis_limit_frames"].get<double>() : 0.0;
      return report.contains("totals") ? report["totals"][path.key].get<double>() : 0.0;
    }
    const auto* m = metrics_of(report);
    return m ? group_value(*m, path) : 0.0;
  }
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
    std::string names;
    for (const auto& m : kMetrics) {
      known = known || c.metric == m.name;
      names += names.empty() ? m.name : std::string(", ") + m.name;
    }
    if (!known)
      throw std::invalid_argument("--fail-on: unknown condition '" + c.metric +
                                  "' (known: " + names + "; optionally '>N')");
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

bool needs_metrics(const std::vector<FailCondition>& conditions) {
  for (const auto& c : conditions)
    for (const auto& path : kMetrics)
      if (c.metric == path.name && (*path.group != 0 || c.metric == "nan")) return true;
  return false;
}

std::vector<std::string> failed_conditions(const std::vector<FailCondition>& conditions,
                                           const nlohmann::ordered_json& report) {
  std::vector<std::string> failed;
  for (const auto& c : conditions) {
    // The report's own value (the first take's, or a total over every take), then each take's:
    // the worst one decides, and the message names the take it came from.
    double worst = metric_value(c.metric, report);
    std::string take;
    if (report.contains("takes") && report["takes"].size() > 1)
      for (const auto& t : report["takes"]) {
        const double v = metric_value(c.metric, t);
        if (v > worst) {
          worst = v;
          take = t.contains("take") ? t["take"]["name"].get<std::string>() : std::string();
        }
      }
    if (worst > c.limit) {
      std::ostringstream s;
      s << c.metric << "=" << worst << ">" << c.limit;
      if (!take.empty()) s << " (take '" << take << "')";
      failed.push_back(s.str());
    }
  }
  return failed;
}

}  // namespace ikfix::cli
