#include "io/fbx/document.hpp"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "io/error.hpp"

namespace ikfix::io::fbx {
namespace {

// A whole number in int64's range into `out`; false for fractions, NaN and values a cast would
// make undefined (|d| >= 2^63).
bool whole_int64(double d, std::int64_t& out) {
  if (d != std::trunc(d) || !(d >= -0x1p63 && d < 0x1p63)) return false;
  out = static_cast<std::int64_t>(d);
  return true;
}

[[noreturn]] void fail_at(const Document& doc, std::uint64_t offset, const std::string& cause) {
  if (doc.encoding == Encoding::ascii && offset != kNoSource && offset <= doc.data.size()) {
    const int line =
        1 + static_cast<int>(std::count(
                doc.data.begin(), doc.data.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
    throw InputError(doc.source_name, line, cause);
  }
  if (offset != kNoSource)
    throw InputError(doc.source_name, cause + " (at byte " + std::to_string(offset) + ")");
  throw InputError(doc.source_name, cause);
}

template <typename T>
T load_le(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // FBX is little-endian; so is every target ikfix builds for
  return v;
}

std::size_t element_size(char type) {
  switch (type) {
    case 'f':
    case 'i':
      return 4;
    case 'd':
    case 'l':
      return 8;
    case 'b':
      return 1;
    default:
      return 0;
  }
}

// Decoded bytes of a binary array property (raw contents, inflated when encoding is 1).
std::string binary_array_bytes(const Document& doc, const Property& p, std::uint32_t& count) {
  const char* base = doc.data.data() + p.offset;
  count = load_le<std::uint32_t>(base);
  const std::uint32_t encoding = load_le<std::uint32_t>(base + 4);
  const std::uint32_t stored = load_le<std::uint32_t>(base + 8);
  const std::uint64_t want = static_cast<std::uint64_t>(count) * element_size(p.type);
  const char* contents = base + 12;
  if (encoding == 0) {
    if (stored != want)
      fail_at(doc, p.offset,
              "array of " + std::to_string(count) + " elements holds " + std::to_string(stored) +
                  " bytes");
    return std::string(contents, stored);
  }
  if (encoding != 1) fail_at(doc, p.offset, "unknown array encoding " + std::to_string(encoding));
  if (want > (std::uint64_t{1} << 32)) fail_at(doc, p.offset, "array too large");
  std::string out(static_cast<std::size_t>(want), '\0');
  uLongf out_len = static_cast<uLongf>(want);
  const int rc = uncompress(reinterpret_cast<Bytef*>(out.data()), &out_len,
                            reinterpret_cast<const Bytef*>(contents), stored);
  if (rc != Z_OK || out_len != want)
    fail_at(doc, p.offset,
            "corrupt zlib data in an array of " + std::to_string(count) + " elements");
  return out;
}

template <typename Out>
std::vector<Out> convert_binary_array(const Document& doc, const Property& p) {
  std::uint32_t count = 0;
  const std::string bytes = binary_array_bytes(doc, p, count);
  std::vector<Out> out(count);
  const char* b = bytes.data();
  for (std::uint32_t k = 0; k < count; ++k) {
    switch (p.type) {
      case 'f':
        out[k] = static_cast<Out>(load_le<float>(b + 4 * k));
        break;
      case 'd':
        out[k] = static_cast<Out>(load_le<double>(b + 8 * k));
        break;
      case 'i':
        out[k] = static_cast<Out>(load_le<std::int32_t>(b + 4 * k));
        break;
      case 'l':
        out[k] = static_cast<Out>(load_le<std::int64_t>(b + 8 * k));
        break;
      case 'b':
        out[k] = static_cast<Out>(b[k] != 0);
        break;
      default:
        break;
    }
  }
  return out;
}

std::string_view text_of(const Document& doc, const Property& p) {
  return std::string_view(doc.data).substr(p.offset, p.size);
}

bool parse_number(std::string_view s, double& out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool parse_integer(std::string_view s, std::int64_t& out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// Calls f(token text, offset) for each element of an ASCII array "*N { a: v,v,... }".
template <typename F>
std::uint64_t for_each_ascii_element(const Document& doc, const Property& p, F&& f) {
  const std::string_view s = text_of(doc, p);
  const std::size_t colon = s.find("a:");
  const std::size_t close = s.rfind('}');
  if (colon == std::string_view::npos || close == std::string_view::npos || close < colon) {
    // "*0 {\n}" has no "a:".
    return 0;
  }
  std::uint64_t n = 0;
  std::size_t i = colon + 2;
  while (i < close) {
    while (i < close &&
           (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n' || s[i] == ','))
      ++i;
    if (i >= close) break;
    std::size_t j = i;
    while (j < close && s[j] != ',' && s[j] != ' ' && s[j] != '\t' && s[j] != '\r' && s[j] != '\n')
      ++j;
    f(s.substr(i, j - i), p.offset + i);
    ++n;
    i = j;
  }
  return n;
}

std::uint64_t ascii_declared_count(const Document& doc, const Property& p) {
  const std::string_view s = text_of(doc, p);
  std::uint64_t n = 0;
  std::size_t i = 1;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9')
    n = n * 10 + static_cast<std::uint64_t>(s[i++] - '0');
  return n;
}

template <typename Out>
std::vector<Out> convert_ascii_array(const Document& doc, const Property& p) {
  std::vector<Out> out;
  out.reserve(
      static_cast<std::size_t>(std::min<std::uint64_t>(ascii_declared_count(doc, p), 1u << 26)));
  for_each_ascii_element(doc, p, [&](std::string_view tok, std::uint64_t at) {
    if constexpr (std::is_same_v<Out, std::int64_t>) {
      std::int64_t v = 0;
      if (!parse_integer(tok, v)) {
        double d = 0;
        // A whole number outside int64 (3.6e19) cannot be converted: refused as not an integer.
        if (!parse_number(tok, d) || !whole_int64(d, v))
          fail_at(doc, at, "expected an integer, found '" + std::string(tok) + "'");
      }
      out.push_back(v);
    } else {
      double v = 0;
      if (!parse_number(tok, v))
        fail_at(doc, at, "expected a number, found '" + std::string(tok) + "'");
      out.push_back(static_cast<Out>(v));
    }
  });
  const std::uint64_t declared = ascii_declared_count(doc, p);
  if (declared != out.size())
    fail_at(doc, p.offset,
            "array declares " + std::to_string(declared) + " elements but holds " +
                std::to_string(out.size()));
  return out;
}

template <typename Out>
std::vector<Out> convert_value_array(const Value& v) {
  std::vector<Out> out;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::vector<float>> ||
                      std::is_same_v<T, std::vector<double>> ||
                      std::is_same_v<T, std::vector<std::int64_t>> ||
                      std::is_same_v<T, std::vector<std::int32_t>> ||
                      std::is_same_v<T, std::vector<bool>>) {
          out.reserve(x.size());
          for (auto e : x) out.push_back(static_cast<Out>(e));
        } else if constexpr (std::is_arithmetic_v<T>) {
          out.push_back(static_cast<Out>(x));
        }
      },
      v);
  return out;
}

}  // namespace

char type_code(const Value& v) {
  static constexpr char codes[] = {'C', 'Y', 'I', 'F', 'D', 'L', 'S', 'R', 'f', 'd', 'l', 'i', 'b'};
  return codes[v.index()];
}

const Node* Node::child(std::string_view child_name) const {
  for (const Node& c : children)
    if (c.name == child_name) return &c;
  return nullptr;
}

Node* Node::child(std::string_view child_name) {
  for (Node& c : children)
    if (c.name == child_name) return &c;
  return nullptr;
}

std::int64_t as_int(const Document& doc, const Property& p) {
  if (p.value) {
    const auto v = convert_value_array<double>(*p.value);
    std::int64_t whole = 0;
    if (v.size() != 1 || !whole_int64(v[0], whole))
      fail_at(doc, kNoSource, "expected an integer property");
    return whole;
  }
  if (doc.encoding == Encoding::ascii) {
    std::int64_t v = 0;
    const std::string_view s = text_of(doc, p);
    if (p.type == 'L' && parse_integer(s, v)) return v;
    double d = 0;
    if (p.type == 'D' && parse_number(s, d) && whole_int64(d, v)) return v;
    fail_at(doc, p.offset, "expected an integer, found '" + std::string(s.substr(0, 40)) + "'");
  }
  const char* b = doc.data.data() + p.offset;
  switch (p.type) {
    case 'C':
      return b[0] != 0;
    case 'Y':
      return load_le<std::int16_t>(b);
    case 'I':
      return load_le<std::int32_t>(b);
    case 'L':
      return load_le<std::int64_t>(b);
    case 'F': {
      std::int64_t whole = 0;
      if (whole_int64(load_le<float>(b), whole)) return whole;
      break;
    }
    case 'D': {
      std::int64_t whole = 0;
      if (whole_int64(load_le<double>(b), whole)) return whole;
      break;
    }
    default:
      break;
  }
  fail_at(doc, p.offset,
          std::string("expected an integer, found a property of type '") + p.type + "'");
}

double as_double(const Document& doc, const Property& p) {
  if (p.value) {
    const auto v = convert_value_array<double>(*p.value);
    if (v.size() != 1) fail_at(doc, kNoSource, "expected a number property");
    return v[0];
  }
  if (doc.encoding == Encoding::ascii) {
    double v = 0;
    const std::string_view s = text_of(doc, p);
    if ((p.type == 'L' || p.type == 'D') && parse_number(s, v)) return v;
    fail_at(doc, p.offset, "expected a number, found '" + std::string(s.substr(0, 40)) + "'");
  }
  const char* b = doc.data.data() + p.offset;
  switch (p.type) {
    case 'C':
      return b[0] != 0 ? 1.0 : 0.0;
    case 'Y':
      return load_le<std::int16_t>(b);
    case 'I':
      return load_le<std::int32_t>(b);
    case 'L':
      return static_cast<double>(load_le<std::int64_t>(b));
    case 'F':
      return load_le<float>(b);
    case 'D':
      return load_le<double>(b);
    default:
      break;
  }
  fail_at(doc, p.offset,
          std::string("expected a number, found a property of type '") + p.type + "'");
}

std::string as_string(const Document& doc, const Property& p) {
  if (p.value) {
    if (const auto* s = std::get_if<std::string>(p.value.get())) return *s;
    fail_at(doc, kNoSource, "expected a string property");
  }
  if (doc.encoding == Encoding::ascii) {
    const std::string_view s = text_of(doc, p);
    if (p.type == 'S' && s.size() >= 2) return std::string(s.substr(1, s.size() - 2));
    if (p.type == 'W') return std::string(s);
    fail_at(doc, p.offset, "expected a string, found '" + std::string(s.substr(0, 40)) + "'");
  }
  if (p.type == 'S' || p.type == 'R')
    return std::string(doc.data.data() + p.offset + 4, p.size - 4);
  fail_at(doc, p.offset,
          std::string("expected a string, found a property of type '") + p.type + "'");
}

std::vector<double> as_doubles(const Document& doc, const Property& p) {
  if (p.value) return convert_value_array<double>(*p.value);
  if (doc.encoding == Encoding::ascii) {
    if (p.type == 'a') return convert_ascii_array<double>(doc, p);
    return {as_double(doc, p)};
  }
  if (element_size(p.type) != 0) return convert_binary_array<double>(doc, p);
  return {as_double(doc, p)};
}

std::vector<std::int64_t> as_ints(const Document& doc, const Property& p) {
  if (p.value) return convert_value_array<std::int64_t>(*p.value);
  if (doc.encoding == Encoding::ascii) {
    if (p.type == 'a') return convert_ascii_array<std::int64_t>(doc, p);
    return {as_int(doc, p)};
  }
  if (p.type == 'f' || p.type == 'd') {
    std::vector<std::int64_t> out;
    for (double d : convert_binary_array<double>(doc, p)) {
      std::int64_t whole = 0;
      if (!whole_int64(d, whole)) fail_at(doc, p.offset, "expected an integer array");
      out.push_back(whole);
    }
    return out;
  }
  if (element_size(p.type) != 0) return convert_binary_array<std::int64_t>(doc, p);
  return {as_int(doc, p)};
}

std::uint64_t array_size(const Document& doc, const Property& p) {
  if (p.value) return convert_value_array<double>(*p.value).size();
  if (doc.encoding == Encoding::ascii) return p.type == 'a' ? ascii_declared_count(doc, p) : 1;
  if (element_size(p.type) != 0) return load_le<std::uint32_t>(doc.data.data() + p.offset);
  return 1;
}

Value decode(const Document& doc, const Property& p) {
  if (p.value) return *p.value;
  if (doc.encoding == Encoding::ascii) {
    switch (p.type) {
      case 'S':
      case 'W':
        return as_string(doc, p);
      case 'L':
        return as_int(doc, p);
      case 'D':
        return as_double(doc, p);
      case 'a': {
        bool integral = true;
        for_each_ascii_element(doc, p, [&](std::string_view tok, std::uint64_t) {
          for (char c : tok)
            if (c == '.' || c == 'e' || c == 'E' || c == 'n' || c == 'N' || c == 'i' || c == 'I')
              integral = false;
        });
        if (integral) return convert_ascii_array<std::int64_t>(doc, p);
        return convert_ascii_array<double>(doc, p);
      }
      default:
        break;
    }
    fail_at(doc, p.offset, "unknown property");
  }
  const char* b = doc.data.data() + p.offset;
  switch (p.type) {
    case 'C':
      return b[0] != 0;
    case 'Y':
      return load_le<std::int16_t>(b);
    case 'I':
      return load_le<std::int32_t>(b);
    case 'F':
      return load_le<float>(b);
    case 'D':
      return load_le<double>(b);
    case 'L':
      return load_le<std::int64_t>(b);
    case 'S':
      return as_string(doc, p);
    case 'R':
      return Raw{as_string(doc, p)};
    case 'f':
      return convert_binary_array<float>(doc, p);
    case 'd':
      return convert_binary_array<double>(doc, p);
    case 'l':
      return convert_binary_array<std::int64_t>(doc, p);
    case 'i':
      return convert_binary_array<std::int32_t>(doc, p);
    case 'b':
      return convert_binary_array<bool>(doc, p);
    default:
      break;
  }
  fail_at(doc, p.offset, std::string("unknown property type '") + p.type + "'");
}

std::string display_name(std::string_view stored) {
  const std::size_t sep = stored.find(std::string_view("\0\x01", 2));
  if (sep == std::string_view::npos) return std::string(stored);
  return std::string(stored.substr(sep + 2)) + "::" + std::string(stored.substr(0, sep));
}

std::string object_name(std::string_view stored) {
  const std::size_t sep = stored.find(std::string_view("\0\x01", 2));
  if (sep != std::string_view::npos) return std::string(stored.substr(0, sep));
  const std::size_t colons = stored.find("::");
  if (colons != std::string_view::npos) return std::string(stored.substr(colons + 2));
  return std::string(stored);
}

std::string stored_name(const Document& doc, std::string_view name, std::string_view class_name) {
  if (doc.encoding == Encoding::binary) {
    std::string s(name);
    s.append("\0\x01", 2);
    s.append(class_name);
    return s;
  }
  return std::string(class_name) + "::" + std::string(name);
}

void set_value(Property& p, Value value) {
  p.type = type_code(value);
  p.value = std::make_shared<const Value>(std::move(value));
}

void set_value(Property& p, std::shared_ptr<const Value> value) {
  p.type = type_code(*value);
  p.value = std::move(value);
}

Property make_property(Value value) {
  Property p;
  set_value(p, std::move(value));
  return p;
}

Node make_node(std::string name, std::vector<Value> props) {
  Node n;
  n.name = std::move(name);
  n.props.reserve(props.size());
  for (Value& v : props) n.props.push_back(make_property(std::move(v)));
  return n;
}

bool is_changed(const Node& node) {
  if (node.begin == kNoSource) return true;
  for (const Property& p : node.props)
    if (p.value) return true;
  for (const Node& c : node.children)
    if (is_changed(c)) return true;
  return false;
}

}  // namespace ikfix::io::fbx
