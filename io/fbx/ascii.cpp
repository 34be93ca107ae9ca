// ASCII FBX 7.x: parsing into the node tree and writing it back.
//
// Grammar (as written by the FBX SDK): a file is a list of nodes; a node is `Name:` followed
// by comma-separated properties and optionally `{ child nodes }`. A property is a quoted string
// (no escapes; the SDK writes &quot;), a number, a bare word (T, Y, ...), or an array
// `*N { a: v,v,... }`. A line ending in ',' continues on the next. ';' starts a comment that
// runs to the end of the line. The writer copies unchanged nodes as they were and splices the
// text of replaced properties and created nodes into the original.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "io/error.hpp"
#include "io/fbx/binary.hpp"

namespace ikfix::io::fbx::detail {
namespace {

constexpr int kMaxDepth = 128;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

class AsciiParser {
 public:
  explicit AsciiParser(Document& doc) : doc_(doc), s_(doc.data) {}

  void run() {
    Node& root = doc_.root;
    root.begin = 0;
    parse_children(root, false, 0);
    root.end = s_.size();
    root.tail = kNoSource;
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& cause) const {
    const int line =
        1 +
        static_cast<int>(std::count(
            s_.begin(), s_.begin() + static_cast<std::ptrdiff_t>(std::min(at, s_.size())), '\n'));
    throw InputError(doc_.source_name, line, cause);
  }

  // Skips spaces, tabs, CR, newlines and comments.
  void skip_blank() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (is_space(c) || c == '\n') {
        ++pos_;
      } else if (c == ';') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  void skip_inline_space() {
    while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
  }

  void parse_children(Node& parent, bool expect_close, int depth) {
    if (depth > kMaxDepth) fail(pos_, "nodes nested deeper than " + std::to_string(kMaxDepth));
    for (;;) {
      skip_blank();
      if (pos_ >= s_.size()) {
        if (expect_close)
          fail(parent.begin,
               "node '" + parent.name + "' is not closed by '}' (file is truncated?)");
        return;
      }
      if (s_[pos_] == '}') {
        if (!expect_close) fail(pos_, "'}' without a matching '{'");
        parent.tail = pos_;
        ++pos_;
        return;
      }
      parent.children.push_back(parse_node(depth));
    }
  }

  Node parse_node(int depth) {
    Node node;
    node.begin = pos_;
    std::size_t name_end = pos_;
    while (name_end < s_.size() && s_[name_end] != ':' && s_[name_end] != '\n' &&
           s_[name_end] != '{' && s_[name_end] != '}' && s_[name_end] != ',' &&
           s_[name_end] != '"' && !is_space(s_[name_end]))
      ++name_end;
    if (name_end == pos_ || name_end >= s_.size() || s_[name_end] != ':')
      fail(pos_, "expected a node name followed by ':', found '" +
                     std::string(s_.substr(pos_, std::min<std::size_t>(20, s_.size() - pos_))) +
                     "'");
    node.name.assign(s_.substr(pos_, name_end - pos_));
    pos_ = name_end + 1;
    node.end = pos_;
    bool continued = false;  // the last property was followed by ','
    for (;;) {
      skip_inline_space();
      if (pos_ >= s_.size()) break;
      const char c = s_[pos_];
      if (c == '\n' || c == ';') {
        if (!continued) break;
        skip_blank();
        continue;
      }
      if (c == '{') {
        ++pos_;
        parse_children(node, true, depth + 1);
        node.end = pos_;
        return node;
      }
      if (c == '}') break;  // a leaf node closing its parent on the same line
      if (!node.props.empty() && !continued)
        fail(pos_, "expected ',' between properties of node '" + node.name + "'");
      if (c == ',') {
        // An empty property, as in embedded texture data: "Content: ,\n "base64..."".
        Property empty;
        empty.type = 'W';
        empty.offset = pos_;
        empty.size = 0;
        node.props.push_back(empty);
        ++pos_;
        continued = true;
        continue;
      }
      node.props.push_back(parse_property(node.name));
      node.end = pos_;
      skip_inline_space();
      continued = pos_ < s_.size() && s_[pos_] == ',';
      if (continued) ++pos_;
    }
    if (continued) fail(pos_, "node '" + node.name + "' ends with ','");
    return node;
  }

