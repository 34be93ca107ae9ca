#include "io/html/html_report.hpp"

#include <functional>
#include <string_view>
#include <vector>

#include "io/file_util.hpp"
#include "io/html/script_safe.hpp"
#include "io/html/view_json.hpp"
#include "io/web_assets.hpp"

namespace ikfix::io {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kClipStyles[] = {"uPlot.min.css", "viewer.css"};
constexpr std::string_view kClipScripts[] = {"three.min.js", "uPlot.iife.min.js", "viewer.js"};
constexpr std::string_view kIndexStyles[] = {"viewer.css"};
constexpr std::string_view kIndexScripts[] = {"index.js"};

std::string escaped_html(std::string_view text) {
  std::string out;
  for (char c : text) {
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
      default:
        out += c;
    }
  }
  return out;
}

// Inline: the asset between the element's tags (the embedded bytes, not copied). Otherwise an
// element referencing it in the assets folder.
void put_assets(PageText& out, std::span<const std::string_view> names,
                const std::string& assets_url, bool scripts) {
  for (std::string_view name : names) {
    if (!assets_url.empty()) {
      const std::string url = escaped_html(assets_url + "/" + std::string(name));
      out.add(scripts ? "<script src=\"" + url + "\"></script>\n"
                      : "<link rel=\"stylesheet\" href=\"" + url + "\">\n");
      continue;
    }
    out.add_static(scripts ? "<script>\n" : "<style>\n");
    out.add_static(web_asset(name));
    out.add_static(scripts ? "\n</script>\n" : "\n</style>\n");
  }
}

struct PageParts {
  std::string title, kind;
  std::span<const std::string_view> styles, scripts;
  std::string assets_url;
};

// page.html with its markers (@TITLE@, @STYLES@, @KIND@, @DATA@, @SCRIPTS@; each once, in any
// order) replaced: the title, the parts' assets, and the pieces `put_data` adds.
PageText page(const PageParts& parts, const std::function<void(PageText&)>& put_data) {
  const std::string_view page_html = web_asset("page.html");
  PageText out;
  std::size_t at = 0;
  while (at < page_html.size()) {
    const std::size_t marker = page_html.find('@', at);
    const std::size_t close =
        marker == std::string_view::npos ? marker : page_html.find('@', marker + 1);
    if (close == std::string_view::npos) {
      out.add_static(page_html.substr(at));
      break;
    }
    out.add_static(page_html.substr(at, marker - at));
    const std::string_view name = page_html.substr(marker, close + 1 - marker);
    if (name == "@TITLE@")
      out.add(escaped_html(parts.title));
    else if (name == "@STYLES@")
      put_assets(out, parts.styles, parts.assets_url, false);
    else if (name == "@KIND@")
      out.add(parts.kind);
    else if (name == "@DATA@")
      put_data(out);
    else if (name == "@SCRIPTS@")
      put_assets(out, parts.scripts, parts.assets_url, true);
    else {  // not a marker: the first '@' is text, the second may open one
      out.add_static(page_html.substr(marker, close - marker));
      at = close;
      continue;
    }
    at = close + 1;
  }
  return out;
}

}  // namespace

void PageText::add(std::string text) { pieces_.push_back(owned_.emplace_back(std::move(text))); }

void PageText::add_static(std::string_view text) { pieces_.push_back(text); }

std::string PageText::joined() const {
  std::size_t size = 0;
  for (std::string_view piece : pieces_) size += piece.size();
  std::string out;
  out.reserve(size);
  for (std::string_view piece : pieces_) out += piece;
  return out;
}

PageText html_report_page_text(const HtmlPageInput& input) {
  std::string head = "{\"title\":" + script_safe_json(nlohmann::ordered_json(input.title).dump()) +
                     ",\"report\":" + script_safe_json(input.report->dump()) + ",\"view\":";
  head += view_json_head(*input.view);
  std::string tail = view_json_tail(*input.view);
  tail += '}';
  return page({input.title, "ikfix-clip", kClipStyles, kClipScripts, input.assets_url},
              [&](PageText& out) {
                out.add(std::move(head));
                if (input.before_positions_text)
                  out.add_static(*input.before_positions_text);
                else
                  out.add(positions_text(input.view->before));
                out.add(std::move(tail));
              });
}

std::string html_report_page(const HtmlPageInput& input) {
  return html_report_page_text(input).joined();
}

void save_html_report(const fs::path& path, const HtmlPageInput& input) {
  write_file_atomic(path, html_report_page_text(input).pieces());
}

void save_web_assets(const fs::path& dir) {
  for (const WebAsset& asset : web_assets())
    if (asset.name != "page.html") write_file_atomic(dir / std::string(asset.name), asset.bytes);
}

std::string html_index_page(const HtmlIndexInput& input) {
  nlohmann::ordered_json data;
  data["title"] = input.title;
  data["pages"] = input.pages;
  std::string text = script_safe_json(data.dump());
  text.pop_back();
  text += ",\"batch\":" + script_safe_json(input.batch_report->dump()) + "}";
  return page({input.title, "ikfix-index", kIndexStyles, kIndexScripts, input.assets_url},
              [&](PageText& out) { out.add(std::move(text)); })
      .joined();
}

void save_html_index(const fs::path& path, const HtmlIndexInput& input) {
  write_file_atomic(path, html_index_page(input));
}

}  // namespace ikfix::io
