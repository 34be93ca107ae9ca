#pragma once
// `batch --html-dir DIR` and `report merge --html-dir DIR`: DIR/index.html (one row per clip,
// linked to its page), the clip pages in DIR/clips/ and their shared scripts, once, in
// DIR/assets/.
#include <filesystem>
#include <string>

#include "cli/batch_report.hpp"

namespace ikfix::cli {

// The clip's page under DIR, from its input path (the same in every shard of a batch):
// "clips/" + the path with every character other than [A-Za-z0-9._-] made '_' + ".html".
std::string html_page_name(const std::string& input);

// Where a clip page finds the assets, relative to itself.
inline constexpr const char* kHtmlPageAssetsUrl = "../assets";

// Writes DIR/assets/ (every script and style) and DIR/index.html from `report`, each clip
// linked to its page when that page exists in DIR. Atomic writes.
void write_html_index(const std::filesystem::path& dir, const BatchReport& report);

}  // namespace ikfix::cli