  Property parse_property(const std::string& node_name) {
    Property p;
    p.offset = pos_;
    const char c = s_[pos_];
    if (c == '"') {
      const std::size_t close = s_.find('"', pos_ + 1);
      if (close == std::string_view::npos)
        fail(pos_, "string in node '" + node_name + "' is not closed");
      p.type = 'S';
      pos_ = close + 1;
    } else if (c == '*') {
      std::size_t q = pos_ + 1;
      while (q < s_.size() && s_[q] >= '0' && s_[q] <= '9') ++q;
      if (q == pos_ + 1)
        fail(pos_, "expected an element count after '*' in node '" + node_name + "'");
      while (q < s_.size() && (is_space(s_[q]) || s_[q] == '\n')) ++q;
      if (q >= s_.size() || s_[q] != '{')
        fail(q, "expected '{' after the array size in node '" + node_name + "'");
      const std::size_t close = s_.find('}', q);
      if (close == std::string_view::npos)
        fail(pos_, "array in node '" + node_name + "' is not closed by '}'");
      p.type = 'a';
      pos_ = close + 1;
    } else {
      std::size_t q = pos_;
      while (q < s_.size() && s_[q] != ',' && s_[q] != '\n' && s_[q] != '{' && s_[q] != '}' &&
             s_[q] != ';' && !is_space(s_[q]))
        ++q;
      if (q == pos_) fail(pos_, "empty property in node '" + node_name + "'");
      const std::string_view tok = s_.substr(pos_, q - pos_);
      p.type = classify(tok);
      pos_ = q;
    }
    p.size = pos_ - p.offset;
    return p;
  }

  static char classify(std::string_view tok) {
    std::string_view t = tok;
    if (!t.empty() && (t.front() == '-' || t.front() == '+')) t.remove_prefix(1);
    if (t.empty() || !((t.front() >= '0' && t.front() <= '9') || t.front() == '.')) return 'W';
    bool integral = true;
    for (char ch : t) {
      if (ch >= '0' && ch <= '9') continue;
      if (ch == '.' || ch == 'e' || ch == 'E' || ch == '-' || ch == '+') {
        integral = false;
        continue;
      }
      return 'W';
    }
    return integral ? 'L' : 'D';
  }

  Document& doc_;
  std::string_view s_;
  std::size_t pos_ = 0;
};

void append_number(std::string& out, double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}
void append_number(std::string& out, float v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}
template <typename I>
void append_integer(std::string& out, I v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// Text of a property value; arrays are laid out for a node whose line starts with `indent`.
std::string format_value(const Value& v, std::string_view indent) {
  std::string out;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) {
          out = x ? "1" : "0";
        } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          append_number(out, x);
        } else if constexpr (std::is_integral_v<T>) {
          append_integer(out, x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          out.push_back('"');
          out.append(x);
          out.push_back('"');
        } else if constexpr (std::is_same_v<T, Raw>) {
          out.push_back('"');
          out.append(x.bytes);
          out.push_back('"');
        } else {
          out.push_back('*');
          append_integer(out, x.size());
          out.append(" {\n");
          out.append(indent);
          out.append("\ta: ");
          bool first = true;
          for (const auto e : x) {
            if (!first) out.push_back(',');
            first = false;
            using E = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<E, float> || std::is_same_v<E, double>)
              append_number(out, e);
            else if constexpr (std::is_same_v<E, bool>)
              out.push_back(e ? '1' : '0');
            else
              append_integer(out, e);
          }
          out.push_back('\n');
          out.append(indent);
          out.push_back('}');
        }
      },
      v);
  return out;
}

class AsciiWriter {
 public:
  explicit AsciiWriter(const Document& doc) : doc_(doc), s_(doc.data) {}

  std::string run() {
    out_.reserve(s_.size() + s_.size() / 8);
    write_node(doc_.root, "");
    return std::move(out_);
  }

 private:
  std::size_t line_start(std::size_t at) const {
    while (at > 0 && s_[at - 1] != '\n') --at;
    return at;
  }
  std::string_view indent_at(std::size_t at) const {
    const std::size_t start = line_start(at);
    std::size_t e = start;
    while (e < at && (s_[e] == ' ' || s_[e] == '\t')) ++e;
    return s_.substr(start, e - start);
  }

