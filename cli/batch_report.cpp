#include "cli/batch_report.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "io/error.hpp"
#include "io/file_util.hpp"

namespace ikfix::cli {
namespace {

const char* status_name(ClipStatus s) {
  switch (s) {
    case ClipStatus::Ok:
      return "ok";
    case ClipStatus::Error:
      return "error";
    case ClipStatus::NotDone:
      return "not_done";
  }
  return "error";
}

// The reason of the unreachable range that holds the worst frame ("too far", "too low", ...).
Json worst_with_reason(const Json& report) {
  const Json& worst = report["totals"]["worst"];
  if (worst.is_null()) return nullptr;
  Json out = worst;
  out["reason"] = nullptr;
  const int frame = worst["frame"].get<int>();
  // With --take all the worst frame may belong to another take than the top level's.
  const Json* take_report = &report;
  if (worst.contains("take") && report.contains("takes"))
    for (const auto& t : report["takes"])
      if (t.contains("take") && t["take"]["name"] == worst["take"]) take_report = &t;
  for (const auto& leg : (*take_report)["per_leg"]) {
    if (leg["side"] != worst["leg"]) continue;
    for (const auto& range : leg["unreachable"])
      if (range["first"].get<int>() <= frame && frame <= range["last"].get<int>())
        out["reason"] = range["reason"];
  }
  return out;
}

Json header_json(const BatchHeader& h) {
  Json out;
  out["schema_version"] = kBatchSchemaVersion;
  out["tool"] = {{"name", "ikfix"}, {"version", h.tool_version}};
  out["command"] = "batch";
  out["terrain"] = h.terrain;
  out["settings_hash"] = h.settings_hash;
  out["fail_on"] = {{"conditions", h.fail_on},
                    {"errors_over", h.errors_limit < 0 ? Json(nullptr) : Json(h.errors_limit)}};
  return out;
}

// `text` (a value dumped with indent 2) as it appears nested `levels` deep in a dump(2).
std::string nested(const std::string& text, int levels) {
  const std::string pad(static_cast<std::size_t>(2 * levels), ' ');
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}

// An object dumped with indent 2, without its closing "\n}", so that members can follow.
std::string open_object(const Json& object) {
  std::string text = object.dump(2);
  if (object.empty()) return "{";  // "{}"
  text.resize(text.size() - 2);
  return text;
}

BatchHeader header_from_json(const Json& r) {
  BatchHeader h;
  h.tool_version = r["tool"]["version"].get<std::string>();
  h.terrain = r["terrain"].get<std::string>();
  h.settings_hash = r["settings_hash"].get<std::string>();
  h.fail_on = r["fail_on"]["conditions"].get<std::string>();
  h.errors_limit =
      r["fail_on"]["errors_over"].is_null() ? -1 : r["fail_on"]["errors_over"].get<long>();
  return h;
}

}  // namespace

ClipEntry clip_entry(const std::string& input, const std::string& output, ClipStatus status,
                     const std::string& error, const Json& report,
                     const std::vector<std::string>& held) {
  const bool ok = status == ClipStatus::Ok;
  ClipEntry entry;
  Json& e = entry.summary;
  e["input"] = input;
  e["output"] = ok ? Json(output) : Json(nullptr);
  e["status"] = status_name(status);
  e["error"] = status == ClipStatus::Error ? Json(error) : Json(nullptr);
  e["frames"] = ok ? report["frames"].get<int>() : 0;
  e["unreachable_frames"] = ok ? report["totals"]["unreachable_frames"].get<int>() : 0;
  e["max_shortfall_m"] = ok ? report["totals"]["max_shortfall_m"].get<double>() : 0.0;
  e["worst"] = ok ? worst_with_reason(report) : Json(nullptr);
  e["fail_on_held"] = held;
  if (ok) entry.report = report.dump();
  return entry;
}

BatchReport make_batch_report(const BatchHeader& header, std::vector<ClipEntry> entries,
                              const Json& run) {
  std::stable_sort(entries.begin(), entries.end(), [](const ClipEntry& a, const ClipEntry& b) {
    return a.summary["input"].get<std::string>() < b.summary["input"].get<std::string>();
  });
  long ok = 0, errors = 0, not_done = 0, frames = 0, unreachable = 0, with_unreachable = 0,
       held = 0;
  double max_shortfall = 0;
  const Json* worst = nullptr;
  Json error_list = Json::array(), not_done_list = Json::array();
  std::vector<const Json*> worst_clips;
  for (const auto& entry : entries) {
    const Json& e = entry.summary;
    const std::string status = e["status"].get<std::string>();
    if (status == "ok") ++ok;
    if (status == "error") {
      ++errors;
      error_list.push_back({{"input", e["input"]}, {"error", e["error"]}});
    }
    if (status == "not_done") {
      ++not_done;
      not_done_list.push_back(e["input"]);
    }
    frames += e["frames"].get<long>();
    unreachable += e["unreachable_frames"].get<long>();
    if (e["unreachable_frames"].get<long>() > 0) {
      ++with_unreachable;
      worst_clips.push_back(&e);
    }
    if (!e["fail_on_held"].empty()) ++held;
    if (!e["worst"].is_null() && e["max_shortfall_m"].get<double>() > max_shortfall) {
      max_shortfall = e["max_shortfall_m"].get<double>();
      worst = &e;
    }
  }
  std::stable_sort(worst_clips.begin(), worst_clips.end(), [](const Json* a, const Json* b) {
    const long ua = (*a)["unreachable_frames"].get<long>(),
               ub = (*b)["unreachable_frames"].get<long>();
    if (ua != ub) return ua > ub;
    return (*a)["max_shortfall_m"].get<double>() > (*b)["max_shortfall_m"].get<double>();
  });
  const bool errors_held = header.errors_limit >= 0 && errors > header.errors_limit;

  BatchReport report;
  Json& head = report.head;
  head = header_json(header);
  Json worst_json = nullptr;
  if (worst) {
    worst_json = {{"input", (*worst)["input"]}};
    for (const auto& [k, v] : (*worst)["worst"].items()) worst_json[k] = v;
  }
  head["totals"] = {{"clips", static_cast<long>(entries.size())},
                    {"ok", ok},
                    {"errors", errors},
                    {"not_done", not_done},
                    {"frames", frames},
                    {"unreachable_frames", unreachable},
                    {"clips_with_unreachable", with_unreachable},
                    {"max_shortfall_m", max_shortfall},
                    {"worst", worst_json},
                    {"clips_fail_on_held", held},
                    {"errors_held", errors_held},
                    {"passed", held == 0 && !errors_held && not_done == 0}};
  Json worst_list = Json::array();
  for (const Json* e : worst_clips)
    worst_list.push_back({{"input", (*e)["input"]},
                          {"unreachable_frames", (*e)["unreachable_frames"]},
                          {"max_shortfall_m", (*e)["max_shortfall_m"]},
                          {"worst", (*e)["worst"]}});
  head["worst_clips"] = worst_list;
  head["errors"] = error_list;
  head["not_done"] = not_done_list;
  report.clips = std::move(entries);
  report.run = run;
  return report;
}

std::string batch_report_text(const BatchReport& report) {
  // Same bytes as Json::dump(2) of {head..., "clips": [...], "run": ...}, one clip at a time.
  std::string text = open_object(report.head);
  text += report.head.empty() ? "\n  \"clips\": " : ",\n  \"clips\": ";
  if (report.clips.empty()) {
    text += "[]";
  } else {
    text += "[";
    for (std::size_t i = 0; i < report.clips.size(); ++i) {
      const ClipEntry& c = report.clips[i];
      std::string entry = open_object(c.summary);
      entry += ",\n  \"report\": " + nested(Json::parse(c.report).dump(2), 1) + "\n}";
      text += (i == 0 ? "\n    " : ",\n    ") + nested(entry, 2);
    }
    text += "\n  ]";
  }
  text += ",\n  \"run\": " + nested(report.run.dump(2), 1) + "\n}\n";
  return text;
}

void save_batch_report(const std::string& path, const BatchReport& report) {
  io::write_file_atomic(path, batch_report_text(report));
}

namespace {

void check_batch_report(const Json& r, const std::string& source) {
  const bool ok = r.is_object() && r.contains("command") && r["command"] == "batch" &&
                  r.contains("schema_version") && r["schema_version"] == kBatchSchemaVersion &&
                  r.contains("clips") && r["clips"].is_array() && r.contains("fail_on") &&
                  r.contains("settings_hash") && r.contains("tool") && r.contains("terrain");
  if (!ok)
    throw std::invalid_argument(source + ": not an ikfix batch report (schema_version " +
                                std::to_string(kBatchSchemaVersion) + ")");
}

}  // namespace

BatchReport merge_batch_reports(const std::vector<std::string>& paths,
                                std::vector<std::string>& warnings) {
  if (paths.empty()) throw std::invalid_argument("no reports to merge");
  BatchHeader header;
  Json first;
  std::vector<ClipEntry> entries;
  std::map<std::string, std::string> seen;  // input -> report it came from
  double wall = 0, clip_time = 0;
  long resumed = 0;
  bool interrupted = false;
  std::set<int> shard_indices;
  std::set<int> shard_counts;
  std::set<long> library_sizes;
  int unsharded = 0;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    Json r;
    try {
      r = Json::parse(io::read_file(paths[i]));
    } catch (const Json::parse_error& e) {
      throw io::InputError(paths[i], std::string("not JSON: ") + e.what());
    }
    check_batch_report(r, paths[i]);
    const Json h = header_json(header_from_json(r));
    if (i == 0) {
      header = header_from_json(r);
      first = h;
    }
    for (const char* key : {"tool", "terrain", "settings_hash", "fail_on"})
      if (h[key] != first[key])
        throw std::invalid_argument(paths[i] + " and " + paths[0] +
                                    " come from different batches: their '" + key + "' differ (" +
                                    h[key].dump() + " vs " + first[key].dump() + ")");
    for (auto& e : r["clips"]) {
      const std::string input = e["input"].get<std::string>();
      if (auto it = seen.find(input); it != seen.end())
        throw std::invalid_argument(input + " is in both " + it->second + " and " + paths[i]);
      seen[input] = paths[i];
      ClipEntry entry;
      entry.report = e["report"].dump();
      e.erase("report");
      entry.summary = std::move(e);
      entries.push_back(std::move(entry));
    }
    const Json& run = r.contains("run") ? r["run"] : Json();
    if (run.is_object()) {
      wall += run.value("wall_s", 0.0);
      clip_time += run.value("clip_s", 0.0);
      resumed += run.value("resumed", 0L);
      interrupted = interrupted || run.value("interrupted", false);
      if (run.contains("shard") && run["shard"].is_object()) {
        shard_indices.insert(run["shard"]["index"].get<int>());
        shard_counts.insert(run["shard"]["count"].get<int>());
        library_sizes.insert(run["shard"]["library_clips"].get<long>());
      } else {
        ++unsharded;
      }
    }
  }
  if (shard_counts.size() > 1 || library_sizes.size() > 1) {
    warnings.push_back(
        "the reports come from different shardings (shard counts or library sizes differ)");
  } else if (shard_counts.size() == 1 && unsharded == 0) {
    const int count = *shard_counts.begin();
    std::string missing;
    for (int s = 1; s <= count; ++s)
      if (!shard_indices.count(s)) missing += (missing.empty() ? "" : ", ") + std::to_string(s);
    if (!missing.empty())
      warnings.push_back("shard(s) " + missing + " of " + std::to_string(count) + " are missing");
    if (*library_sizes.begin() != static_cast<long>(entries.size()))
      warnings.push_back("the shards hold " + std::to_string(entries.size()) +
                         " clips, the library " + std::to_string(*library_sizes.begin()));
  }
  Json run = {{"note",
               "this block depends on the run (merged here: sums over the merged reports); "
               "everything else is what one run over all the clips writes"},
              {"merged", paths},
              {"shard", nullptr},
              {"wall_s", wall},
              {"clip_s", clip_time},
              {"resumed", resumed},
              {"interrupted", interrupted}};
  return make_batch_report(header, std::move(entries), run);
}

bool batch_passed(const BatchReport& report) { return report.head["totals"]["passed"].get<bool>(); }

}  // namespace ikfix::cli
