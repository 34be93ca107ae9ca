#include "cli/junit.hpp"

#include <cstdio>
#include <string_view>

namespace ikfix::cli {
namespace {

using Json = nlohmann::ordered_json;

// Escaped for an XML attribute or text; control characters XML 1.0 cannot hold are dropped.
std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\t':
        out += "&#9;";
        break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20) out += c;
    }
  }
  return out;
}

std::string metres(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f m", v);
  return buffer;
}

// "worst frame 17 (left leg, 0.310 m short, too far)" or "" when every frame was reached.
std::string worst_text(const Json& worst) {
  if (worst.is_null()) return "";
  std::string s = "worst frame " + std::to_string(worst["frame"].get<int>()) + " (" +
                  worst["leg"].get<std::string>() + " leg, " +
                  metres(worst["shortfall_m"].get<double>()) + " short";
  if (!worst["reason"].is_null()) s += ", " + worst["reason"].get<std::string>();
  return s + ")";
}

// Every unreachable range of the clip, one per line, for the failure's body.
std::string unreachable_ranges(const Json& report) {
  std::string s;
  if (report.is_null()) return s;
  for (const auto& leg : report["per_leg"])
    for (const auto& r : leg["unreachable"])
      s += leg["side"].get<std::string>() + " leg: frames " +
           std::to_string(r["first"].get<int>()) + "-" + std::to_string(r["last"].get<int>()) +
           ", worst frame " + std::to_string(r["worst_frame"].get<int>()) + ", " +
           metres(r["max_shortfall_m"].get<double>()) + " short, " +
           r["reason"].get<std::string>() + "\n";
  return s;
}

}  // namespace

std::string junit_xml(const BatchReport& report) {
  const Json& t = report.head["totals"];
  long failures = 0, errors = 0, skipped = 0;
  for (const auto& entry : report.clips) {
    const Json& c = entry.summary;
    const std::string status = c["status"].get<std::string>();
    if (status == "error")
      ++errors;
    else if (status == "not_done")
      ++skipped;
    else if (!c["fail_on_held"].empty())
      ++failures;
  }
  const std::string counts = "tests=\"" + std::to_string(t["clips"].get<long>()) +
                             "\" failures=\"" + std::to_string(failures) + "\" errors=\"" +
                             std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) +
                             "\"";
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += "<testsuites name=\"ikfix batch\" " + counts + ">\n";
  x += "  <testsuite name=\"ikfix batch onto " +
       xml_escape(report.head["terrain"].get<std::string>()) + "\" " + counts + ">\n";
  for (const auto& entry : report.clips) {
    const Json& c = entry.summary;
    const std::string input = c["input"].get<std::string>();
    const std::string status = c["status"].get<std::string>();
    x += "    <testcase classname=\"ikfix.batch\" name=\"" + xml_escape(input) + "\" file=\"" +
         xml_escape(input) + "\"";
    if (status == "ok" && c["fail_on_held"].empty()) {
      x += "/>\n";
      continue;
    }
    x += ">\n";
    if (status == "error") {
      x += "      <error type=\"input\" message=\"" + xml_escape(c["error"].get<std::string>()) +
           "\"/>\n";
    } else if (status == "not_done") {
      x += "      <skipped message=\"not done: the batch was interrupted\"/>\n";
    } else {
      std::string held;
      for (const auto& h : c["fail_on_held"])
        held += (held.empty() ? "" : ", ") + h.get<std::string>();
      std::string message = "--fail-on held: " + held;
      const std::string worst = worst_text(c["worst"]);
      if (!worst.empty()) message += "; " + worst;
      x += "      <failure type=\"fail-on\" message=\"" + xml_escape(message) + "\">" +
           xml_escape(message + "\n" + unreachable_ranges(Json::parse(entry.report))) +
           "</failure>\n";
    }
    x += "    </testcase>\n";
  }
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

}  // namespace ikfix::cli
