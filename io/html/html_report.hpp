#pragma once
// The HTML report: one self-contained page per clip (3D viewer, timeline, plots, summary) and a
// batch index. Pages carry their data as JSON; the scripts are the embedded assets
// (io/web_assets.hpp), either inline (a page that opens alone, offline, from file://) or
// referenced from an assets folder written once beside a batch's pages.
#include <deque>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/view/report_view.hpp"

namespace ikfix::io {

struct HtmlPageInput {
  std::string title;                               // the page's title (the clip's file name)
  const nlohmann::ordered_json* report = nullptr;  // the run / check / retarget report
  const core::ReportView* view = nullptr;
  // Empty: every script and style inline. Otherwise the URL (relative to the page) of a folder
  // holding the assets save_web_assets writes.
  std::string assets_url;
  // Optional: positions_text(view->before) (io/html/view_json.hpp) made beforehand; it must
  // outlive the page's text, which refers to it.
  const std::string* before_positions_text = nullptr;
};

// A page's text as pieces in order: the embedded assets by reference (they live as long as the
// program), made text owned. Written piece by piece, a page costs no copy of itself.
class PageText {
 public:
  void add(std::string text);
  void add_static(std::string_view text);  // must outlive the PageText
  std::span<const std::string_view> pieces() const { return pieces_; }
  std::string joined() const;

 private:
  std::deque<std::string> owned_;  // a deque: its strings never move, the views stay valid
  std::vector<std::string_view> pieces_;
};

// The page's text.
PageText html_report_page_text(const HtmlPageInput& input);
std::string html_report_page(const HtmlPageInput& input);  // joined

// Written atomically (io/file_util.hpp). Throws InputError naming the path on failure.
void save_html_report(const std::filesystem::path& path, const HtmlPageInput& input);

// Every script and style a page with assets_url needs, into `dir` (created when missing).
void save_web_assets(const std::filesystem::path& dir);

// The batch index: one row per clip of `batch_report` (README "Batch report"), each linked to
// `pages[i]` (URL relative to the index; empty: no page), scripts from `assets_url` as above.
struct HtmlIndexInput {
  std::string title;
  const nlohmann::ordered_json* batch_report = nullptr;
  std::vector<std::string> pages;  // one per batch_report["clips"] entry
  std::string assets_url;
};
std::string html_index_page(const HtmlIndexInput& input);
void save_html_index(const std::filesystem::path& path, const HtmlIndexInput& input);

}  // namespace ikfix::io
