#pragma once
// JSON text placed inside a page's <script> element.
#include <string>
#include <string_view>

namespace ikfix::io {

// `json` safe inside <script>: '<' only occurs inside strings there, where \u003c means it, so
// no name or text (a joint called "</script>") can end the element early.
inline std::string script_safe_json(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

}  // namespace ikfix::io
