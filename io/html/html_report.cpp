#include "io/html/html_report.hpp"

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

std::string styles(std::span<const std::string_view> names, const std::string& assets_url) {
  std::string out;
  for (std::string_view name : names) {
    if (assets_url.empty())
      out += "<style>\n" + std::string(web_asset(name)) + "\n</style>\n";
    else
      out += "<link rel=\"stylesheet\" href=\"" +
             escaped_html(assets_url + "/" + std::string(name)) + "\">\n";
  }
  return out;
}

std::string scripts(std::span<const std::string_view> names, const std::string& assets_url) {
  std::string out;
  for (std::string_view name : names) {
    if (assets_url.empty())
      out += "<script>\n" + std::string(web_asset(name)) + "\n</script>\n";
    else
      out +=
          "<script src=\"" + escaped_html(assets_url + "/" + std::string(name)) + "\"></script>\n";
  }
  return out;
}

void replace_marker(std::string& text, std::string_view marker, const std::string& with) {
  const std::size_t at = text.find(marker);
  if (at != std::string::npos) text.replace(at, marker.size(), with);
}

struct PageParts {
  std::string title, kind, styles, data, scripts;
};

std::string page(const PageParts& parts) {
  std::string text(web_asset("page.html"));
  // Markers in template order, each replaced once, so a marker inside data stays as it is.
  replace_marker(text, "@TITLE@", escaped_html(parts.title));
  replace_marker(text, "@STYLES@", parts.styles);
  replace_marker(text, "@KIND@", parts.kind);
  const std::size_t data_at = text.find("@DATA@");
  replace_marker(text, "@SCRIPTS@", parts.scripts);
  text.replace(data_at, 6, parts.data);
  return text;
}

}  // namespace

std::string html_report_page(const HtmlPageInput& input) {
  PageParts parts;
  parts.title = input.title;
  parts.kind = "ikfix-clip";
  parts.styles = styles(kClipStyles, input.assets_url);
  parts.scripts = scripts(kClipScripts, input.assets_url);
  parts.data = "{\"title\":" + script_safe_json(nlohmann::ordered_json(input.title).dump()) +
               ",\"report\":" + script_safe_json(input.report->dump()) +
               ",\"view\":" + view_json(*input.view) + "}";
  return page(parts);
}

void save_html_report(const fs::path& path, const HtmlPageInput& input) {
  write_file_atomic(path, html_report_page(input));
}

void save_web_assets(const fs::path& dir) {
  for (const WebAsset& asset : web_assets())
    if (asset.name != "page.html") write_file_atomic(dir / std::string(asset.name), asset.bytes);
}

std::string html_index_page(const HtmlIndexInput& input) {
  PageParts parts;
  parts.title = input.title;
  parts.kind = "ikfix-index";
  parts.styles = styles(kIndexStyles, input.assets_url);
  parts.scripts = scripts(kIndexScripts, input.assets_url);
  nlohmann::ordered_json data;
  data["title"] = input.title;
  data["pages"] = input.pages;
  parts.data = script_safe_json(data.dump());
  parts.data.pop_back();
  parts.data += ",\"batch\":" + script_safe_json(input.batch_report->dump()) + "}";
  return page(parts);
}

void save_html_index(const fs::path& path, const HtmlIndexInput& input) {
  write_file_atomic(path, html_index_page(input));
}

}  // namespace ikfix::io
