#include "cli/html_index.hpp"

#include <cctype>

#include "io/html/html_report.hpp"

namespace ikfix::cli {

namespace fs = std::filesystem;

std::string html_page_name(const std::string& input) {
  std::string name;
  for (char c : input) {
    const bool plain =
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    name += plain ? c : '_';
  }
  return "clips/" + name + ".html";
}

namespace {

// What the index shows of one clip: its batch entry plus its report's metrics and warnings.
Json index_row(const ClipEntry& entry) {
  Json row = entry.summary;
  if (entry.report != "null") {
    const Json report = Json::parse(entry.report);
    if (report.contains("metrics")) row["metrics"] = report["metrics"];
    if (report.contains("warnings")) row["warnings"] = report["warnings"];
  }
  return row;
}

}  // namespace

void write_html_index(const fs::path& dir, const BatchReport& report) {
  io::save_web_assets(dir / "assets");
  Json index = report.head;
  index["clips"] = Json::array();
  io::HtmlIndexInput input;
  input.title = "ikfix batch report";
  for (const ClipEntry& entry : report.clips) {
    index["clips"].push_back(index_row(entry));
    const std::string page = html_page_name(entry.summary["input"].get<std::string>());
    std::error_code ec;
    input.pages.push_back(fs::exists(dir / page, ec) ? page : std::string());
  }
  input.batch_report = &index;
  input.assets_url = "assets";
  io::save_html_index(dir / "index.html", input);
}

}  // namespace ikfix::cli
