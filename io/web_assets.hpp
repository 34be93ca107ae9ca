#pragma once
// The files the HTML report is made of, embedded into the binary at build time (CMake,
// io/web/embed_files.cmake): our viewer.js, viewer.css and page.html from io/web/, and the
// minified three.js and uPlot files from io/web/node_modules (pinned in io/web/package.json).
#include <span>
#include <string_view>

namespace ikfix::io {

struct WebAsset {
  std::string_view name;   // e.g. "three.min.js"
  std::string_view bytes;  // the file's contents
};

// Every embedded asset, in a fixed order.
std::span<const WebAsset> web_assets();

// The asset called `name`; throws std::logic_error when there is none (a build mistake).
std::string_view web_asset(std::string_view name);

}  // namespace ikfix::io