  void copy(std::size_t from, std::size_t to) {
    if (to > from) out_.append(s_.substr(from, to - from));
  }

  void write_property(const Property& p, std::string_view indent) {
    if (p.value)
      out_.append(format_value(*p.value, indent));
    else
      out_.append(s_.substr(p.offset, p.size));
  }

  void write_created(const Node& n, const std::string& indent) {
    out_.append(indent);
    out_.append(n.name);
    out_.push_back(':');
    for (std::size_t k = 0; k < n.props.size(); ++k) {
      out_.append(k == 0 ? " " : ", ");
      write_property(n.props[k], indent);
    }
    if (!n.children.empty() || n.props.empty()) {
      out_.append(" {\n");
      const std::string inner = indent + "\t";
      for (const Node& c : n.children) write_created(c, inner);
      out_.append(indent);
      out_.push_back('}');
    }
    out_.push_back('\n');
  }

  // `indent` is used for the root only (whose children sit at column 0).
  void write_node(const Node& n, std::string_view root_indent) {
    const bool is_root = &n == &doc_.root;
    if (!is_changed(n)) {
      copy(n.begin, n.end);
      return;
    }
    const std::string_view indent = is_root ? root_indent : indent_at(n.begin);
    std::size_t cursor = n.begin;
    for (const Property& p : n.props) {
      if (p.offset != kNoSource) {
        copy(cursor, p.offset);
        write_property(p, indent);
        cursor = p.offset + p.size;
      } else {
        out_.append(", ");
        write_property(p, indent);
      }
    }
    bool inserted = false;
    for (const Node& c : n.children) {
      if (c.begin != kNoSource) {
        copy(cursor, c.begin);
        write_node(c, "");
        cursor = c.end;
        continue;
      }
      // Created children go on their own lines just before the closing brace's line (at the end
      // of the file for the root).
      if (!inserted) {
        inserted = true;
        std::size_t at = n.tail == kNoSource ? n.end : line_start(n.tail);
        if (at < cursor) at = cursor;
        copy(cursor, at);
        cursor = at;
        if (!out_.empty() && out_.back() != '\n') out_.push_back('\n');
      }
      const std::string child_indent =
          is_root ? std::string()
                  : std::string(n.tail == kNoSource ? indent : indent_at(n.tail)) + "\t";
      write_created(c, child_indent);
    }
    copy(cursor, n.end);
  }

  const Document& doc_;
  std::string_view s_;
  std::string out_;
};

}  // namespace

std::uint32_t ascii_version(std::string_view data) {
  // "; FBX 7.5.0 project file" on the first line.
  const std::size_t first_nl = data.find('\n');
  const std::string_view first =
      data.substr(0, first_nl == std::string_view::npos ? data.size() : first_nl);
  std::uint32_t from_comment = 0;
  if (const std::size_t at = first.find("FBX ");
      at != std::string_view::npos && first.find("project file") != std::string_view::npos) {
    int major = 0, minor = 0;
    const char* b = first.data() + at + 4;
    const char* e = first.data() + first.size();
    auto r = std::from_chars(b, e, major);
    if (r.ec == std::errc() && r.ptr < e && *r.ptr == '.') {
      r = std::from_chars(r.ptr + 1, e, minor);
      if (r.ec == std::errc())
        from_comment = static_cast<std::uint32_t>(major * 1000 + minor * 100);
    }
  }
  // FBXVersion: 7500 near the top.
  const std::string_view head = data.substr(0, std::min<std::size_t>(data.size(), 4096));
  if (const std::size_t at = head.find("FBXVersion:"); at != std::string_view::npos) {
    std::size_t q = at + 11;
    while (q < head.size() && is_space(head[q])) ++q;
    std::uint32_t v = 0;
    const auto r = std::from_chars(head.data() + q, head.data() + head.size(), v);
    if (r.ec == std::errc()) return v;
  }
  return from_comment;
}

void parse_ascii(Document& doc) { AsciiParser(doc).run(); }

std::string write_ascii(const Document& doc) { return AsciiWriter(doc).run(); }

}  // namespace ikfix::io::fbx::detail
