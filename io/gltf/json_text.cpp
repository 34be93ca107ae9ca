#include "io/gltf/json_text.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace ikfix::io::gltf::json_text {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_space(std::string_view text, std::size_t pos) {
  while (pos < text.size() && is_space(text[pos])) ++pos;
  return pos;
}

// End of the string whose opening quote is at `pos` (one past the closing quote).
std::size_t string_end(std::string_view text, std::size_t pos) {
  ++pos;
  const char* data = text.data();
  const std::size_t size = text.size();
  while (pos < size) {
    const char c = data[pos];
    if (c == '\\') {
      pos += 2;
      continue;
    }
    ++pos;
    if (c == '"') return pos;
  }
  return size;
}

// Bytes that matter when skipping over a container: quotes and brackets.
constexpr std::array<bool, 256> make_special() {
  std::array<bool, 256> t{};
  for (unsigned char c : {'"', '{', '}', '[', ']'}) t[c] = true;
  return t;
}
constexpr std::array<bool, 256> kSpecial = make_special();

std::size_t value_end(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return pos;
  const char c = text[pos];
  if (c == '"') return string_end(text, pos);
  if (c == '{' || c == '[') {
    int depth = 0;
    const char* data = text.data();
    const std::size_t size = text.size();
    while (pos < size) {
      while (pos < size && !kSpecial[static_cast<unsigned char>(data[pos])]) ++pos;
      if (pos >= size) break;
      const char d = data[pos];
      if (d == '"') {
        pos = string_end(text, pos);
        continue;
      }
      if (d == '{' || d == '[') {
        ++depth;
      } else if (--depth == 0) {
        return pos + 1;
      }
      ++pos;
    }
    return size;
  }
  // Number or literal: up to the next delimiter.
  while (pos < text.size() && !is_space(text[pos]) && text[pos] != ',' && text[pos] != '}' &&
         text[pos] != ']')
    ++pos;
  return pos;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::uint32_t hex4(std::string_view s) {
  std::uint32_t v = 0;
  for (char c : s) {
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= static_cast<std::uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= static_cast<std::uint32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= static_cast<std::uint32_t>(c - 'A' + 10);
  }
  return v;
}

// The decoded content of the string token `token` (with its quotes).
std::string unescape(std::string_view token) {
  std::string out;
  if (token.size() < 2) return out;
  token = token.substr(1, token.size() - 2);
  if (token.find('\\') == std::string_view::npos) return std::string(token);
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] != '\\' || i + 1 >= token.size()) {
      out += token[i];
      continue;
    }
    const char e = token[++i];
    switch (e) {
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        if (i + 4 >= token.size()) break;  // truncated escape (cannot happen in valid JSON)
        std::uint32_t cp = hex4(token.substr(i + 1, 4));
        i += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < token.size() &&
            token.substr(i + 1, 2) == "\\u") {
          const std::uint32_t low = hex4(token.substr(i + 3, 4));
          if (low >= 0xDC00 && low < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            i += 6;
          }
        }
        append_utf8(out, cp);
        break;
      }
      default:
        out += e;
        break;  // \" \\ \/
    }
  }
  return out;
}

}  // namespace

Span value_at(std::string_view text, std::size_t pos) {
  pos = skip_space(text, pos);
  return {pos, value_end(text, pos)};
}

std::vector<std::pair<std::string, Span>> members(std::string_view text, Span object) {
  std::vector<std::pair<std::string, Span>> out;
  std::size_t pos = skip_space(text, object.begin);
  if (pos >= object.end || text[pos] != '{') return out;
  ++pos;
  while (true) {
    pos = skip_space(text, pos);
    if (pos >= object.end || text[pos] != '"') return out;
    const std::size_t key_end = string_end(text, pos);
    const std::string_view key_token = text.substr(pos, key_end - pos);
    pos = skip_space(text, key_end);
    if (pos >= object.end || text[pos] != ':') return out;
    const Span value = value_at(text, pos + 1);
    out.emplace_back(unescape(key_token), value);
    pos = skip_space(text, value.end);
    if (pos >= object.end || text[pos] != ',') return out;
    ++pos;
  }
}

std::optional<Span> member(std::string_view text, Span object, std::string_view key) {
  std::optional<Span> found;
  std::size_t pos = skip_space(text, object.begin);
  if (pos >= object.end || text[pos] != '{') return found;
  ++pos;
  while (true) {
    pos = skip_space(text, pos);
    if (pos >= object.end || text[pos] != '"') return found;
    const std::size_t key_end = string_end(text, pos);
    const std::string_view key_token = text.substr(pos, key_end - pos);
    pos = skip_space(text, key_end);
    if (pos >= object.end || text[pos] != ':') return found;
    const Span value = value_at(text, pos + 1);
    // Most keys have no escapes: compare in place; unescape only when needed.
    const std::string_view raw =
        key_token.size() >= 2 ? key_token.substr(1, key_token.size() - 2) : std::string_view();
    if (raw.find('\\') == std::string_view::npos ? raw == key : unescape(key_token) == key)
      found = value;
    pos = skip_space(text, value.end);
    if (pos >= object.end || text[pos] != ',') return found;
    ++pos;
  }
}

std::vector<Span> elements(std::string_view text, Span array) {
  std::vector<Span> out;
  std::size_t pos = skip_space(text, array.begin);
  if (pos >= array.end || text[pos] != '[') return out;
  pos = skip_space(text, pos + 1);
  if (pos < array.end && text[pos] == ']') return out;
  while (pos < array.end) {
    const Span value = value_at(text, pos);
    out.push_back(value);
    pos = skip_space(text, value.end);
    if (pos >= array.end || text[pos] != ',') break;
    ++pos;
  }
  return out;
}

std::string apply(std::string_view text, std::vector<Edit> edits) {
  std::stable_sort(edits.begin(), edits.end(),
                   [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::size_t size = text.size();
  for (const Edit& e : edits) size += e.text.size() - std::min(e.length, size);
  std::string out;
  out.reserve(size);
  std::size_t pos = 0;
  for (const Edit& e : edits) {
    const std::size_t begin = std::max(e.begin, pos);
    out.append(text.substr(pos, begin - pos));
    out.append(e.text);
    pos = std::max(pos, e.begin + e.length);
  }
  out.append(text.substr(std::min(pos, text.size())));
  return out;
}

Edit append_to_array(std::string_view text, Span array, const std::vector<std::string>& items) {
  // No need to walk the elements: the array is empty when ']' follows '[', and otherwise the
  // last element ends at the last non-space byte before ']'.
  const std::size_t open = skip_space(text, array.begin);
  const bool empty = skip_space(text, open + 1) >= array.end - 1;
  std::size_t last = array.end - 1;
  while (last > open + 1 && is_space(text[last - 1])) --last;
  Edit edit;
  edit.begin = empty ? open + 1 : last;
  for (const std::string& item : items) {
    if (!edit.text.empty() || !empty) edit.text += ',';
    edit.text += item;
  }
  return edit;
}

Edit add_member(std::string_view text, Span object, std::string_view key,
                std::string_view value_text) {
  // Insert before the closing brace; a comma first when the object has members.
  std::size_t close = object.end - 1;
  std::size_t last = close;
  while (last > object.begin && is_space(text[last - 1])) --last;
  const bool empty = text[last - 1] == '{';
  Edit edit;
  edit.begin = last;
  edit.text =
      std::string(empty ? "" : ",") + "\"" + std::string(key) + "\":" + std::string(value_text);
  return edit;
}

}  // namespace ikfix::io::gltf::json_text
