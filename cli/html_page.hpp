#pragma once
// The HTML report of one fixed (or checked) clip: the view data built from the run, the page
// written beside the other outputs (io/html/html_report.hpp).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/fix/footfix.hpp"
#include "core/retarget/retarget_pipeline.hpp"
#include "core/view/report_view.hpp"
#include "io/clip_io.hpp"
#include "io/file_util.hpp"
#include "io/html/html_report.hpp"

namespace ikfix::cli {

// The view's points of every frame already found from the measures' FK (cli::measure's
// `view_out`) of the input (`before`) and of the fixed motion (`after`); empty: not found.
// Also each foot's lowest point above the terrain per frame (core::MetricsInput::lowest_above_out).
struct ComputedView {
  std::optional<core::ViewPositions> before, after;
  const std::vector<double>* lowest_before = nullptr;
  const std::vector<double>* lowest_after = nullptr;
};

// What the page shows of `clip` (the input, as read) and `result` (its fix) on `terrain`.
core::ReportView view_of_fix(const io::LoadedClip& clip, const core::FixResult& result,
                             const core::LegRig& rig, const core::Terrain& terrain,
                             ComputedView computed = {});

// Retarget: the transfer alone ("before") and the final motion ("after") on the character
// `work`, with the source clip drawn beside them.
core::ReportView view_of_retarget(const io::LoadedClip& source, const io::LoadedClip& work,
                                  const core::RetargetPipelineResult& result,
                                  const core::LegRig& rig, const core::Terrain& terrain);

// The page's text, its scripts inline when `assets_url` is empty, else from that folder
// (relative to the page). `before_positions_text`: io::positions_text(view.before) made
// beforehand, or null; it must outlive the text.
io::PageText html_page_text(const nlohmann::ordered_json& report, const core::ReportView& view,
                            const std::string& title, const std::string& assets_url = {},
                            const std::string* before_positions_text = nullptr);

// Writes a page's text to `path` (atomically). Refuses a path that is an input this process read.
void write_html_text(const std::filesystem::path& path, const io::PageText& text);
// The same in two halves (io::write_temp_file, io::place_written): the temp file, on any thread.
io::WrittenFile write_html_temp(const std::filesystem::path& path, const io::PageText& text);

// html_page_text then write_html_text.
void write_html_page(const std::filesystem::path& path, const nlohmann::ordered_json& report,
                     const core::ReportView& view, const std::string& title,
                     const std::string& assets_url = {});

}  // namespace ikfix::cli
