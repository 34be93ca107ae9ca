#include "io/bvh/reader.hpp"

#include <unistd.h>  // sysconf

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <system_error>
#include <utility>
#include <vector>

#include "io/bvh/euler.hpp"
#include "io/decimal.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/mapped_file.hpp"
#include "io/memory_budget.hpp"
#include "io/parallel_blocks.hpp"

namespace ikfix::io::bvh {

std::string_view channel_name(ChannelKind k) {
  switch (k) {
    case ChannelKind::Xposition:
      return "Xposition";
    case ChannelKind::Yposition:
      return "Yposition";
    case ChannelKind::Zposition:
      return "Zposition";
    case ChannelKind::Xrotation:
      return "Xrotation";
    case ChannelKind::Yrotation:
      return "Yrotation";
    case ChannelKind::Zrotation:
      return "Zrotation";
  }
  return "?";
}

namespace {

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }
inline bool is_eol(char c) { return c == '\n' || c == '\r'; }
inline bool is_space(char c) { return is_blank(c) || is_eol(c); }

char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t n = 0; n < a.size(); ++n)
    if (to_lower(a[n]) != to_lower(b[n])) return false;
  return true;
}

// A token for an error message: quoted, at most 40 characters, control characters escaped.
std::string show(std::string_view s) {
  std::string out = "'";
  const std::size_t limit = 40;
  for (std::size_t n = 0; n < s.size() && n < limit; ++n) {
    const unsigned char c = static_cast<unsigned char>(s[n]);
    if (c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > limit) out += "...";
  out += "'";
  return out;
}

std::optional<ChannelKind> channel_from_name(std::string_view s) {
  static constexpr std::pair<std::string_view, ChannelKind> kNames[] = {
      {"Xposition", ChannelKind::Xposition}, {"Yposition", ChannelKind::Yposition},
      {"Zposition", ChannelKind::Zposition}, {"Xrotation", ChannelKind::Xrotation},
      {"Yrotation", ChannelKind::Yrotation}, {"Zrotation", ChannelKind::Zrotation}};
  for (const auto& [name, kind] : kNames)
    if (iequals(s, name)) return kind;
  return std::nullopt;
}

enum class NumberStatus { ok, invalid, out_of_range, not_finite };

// Parses a number starting at `first` (an optional '+' is accepted). On success `*stop` is
// the first character after it. The caller checks what follows.
inline NumberStatus parse_number(const char* first, const char* last, double& value,
                                 const char** stop, int* decimals = nullptr) {
  const char* s = first;
  if (s < last && *s == '+') {
    ++s;
    if (s < last && *s == '-') return NumberStatus::invalid;
  }
  const auto [ptr, ec] = io::read_double(s, last, value, decimals);
  *stop = ptr;
  if (ec == std::errc::result_out_of_range) return NumberStatus::out_of_range;
  if (ec != std::errc()) return NumberStatus::invalid;
  if (!std::isfinite(value)) return NumberStatus::not_finite;
  return NumberStatus::ok;
}

// The frame lines' common case, "[-]digits[.digits]" ended by a blank, a line break or `end`,
// read without per-character bounds checks: true with the value, `*stop` and the decimals shown
// exactly as parse_number + read_double give them (the same Clinger fast path: at most 19 digits,
// a mantissa <= 2^53, m / 10^decimals is one correctly rounded division). false: nothing was
// decided; the caller takes the general path (signs, exponents, long numbers, errors).
//
// Why no bounds checks are needed: the digit loops stop at the first non-digit, and `end` is
// either the end of the Document's text (a std::string, or a mapping whose last page is not
// full: *end == '\0', see read_file) or just past a line break (read_frames_in_parallel cuts
// blocks there), which a number on the line cannot cross.
// A '\0' before `end` (a stray byte in the file) is not a terminator here: the general path
// reports it.
inline bool read_plain_number(const char* first, const char* end, double& value, const char** stop,
                              int& shown) {
  const char* s = first;
  const bool negative = *s == '-';
  s += negative;
  std::uint64_t mantissa = 0;
  const char* digits_begin = s;
  for (unsigned d; (d = static_cast<unsigned char>(*s) - unsigned{'0'}) < 10; ++s)
    mantissa = mantissa * 10 + d;
  int digits = static_cast<int>(s - digits_begin);
  int decimals = 0;
  if (*s == '.') {
    const char* fraction = ++s;
    for (unsigned d; (d = static_cast<unsigned char>(*s) - unsigned{'0'}) < 10; ++s)
      mantissa = mantissa * 10 + d;
    decimals = static_cast<int>(s - fraction);
    digits += decimals;
  }
  const char after = *s;
  const bool ends = is_blank(after) || is_eol(after) || (after == '\0' && s == end);
  if (!ends || digits == 0 || digits > 19 || decimals > 22 || mantissa > (std::uint64_t{1} << 53))
    return false;
  const double magnitude = static_cast<double>(mantissa) / io::decimal_detail::kPow10[decimals];
  value = negative ? -magnitude : magnitude;
  shown = decimals > io::kMaxShownDecimals ? io::kMaxShownDecimals : decimals;
  *stop = s;
  return true;
}

// A frame line's values from `p` (on the first one) while each is what io::read_plain_decimal
// reads, followed by a blank or a line break: into `values`, `decimals` raised, `p` moved past
// them. Returns how many were read (at most `count`); the caller reads the rest (and any error)
// the general way, with the same values and decimals. No bounds checks: a number is read only
// where it starts at or before `last`, 33 bytes before the end of the text, and blanks are
// skipped up to a line break or the text's final '\0' at the latest. kSome: only channels with
// made[c] != 0 are converted, the others are scanned (the same texts accepted) and hold NaN.
template <bool kSome>
[[gnu::noinline]] int read_plain_values(const char*& p, const char* last, double* values,
                                        int* decimals, const char* made, int count) {
  const char* q = p;
  int c = 0;
  while (c < count && q <= last) {
    double v;
    int shown;
    const char* stop;
    if (kSome && !made[c]) {
      stop = io::scan_plain_decimal(q, shown);
      v = std::numeric_limits<double>::quiet_NaN();
    } else {
      stop = io::read_plain_decimal(q, v, shown);
    }
    if (!stop) break;
    const char after = *stop;
    if (!(is_blank(after) || is_eol(after))) break;
    values[c] = v;
    decimals[c] = std::max(decimals[c], shown);
    ++c;
    // The next value, mostly after one space (stop + 1 is at most the text's final '\0').
    q = stop + 1;
    if (after != ' ' || static_cast<unsigned char>(*q) <= ' ')
      for (q = stop; is_blank(*q);) ++q;
  }
  p = q;
  return c;
}

// One open '{' block while reading the hierarchy.
struct OpenBlock {
  int joint;  // the joint, or the joint whose End Site this is
  bool end_site;
  bool has_offset = false;
  bool has_channels = false;
  bool has_children = false;
};

// The last position of `text` with the 33 bytes io::read_plain_decimal reads after it; null in
// a shorter text.
inline const char* last_plain_number(std::string_view text) {
  return text.size() >= 33 ? text.data() + text.size() - 33 : nullptr;
}

class Parser {
 public:
  Parser(Document& doc, const ParseOptions& options)
      : doc_(doc),
        options_(options),
        begin_(doc.text.data()),
        p_(doc.text.data()),
        end_(doc.text.data() + doc.text.size()),
        plain_last_(last_plain_number(doc.text)) {}
  // A parser for the frame lines in [begin, end) of doc.text (whole lines), `line` being the
  // line number at `begin`; only read_frame_block may be called on it.
  Parser(Document& doc, const ParseOptions& options, const char* begin, const char* end, int line)
      : doc_(doc),
        options_(options),
        begin_(doc.text.data()),
        p_(begin),
        end_(end),
        plain_last_(last_plain_number(doc.text)),
        made_(doc.channels_read.empty() ? nullptr : doc.channels_read.data()),
        line_(line) {}

  void run() {
    if (doc_.text.size() >= std::numeric_limits<std::uint32_t>::max())
      fail(0, "file is 4 GiB or larger; not supported");
    if (doc_.text.size() >= 3 && doc_.text.compare(0, 3, "\xEF\xBB\xBF") == 0) p_ += 3;
    read_hierarchy();
    if (options_.max_joints > 0 &&
        doc_.joints.size() > static_cast<std::size_t>(options_.max_joints))
      fail(0, std::to_string(doc_.joints.size()) + " joints, more than the limit of " +
                  std::to_string(options_.max_joints) + " (--max-joints)");
    read_motion_header();
    check_memory();
    choose_channels();
    read_frames();
    set_line_endings();
    doc_.positions = detect_position_convention(doc_);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& cause) const {
    throw InputError(doc_.source_name, line, cause);
  }

  // --- low-level scanning -------------------------------------------------------------------

  void skip_blank() {
    while (p_ < end_ && is_blank(*p_)) ++p_;
  }
  bool at_eol() const { return p_ == end_ || is_eol(*p_); }
  // Consumes one line break ("\r\n", "\n" or "\r") if there is one.
  void consume_eol() {
    if (p_ == end_) return;
    if (*p_ == '\n') {
      ++p_;
      ++lf_;
    } else if (*p_ == '\r') {
      if (p_ + 1 < end_ && p_[1] == '\n') {
        p_ += 2;
        ++crlf_;
      } else {
        ++p_;
        ++cr_;
      }
    } else {
      return;
    }
    ++line_;
  }
  // Skips blanks and line breaks.
  void skip_space() {
    for (;;) {
      skip_blank();
      if (p_ < end_ && is_eol(*p_))
        consume_eol();
      else
        return;
    }
  }
  // Next token on this line: "{" or "}", or a run of other non-space characters; empty at EOL.
  std::string_view token() {
    skip_blank();
    if (at_eol()) return {};
    const char* s = p_;
    if (*p_ == '{' || *p_ == '}') {
      ++p_;
      return {s, 1};
    }
    while (p_ < end_ && !is_space(*p_) && *p_ != '{' && *p_ != '}') ++p_;
    return {s, static_cast<std::size_t>(p_ - s)};
  }
  // The next whitespace-delimited word, for error messages (does not move).
  std::string_view peek_word() const {
    const char* s = p_;
    while (s < end_ && is_blank(*s)) ++s;
    const char* e = s;
    while (e < end_ && !is_space(*e)) ++e;
    return {s, static_cast<std::size_t>(e - s)};
  }
  // The rest of this line without surrounding blanks (the cursor moves to the line break).
  std::string_view rest_of_line() {
    skip_blank();
    const char* s = p_;
    while (!at_eol()) ++p_;
    const char* e = p_;
    while (e > s && is_blank(e[-1])) --e;
    return {s, static_cast<std::size_t>(e - s)};
  }
  // Case-insensitive match of `word` at the cursor; advances past it when it matches.
  bool match(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size()) return false;
    if (!iequals(std::string_view(p_, word.size()), word)) return false;
    p_ += word.size();
    return true;
  }
  void expect_eol(std::string_view after) {
    skip_blank();
    if (!at_eol()) fail(line_, "unexpected " + show(peek_word()) + " after " + std::string(after));
  }

  double header_number(std::string_view what) {
    skip_blank();
    if (at_eol()) fail(line_, std::string(what) + ": missing number");
    const char* stop = nullptr;
    double v = 0.0;
    const NumberStatus status = parse_number(p_, end_, v, &stop);
    // `stop` is set only when a number was read ("+-1" is refused before): look past it then.
    const bool clean_end = status != NumberStatus::ok || stop == end_ || is_space(*stop) ||
                           *stop == '{' || *stop == '}';
    if (status == NumberStatus::invalid || (status == NumberStatus::ok && !clean_end))
      fail(line_, std::string(what) + ": " + show(peek_word()) + " is not a number");
    if (status == NumberStatus::out_of_range)
      fail(line_, std::string(what) + ": " + show(peek_word()) + " is out of range");
    if (status == NumberStatus::not_finite)
      fail(line_, std::string(what) + ": " + show(peek_word()) + " is not a finite number");
    p_ = stop;
    return v;
  }

  std::string joint_label(int joint) const { return "joint " + show(doc_.joints[joint].name); }
  std::string block_label(const OpenBlock& b) const {
    return b.end_site ? "End Site of " + joint_label(b.joint) : joint_label(b.joint);
  }

  // --- hierarchy ----------------------------------------------------------------------------

  // After ROOT/JOINT/End Site: reads the rest of the line (the name) and the opening brace,
  // which may end that line or start the next one.
  std::string_view open_block(std::string_view keyword, int keyword_line) {
    std::string_view rest = rest_of_line();
    bool brace = false;
    if (!rest.empty() && rest.back() == '{') {
      brace = true;
      rest.remove_suffix(1);
      while (!rest.empty() && is_blank(rest.back())) rest.remove_suffix(1);
    }
    if (!brace) {
      skip_space();
      if (p_ == end_)
        fail(line_, "unexpected end of file: expected '{' after " + std::string(keyword));
      if (token() != "{")
        fail(line_, "expected '{' after " + std::string(keyword) + " on line " +
                        std::to_string(keyword_line) + ", found " + show(peek_word()));
    }
    return rest;
  }

  void begin_joint(int parent, std::string_view keyword, int keyword_line) {
    const std::string_view name = open_block(keyword, keyword_line);
    if (name.empty()) fail(keyword_line, std::string(keyword) + " without a name");
    Joint joint;
    joint.name = std::string(name);
    joint.parent = parent;
    joint.line = keyword_line;
    doc_.joints.push_back(std::move(joint));
    stack_.push_back(OpenBlock{static_cast<int>(doc_.joints.size()) - 1, false});
  }

  void read_offset(OpenBlock& block, int line) {
    if (block.has_offset) fail(line, "second OFFSET in " + block_label(block));
    const std::string what = "OFFSET of " + block_label(block);
    core::Vec3 v;
    for (int n = 0; n < 3; ++n) {
      skip_blank();
      if (at_eol() || *p_ == '}')
        fail(line, what + " has " + std::to_string(n) + " numbers; expected 3");
      v[n] = header_number(what);
    }
    skip_blank();
    if (!at_eol() && *p_ != '}') fail(line, what + " has more than 3 numbers");
    block.has_offset = true;
    Joint& joint = doc_.joints[block.joint];
    if (block.end_site) {
      if (!joint.end_site) joint.end_site = v;
    } else {
      joint.offset = v;
    }
  }

  void read_channels(OpenBlock& block, int line) {
    const std::string label = joint_label(block.joint);
    if (block.has_channels) fail(line, "second CHANNELS in " + label);
    if (block.has_children) fail(line, "CHANNELS of " + label + " must come before its children");
    const std::string_view count_text = token();
    int count = -1;
    const auto [ptr, ec] =
        std::from_chars(count_text.data(), count_text.data() + count_text.size(), count);
    if (count_text.empty() || ec != std::errc() || ptr != count_text.data() + count_text.size())
      fail(line, "CHANNELS of " + label + ": expected a channel count, found " + show(count_text));
    if (count < 0 || count > 6)
      fail(line, "CHANNELS of " + label + ": count " + std::to_string(count) + " is outside 0..6");
    Joint& joint = doc_.joints[block.joint];
    for (;;) {
      const std::string_view name = token();
      if (name.empty()) break;
      const auto kind = channel_from_name(name);
      if (!kind)
        fail(line, "CHANNELS of " + label + ": unknown channel " + show(name) +
                       " (expected Xposition..Zrotation)");
      if (std::find(joint.channels.begin(), joint.channels.end(), *kind) != joint.channels.end())
        fail(line, "CHANNELS of " + label + ": " + show(name) + " listed twice");
      joint.channels.push_back(*kind);
    }
    if (static_cast<int>(joint.channels.size()) != count)
      fail(line, "CHANNELS of " + label + " says " + std::to_string(count) + " but lists " +
                     std::to_string(joint.channels.size()) + " channel names");
    joint.first_value = doc_.channel_count;
    doc_.channel_count += count;
    block.has_channels = true;
  }

  void read_hierarchy() {
    skip_space();
    if (p_ == end_) fail(1, doc_.text.empty() ? "file is empty" : "file contains only whitespace");
    const int first_line = line_;
    const std::string_view first = token();
    if (!iequals(first, "HIERARCHY"))
      fail(first_line, "expected 'HIERARCHY' at the start of the file, found " + show(first));
    expect_eol("HIERARCHY");

    for (;;) {
      skip_space();
      if (p_ == end_) {
        if (!stack_.empty())
          fail(line_,
               "unexpected end of file inside " + block_label(stack_.back()) + " (missing '}')");
        fail(line_, "unexpected end of file: no MOTION section");
      }
      const int line = line_;
      const std::string_view tok = token();

      if (stack_.empty()) {
        if (iequals(tok, "ROOT")) {
          begin_joint(-1, "ROOT", line);
        } else if (iequals(tok, "MOTION")) {
          expect_eol("MOTION");
          motion_line_ = line;
          break;
        } else if (tok == "}") {
          fail(line, "unmatched '}'");
        } else if (iequals(tok, "JOINT") || iequals(tok, "OFFSET") || iequals(tok, "CHANNELS") ||
                   iequals(tok, "End") || tok == "{") {
          fail(line, show(tok) + " outside of a ROOT block");
        } else {
          fail(line, "unknown keyword " + show(tok) + " (expected ROOT or MOTION)");
        }
        continue;
      }

      OpenBlock& top = stack_.back();
      if (iequals(tok, "OFFSET")) {
        read_offset(top, line);
      } else if (tok == "}") {
        if (!top.has_offset) fail(line, block_label(top) + " has no OFFSET");
        if (!top.end_site && !top.has_channels)
          fail(line, joint_label(top.joint) + " has no CHANNELS");
        stack_.pop_back();
      } else if (top.end_site) {
        fail(line,
             "unexpected " + show(tok) + " in " + block_label(top) + " (expected OFFSET or '}')");
      } else if (iequals(tok, "CHANNELS")) {
        read_channels(top, line);
      } else if (iequals(tok, "JOINT")) {
        if (!top.has_channels)
          fail(line, joint_label(top.joint) + " has no CHANNELS before its first child");
        top.has_children = true;
        begin_joint(top.joint, "JOINT", line);  // invalidates `top`
      } else if (iequals(tok, "End")) {
        const std::string_view site = token();
        if (!iequals(site, "Site"))
          fail(line, "expected 'End Site', found 'End " + std::string(site) + "'");
        top.has_children = true;
        const int joint = top.joint;
        open_block("End Site", line);  // the rest of the line (a name, if any) is ignored
        stack_.push_back(OpenBlock{joint, true});
      } else if (iequals(tok, "ROOT") || iequals(tok, "MOTION")) {
        fail(line, show(tok) + " inside " + block_label(top) + " (missing '}')");
      } else if (tok == "{") {
        fail(line, "unexpected '{' in " + block_label(top));
      } else {
        fail(line, "unknown keyword " + show(tok) + " in " + block_label(top));
      }
    }
    if (doc_.joints.empty()) fail(motion_line_, "HIERARCHY has no joints");
    if (doc_.channel_count == 0) fail(motion_line_, "the hierarchy has no channels");
  }

  // --- MOTION header ------------------------------------------------------------------------

  void read_motion_header() {
    consume_eol();
    skip_space();
    if (p_ == end_) fail(line_, "unexpected end of file: expected 'Frames:' after MOTION");
    doc_.frames_line = line_;
    if (!match("Frames"))
      fail(line_, "expected 'Frames:' after MOTION, found " + show(peek_word()));
    skip_blank();
    if (p_ == end_ || *p_ != ':') fail(line_, "expected ':' after 'Frames'");
    ++p_;
    const std::string_view count_text = token();
    long long frames = -1;
    const auto [ptr, ec] =
        std::from_chars(count_text.data(), count_text.data() + count_text.size(), frames);
    if (count_text.empty() || ec == std::errc::invalid_argument ||
        ptr != count_text.data() + count_text.size())
      fail(line_, "Frames: expected a whole number, found " + show(count_text));
    if (ec != std::errc() || frames < 0 || frames > std::numeric_limits<int>::max())
      fail(line_, "Frames: " + show(count_text) + " is out of range");
    doc_.frame_count = static_cast<int>(frames);
    expect_eol("the frame count");
    consume_eol();

    skip_space();
    if (p_ == end_) fail(line_, "unexpected end of file: expected 'Frame Time:'");
    doc_.frame_time_line = line_;
    bool ok = match("Frame");
    skip_blank();
    ok = ok && match("Time");
    skip_blank();
    if (!ok || p_ == end_ || *p_ != ':')
      fail(line_, "expected 'Frame Time:' after the Frames line, found " + show(peek_word()));
    ++p_;
    skip_blank();
    if (at_eol()) fail(line_, "Frame Time: missing number");
    const char* number_begin = p_;
    const double frame_time = header_number("Frame Time");
    if (!(frame_time > 0.0))
      fail(line_, "Frame Time must be positive, found " +
                      show(std::string_view(number_begin, p_ - number_begin)));
    doc_.frame_time = frame_time;
    doc_.frame_time_text = {static_cast<std::uint32_t>(number_begin - begin_),
                            static_cast<std::uint32_t>(p_ - number_begin)};
    expect_eol("the frame time");
    consume_eol();
  }

  // --- frames -------------------------------------------------------------------------------

  // Frames the rest of the text can hold: each value needs at least 2 bytes (digit and
  // separator). A "Frames:" above it fails in read_frames, with the line where the text ends.
  std::size_t frames_text_can_hold() const {
    const std::size_t remaining = static_cast<std::size_t>(end_ - p_);
    return remaining / (2 * static_cast<std::size_t>(doc_.channel_count) - 1) + 1;
  }

  // The clip's memory estimate against --max-memory (io/memory_budget.hpp), before the frame
  // values are allocated.
  void check_memory() const {
    const std::size_t frames =
        std::min<std::size_t>(static_cast<std::size_t>(doc_.frame_count), frames_text_can_hold());
    io::check_clip_memory(doc_.source_name, {doc_.text.size(), frames, doc_.joints.size(),
                                             static_cast<std::uint64_t>(doc_.channel_count)});
  }

  void skip_blank_lines() {
    for (;;) {
      skip_blank();
      if (p_ < end_ && is_eol(*p_))
        consume_eol();
      else
        return;
    }
  }

  [[noreturn]] void bad_value(int line, NumberStatus status) {
    const std::string word = show(peek_word());
    switch (status) {
      case NumberStatus::out_of_range:
        fail(line, "value " + word + " is out of range");
      case NumberStatus::not_finite:
        fail(line, "value " + word + " is not a finite number");
      default:
        fail(line, "value " + word + " is not a number");
    }
  }

  // Reads one frame line at the cursor (which is on a non-blank character) into `values`
  // (channel_count entries) and `*first_value` (the offset of its first value in the text), and
  // moves past its line break. `decimals` (channel_count entries, or null) is raised to the
  // decimals each value shows.
  void read_frame_line(double* values, std::uint32_t* first_value, int* decimals) {
    const int line = line_;
    const int count = doc_.channel_count;
    // The hot loop of the reader (one pass per value of the file): cursor in a local, so it
    // lives in a register instead of being re-read through `this` after every store.
    const char* p = p_;
    const char* const end = end_;
    *first_value = static_cast<std::uint32_t>(p - begin_);  // the cursor is on the first value
    const int plain =
        !decimals || !plain_last_ ? 0
        : made_ ? read_plain_values<true>(p, plain_last_, values, decimals, made_, count)
                : read_plain_values<false>(p, plain_last_, values, decimals, nullptr, count);
    for (int c = plain; c < count; ++c) {
      while (p < end && is_blank(*p)) ++p;
      if (p == end || is_eol(*p)) {
        p_ = p;
        fail(line, "frame line has " + std::to_string(c) + " values; expected " +
                       std::to_string(count) + " (the CHANNELS of the hierarchy)");
      }
      const char* stop = nullptr;
      double v;
      int shown = 0;
      if (!read_plain_number(p, end, v, &stop, shown)) {
        const NumberStatus status = parse_number(p, end, v, &stop, &shown);
        if (status != NumberStatus::ok || (stop < end && !is_space(*stop))) {
          p_ = p;
          bad_value(line, status != NumberStatus::ok ? status : NumberStatus::invalid);
        }
      }
      values[c] = made_ && !made_[c] ? std::numeric_limits<double>::quiet_NaN() : v;
      if (decimals && shown > decimals[c]) decimals[c] = shown;
      p = stop;
    }
    p_ = p;
    skip_blank();
    if (!at_eol()) {
      int extra = 0;
      while (!at_eol()) {
        while (p_ < end_ && !is_space(*p_)) ++p_;
        ++extra;
        skip_blank();
      }
      fail(line, "frame line has " + std::to_string(count + extra) + " values; expected " +
                     std::to_string(count) + " (the CHANNELS of the hierarchy)");
    }
    consume_eol();
  }

  void read_frames() {
    if (read_frames_in_parallel()) return;
    const int channels = doc_.channel_count;
    const int declared = doc_.frame_count;
    // Never allocate for a "Frames:" the file cannot back.
    const std::size_t fit = frames_text_can_hold();
    const std::size_t capacity = std::min<std::size_t>(static_cast<std::size_t>(declared), fit);
    // Unwritten: each row is written below, or the parse fails and the Document is dropped (a
    // parse that succeeds read `declared` rows, so then capacity == declared).
    core::resize_unwritten(doc_.values, capacity * channels);
    core::resize_unwritten(doc_.frame_text, capacity);
    doc_.channel_decimals.assign(channels, 0);

    for (int f = 0; f < declared; ++f) {
      skip_blank_lines();
      if (p_ == end_)
        fail(line_, "file ends after " + std::to_string(f) + " frame lines; 'Frames:' on line " +
                        std::to_string(doc_.frames_line) + " says " + std::to_string(declared));
      if (static_cast<std::size_t>(f) >= capacity) fail(line_, "internal: frame capacity");
      if (f == 0) doc_.first_frame_line = line_;
      const std::size_t at = static_cast<std::size_t>(f) * channels;
      read_frame_line(doc_.values.data() + at, doc_.frame_text.data() + f,
                      doc_.channel_decimals.data());
    }

    skip_blank_lines();
    if (p_ == end_) return;
    if (!options_.allow_extra_frame_lines) surplus_lines(declared);
    std::vector<double> scratch_values(channels);
    std::uint32_t scratch_start = 0;
    while (p_ != end_) {
      read_frame_line(scratch_values.data(), &scratch_start, nullptr);
      ++doc_.extra_frame_lines;
      skip_blank_lines();
    }
  }

  // --- frames on several threads -------------------------------------------------------------
  //
  // The frame section is cut into blocks of whole lines (at line breaks found by scanning from
  // evenly spaced bytes). A quick serial pass counts each block's line breaks and non-blank
  // lines, which gives every block its first line number and first frame index; then the blocks
  // are parsed in parallel (io::for_each_block: more blocks than threads, taken in turn), each
  // straight into its rows of Document::values. Each line is read by the same read_frame_line
  // as the serial path, so values, spans, decimals and errors (text and line) are the same; the
  // lowest block's error is rethrown, which is the first in the file.

  struct FrameBlock {
    const char* begin = nullptr;
    const char* end = nullptr;
    int line_breaks = 0;  // line breaks in [begin, end)
    int frame_lines = 0;  // lines with something other than blanks
    long long lf = 0, crlf = 0, cr = 0;
    int first_line = 0;   // line number at `begin`
    int first_frame = 0;  // frame index of its first non-blank line
    int extra = 0;        // lines beyond the declared frame count
    std::vector<int> decimals;
  };

  // Below this many bytes per block a hand-over costs more than it saves.
  static constexpr std::size_t kMinBlockBytes = 64 * 1024;

  // Just past the first line break at or after `p` ("\r\n" is one), or `end`.
  static const char* after_line_break(const char* p, const char* end) {
    while (p < end && !is_eol(*p)) ++p;
    if (p == end) return end;
    if (*p == '\r' && p + 1 < end && p[1] == '\n') return p + 2;
    return p + 1;
  }

  // Line breaks (by kind) and non-blank lines of a block, with the serial parser's notion of a
  // line: it ends at "\r\n", "\n" or "\r".
  static void count_lines(FrameBlock& b) {
    const char* p = b.begin;
    const char* const end = b.end;
    while (p < end) {
      const char* q = p;
      while (q < end && is_blank(*q)) ++q;
      if (q < end && !is_eol(*q)) ++b.frame_lines;
      const auto* lf =
          static_cast<const char*>(std::memchr(q, '\n', static_cast<std::size_t>(end - q)));
      const char* line_end = lf ? lf : end;
      const auto* cr =
          static_cast<const char*>(std::memchr(q, '\r', static_cast<std::size_t>(line_end - q)));
      if (cr && cr + 1 == lf) {
        ++b.crlf;
        p = lf + 1;
      } else if (cr) {
        ++b.cr;
        p = cr + 1;
      } else if (lf) {
        ++b.lf;
        p = lf + 1;
      } else {
        break;  // the last line, without a line break
      }
      ++b.line_breaks;
    }
  }

  // Parses the lines of this block parser (see the block constructor); the first non-blank one
  // is frame `frame`. Raises `decimals` as read_frame_line does, counts surplus lines in `extra`.
  void read_frame_block(int frame, int* decimals, int& extra) {
    const int channels = doc_.channel_count;
    const int declared = doc_.frame_count;
    std::vector<double> scratch_values;
    std::uint32_t scratch_start = 0;
    for (;; ++frame) {
      skip_blank_lines();
      if (p_ == end_) return;
      if (frame < declared) {
        if (frame == 0) doc_.first_frame_line = line_;
        const std::size_t at = static_cast<std::size_t>(frame) * channels;
        read_frame_line(doc_.values.data() + at, doc_.frame_text.data() + frame, decimals);
        continue;
      }
      if (!options_.allow_extra_frame_lines) surplus_lines(declared);
      scratch_values.resize(channels);
      read_frame_line(scratch_values.data(), &scratch_start, nullptr);
      ++extra;
    }
  }

  [[noreturn]] void surplus_lines(int declared) {
    fail(line_, "more frame lines than 'Frames: " + std::to_string(declared) + "' on line " +
                    std::to_string(doc_.frames_line) + " declares (surplus starts here)");
  }

  // read_frames on the runner's threads; false (nothing done) when the section is too small.
  bool read_frames_in_parallel() {
    const core::ParallelRunner* runner = options_.runner;
    const std::size_t bytes = static_cast<std::size_t>(end_ - p_);
    const std::size_t count = static_cast<std::size_t>(io::block_count(
        runner, static_cast<long long>(bytes), static_cast<long long>(kMinBlockBytes)));
    if (count < 2) return false;
    std::vector<FrameBlock> blocks;
    const char* begin = p_;
    for (std::size_t k = 1; k <= count && begin < end_; ++k) {
      const char* end =
          k == count ? end_ : after_line_break(std::max(begin, p_ + bytes * k / count), end_);
      FrameBlock& block = blocks.emplace_back();
      block.begin = begin;
      block.end = end;
      begin = end;
    }
    // Counting is a memchr scan (~0.1 ms for 2 MB): cheaper on this thread than one more
    // hand-over to the pool, which on a busy machine can wait for a core.
    for (FrameBlock& b : blocks) count_lines(b);
    const int n = static_cast<int>(blocks.size());

    int line = line_, frame_lines = 0;
    for (FrameBlock& b : blocks) {
      b.first_line = line;
      b.first_frame = frame_lines;
      line += b.line_breaks;
      frame_lines += b.frame_lines;
      lf_ += b.lf;
      crlf_ += b.crlf;
      cr_ += b.cr;
    }
    const int channels = doc_.channel_count;
    const int declared = doc_.frame_count;
    const std::size_t rows = static_cast<std::size_t>(std::min(declared, frame_lines));
    // Unwritten: every row is written by the block holding its line, or a block fails (and the
    // Document is dropped); the rows are split between the threads instead of zeroed first on
    // this one.
    core::resize_unwritten(doc_.values, rows * channels);
    core::resize_unwritten(doc_.frame_text, rows);
    for (FrameBlock& b : blocks) b.decimals.assign(channels, 0);

    io::for_each_block(runner, n, [&](int k) {
      FrameBlock& b = blocks[k];
      Parser block(doc_, options_, b.begin, b.end, b.first_line);
      block.read_frame_block(b.first_frame, b.decimals.data(), b.extra);
    });

    p_ = end_;
    line_ = line;
    if (frame_lines < declared)
      fail(line_, "file ends after " + std::to_string(frame_lines) +
                      " frame lines; 'Frames:' on line " + std::to_string(doc_.frames_line) +
                      " says " + std::to_string(declared));
    doc_.channel_decimals.assign(channels, 0);
    for (const FrameBlock& b : blocks) {
      for (int c = 0; c < channels; ++c)
        doc_.channel_decimals[c] = std::max(doc_.channel_decimals[c], b.decimals[c]);
      doc_.extra_frame_lines += b.extra;
    }
    return true;
  }

  void set_line_endings() {
    const int kinds = (lf_ > 0) + (crlf_ > 0) + (cr_ > 0);
    if (kinds == 0)
      doc_.line_endings = LineEndings::none;
    else if (kinds > 1)
      doc_.line_endings = LineEndings::mixed;
    else if (lf_ > 0)
      doc_.line_endings = LineEndings::lf;
    else if (crlf_ > 0)
      doc_.line_endings = LineEndings::crlf;
    else
      doc_.line_endings = LineEndings::cr;
  }

  // ParseOptions::channels_to_read: which channels' numbers read_frame_line makes (made_).
  void choose_channels() {
    if (!options_.channels_to_read) return;
    std::vector<char> made = options_.channels_to_read(doc_);
    if (made.empty()) return;
    if (made.size() != static_cast<std::size_t>(doc_.channel_count))
      throw std::invalid_argument(
          "bvh::ParseOptions::channels_to_read: " + std::to_string(made.size()) + " flags for " +
          std::to_string(doc_.channel_count) + " channels");
    for (const Joint& joint : doc_.joints)
      for (std::size_t n = 0; n < joint.channels.size(); ++n)
        if (is_position(joint.channels[n])) made[joint.first_value + n] = 1;
    if (std::find(made.begin(), made.end(), 0) == made.end()) return;
    doc_.channels_read = std::move(made);
    made_ = doc_.channels_read.data();
  }

  Document& doc_;
  const ParseOptions& options_;
  const char* begin_;
  const char* p_;
  const char* end_;
  // Where read_plain_values may read a number at the latest (null: nowhere), in doc.text (end_
  // is a block's end in a block parser).
  const char* plain_last_;
  // Per channel, whether its numbers are made (Document::channels_read); null: every channel's.
  const char* made_ = nullptr;
  int line_ = 1;
  int motion_line_ = 0;
  long long lf_ = 0, crlf_ = 0, cr_ = 0;
  std::vector<OpenBlock> stack_;
};

}  // namespace

namespace {

// Parses `text`, whose bytes `owner` holds (and keeps for the Document).
Document parse_shared(std::string_view text, std::shared_ptr<const void> owner,
                      const std::string& source_name, const ParseOptions& options) {
  Document doc;
  doc.source_name = source_name;
  doc.text = text;
  doc.text_owner = std::move(owner);
  Parser(doc, options).run();
  return doc;
}

}  // namespace

Document parse_owned(std::string text, const std::string& source_name,
                     const ParseOptions& options) {
  auto owner = std::make_shared<const std::string>(std::move(text));
  const std::string_view view = *owner;
  return parse_shared(view, std::move(owner), source_name, options);
}

Document parse(std::string_view text, const std::string& source_name, const ParseOptions& options) {
  return parse_owned(std::string(text), source_name, options);
}

Document read_file(const std::filesystem::path& path, const ParseOptions& options) {
  // Mapped, not copied: the page cache's pages mapped in one call cost a fraction of filling a
  // fresh buffer of the file's size (the copy and the first touch of every new page). The
  // parser reads the byte at the text's end, which must be '\0': a mapping has it only inside
  // its last page (the kernel zero-fills the page past the file's end), so an empty file or one
  // of a whole number of pages is parsed from a copy (a std::string ends in '\0').
  auto file = std::make_shared<const io::MappedFile>(path);
  const std::string_view text = file->text();
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  if (text.empty() || text.size() % page == 0)
    return parse_owned(std::string(text), path.string(), options);
  file->map_now(0, text.size());
  return parse_shared(text, std::move(file), path.string(), options);
}

namespace {

constexpr std::uint64_t kByteTops = 0x8080808080808080ULL;

// The top bit of each byte of `word` that is above ' ' (0x21..0x7f, or 0x80 and above): a
// value's character, where a frame line's blanks and line ends are at or below it. The low seven
// bits plus 0x5f (0x21 + 0x5f = 0x80) never carry into the next byte.
inline std::uint64_t above_blank_tops(std::uint64_t word) {
  return (((word & 0x7f7f7f7f7f7f7f7fULL) + 0x5f5f5f5f5f5f5f5fULL) | word) & kByteTops;
}

}  // namespace

void Document::frame_spans(int frame, std::span<TextSpan> out) const {
  // As read_frame_line found them: each value is a run of characters above ' ' (the reader
  // accepts only numbers there, each followed by a blank, a line break or the end), separated
  // by blanks: the same spans as value_span's one-by-one scan. A value's end is looked for
  // eight bytes at a time.
  static_assert(std::endian::native == std::endian::little, "bytes are numbered from the low end");
  const char* const first = text.data();
  const char* const end = first + text.size();
  const char* p = first + frame_text[static_cast<std::size_t>(frame)];
  for (TextSpan& span : out) {
    while (p < end && static_cast<unsigned char>(*p) <= ' ') ++p;
    const char* value_end = p;
    for (;;) {
      if (end - value_end < 8) {
        while (value_end<end&& static_cast<unsigned char>(*value_end)> ' ') ++value_end;
        break;
      }
      std::uint64_t word;
      std::memcpy(&word, value_end, sizeof word);
      const std::uint64_t at_or_below = ~above_blank_tops(word) & kByteTops;
      if (at_or_below != 0) {
        value_end += std::countr_zero(at_or_below) / 8;
        break;
      }
      value_end += 8;
    }
    span =
        TextSpan{static_cast<std::uint32_t>(p - first), static_cast<std::uint32_t>(value_end - p)};
    p = value_end;
  }
}

TextSpan Document::value_span(int frame, int channel) const {
  const char* const first = text.data();
  const char* const end = first + text.size();
  const char* p = first + frame_text[static_cast<std::size_t>(frame)];
  const char* value_end = p;
  for (int c = 0; c <= channel; ++c) {
    p = value_end;
    while (p < end && is_blank(*p)) ++p;
    value_end = p;
    while (value_end < end && !is_space(*value_end)) ++value_end;
  }
  return TextSpan{static_cast<std::uint32_t>(p - first), static_cast<std::uint32_t>(value_end - p)};
}

double read_value_text(std::string_view text) {
  const char* first = text.data();
  const char* last = first + text.size();
  double value = 0.0;
  const char* stop = nullptr;
  int shown = 0;
  // As read_frame_line: the plain path where it decides, parse_number otherwise. Neither looks
  // past `last`: the plain path stops at the first byte that is no digit or point, which for a
  // span of the text is its end (a blank, a line break or the text's final '\0').
  if (!read_plain_number(first, last, value, &stop, shown)) parse_number(first, last, value, &stop);
  return value;
}

core::Skeleton skeleton(const Document& doc) {
  core::Skeleton s;
  const std::size_t n = doc.joints.size();
  s.names.reserve(n);
  s.parents.reserve(n);
  s.rest.reserve(n);
  s.end_sites.reserve(n);
  for (const Joint& joint : doc.joints) {
    s.names.push_back(joint.name);
    s.parents.push_back(joint.parent);
    core::Transform rest;
    rest.translation = joint.offset;
    s.rest.push_back(rest);
    s.end_sites.push_back(joint.end_site);
  }
  return s;
}

namespace {

// q * (rotation of `degrees` about `axis`), written out for the one non-zero vector component;
// the same arithmetic, in the same order, as the general product with the zero terms dropped.
inline void rotate_by_channel(core::Quat& q, ChannelKind kind, double degrees) {
  const double half = degrees * (core::kPi / 360.0);
  const double s = std::sin(half), c = std::cos(half);
  const double w = q.w, x = q.x, y = q.y, z = q.z;
  switch (kind) {
    case ChannelKind::Xrotation:
      q = core::Quat(w * c - x * s, w * s + x * c, y * c + z * s, z * c - y * s);
      break;
    case ChannelKind::Yrotation:
      q = core::Quat(w * c - y * s, x * c - z * s, w * s + y * c, z * c + x * s);
      break;
    default:  // Zrotation
      q = core::Quat(w * c - z * s, x * c + y * s, y * c - x * s, w * s + z * c);
      break;
  }
}

}  // namespace

namespace {

// What convert does for one joint read, made once for every frame.
struct JointConversion {
  int joint = 0;
  int first_value = 0;
  int count = 0;
  ChannelKind kinds[6] = {};
  // The translation before the channels are added: the OFFSET, with the axes that have a
  // position channel zeroed when the channels hold the whole translation.
  core::Vec3 base{0.0};
  bool rotation_read = true;  // false: kJointTranslationOnly
};

std::vector<JointConversion> joint_conversions(const Document& doc, const char* read) {
  const bool channels_only = doc.positions == PositionConvention::channels_only;
  std::vector<JointConversion> plans;
  for (int j = 0; j < doc.joint_count(); ++j) {
    if (read && read[j] == kJointUnread) continue;
    const Joint& joint = doc.joints[j];
    JointConversion& plan = plans.emplace_back();
    plan.joint = j;
    plan.rotation_read = !read || read[j] == kJointRead;
    plan.first_value = joint.first_value;
    plan.count = static_cast<int>(joint.channels.size());
    plan.base = joint.offset;
    for (int n = 0; n < plan.count; ++n) {
      plan.kinds[n] = joint.channels[n];
      if (channels_only && is_position(plan.kinds[n])) plan.base[axis_of(plan.kinds[n])] = 0.0;
    }
  }
  return plans;
}

// One joint's transform from its values in a frame's row.
inline void convert_joint(const JointConversion& plan, const double* row, core::Transform& t) {
  t = core::Transform{};
  t.translation = plan.base;
  const double* v = row + plan.first_value;
  for (int n = 0; n < plan.count; ++n) {
    const ChannelKind kind = plan.kinds[n];
    switch (kind) {
      case ChannelKind::Xposition:
        t.translation.x += v[n];
        break;
      case ChannelKind::Yposition:
        t.translation.y += v[n];
        break;
      case ChannelKind::Zposition:
        t.translation.z += v[n];
        break;
      default:
        // A zero angle is the identity (skipping it changes at most the sign of a zero).
        if (v[n] != 0.0) rotate_by_channel(t.rotation, kind, v[n]);
        break;
    }
  }
}

// What convert does for one kJointTranslationOnly joint: its transform without the position
// channels (the base translation, a NaN rotation, unit scale), then each position channel's
// value added to its axis, in the channels' order as convert_joint adds them.
struct TranslationConversion {
  int joint = 0;
  core::Transform start;
  int count = 0;  // position channels
  int value[6] = {};
  int axis[6] = {};
};

TranslationConversion translation_conversion(const JointConversion& plan) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  TranslationConversion out;
  out.joint = plan.joint;
  out.start.translation = plan.base;
  out.start.rotation = core::Quat(nan, nan, nan, nan);
  for (int n = 0; n < plan.count; ++n)
    if (is_position(plan.kinds[n])) {
      out.value[out.count] = plan.first_value + n;
      out.axis[out.count++] = axis_of(plan.kinds[n]);
    }
  return out;
}

inline void convert_translation(const TranslationConversion& plan, const double* row,
                                core::Transform& t) {
  t = plan.start;
  for (int n = 0; n < plan.count; ++n) t.translation[plan.axis[n]] += row[plan.value[n]];
}

// Per frame and joint as documented for clip(); when `read` is given, joints flagged
// kJointUnread get unread_transform() and kJointTranslationOnly ones convert_translation().
core::Clip convert(const Document& doc, const char* read, const core::ParallelRunner* runner) {
  core::Clip c;
  c.fps = 1.0 / doc.frame_time;
  c.frame_count = doc.frame_count;
  c.joint_count = doc.joint_count();
  // Unwritten: the loop below writes every transform of every frame, each frame on one thread
  // (a resize would first fill all of them on this one).
  core::resize_unwritten(c.locals, static_cast<std::size_t>(c.frame_count) * c.joint_count);
  const int channels = doc.channel_count;
  std::vector<JointConversion> plans = joint_conversions(doc, read);
  std::vector<TranslationConversion> translation_plans;  // kJointTranslationOnly
  for (const JointConversion& plan : plans)
    if (!plan.rotation_read) translation_plans.push_back(translation_conversion(plan));
  std::erase_if(plans, [](const JointConversion& plan) { return !plan.rotation_read; });
  std::vector<int> unread_joints;
  for (int j = 0; j < c.joint_count; ++j)
    if (read && read[j] == kJointUnread) unread_joints.push_back(j);
  const core::Transform unread = unread_transform();
  // Each frame reads its own row of values and writes its own row of locals.
  constexpr int kMinFramesPerBlock = 64;
  const int blocks = io::block_count(runner, c.frame_count, kMinFramesPerBlock);
  io::for_each_block(runner, blocks, [&](int block) {
    const int first = static_cast<int>(static_cast<long long>(c.frame_count) * block / blocks);
    const int last = static_cast<int>(static_cast<long long>(c.frame_count) * (block + 1) / blocks);
    for (int f = first; f < last; ++f) {
      const double* row = doc.values.data() + static_cast<std::size_t>(f) * channels;
      core::Transform* out = c.locals.data() + static_cast<std::size_t>(f) * c.joint_count;
      for (int j : unread_joints) out[j] = unread;
      for (const JointConversion& plan : plans) convert_joint(plan, row, out[plan.joint]);
      for (const TranslationConversion& plan : translation_plans)
        convert_translation(plan, row, out[plan.joint]);
    }
  });
  return c;
}

}  // namespace

PositionConvention detect_position_convention(const Document& doc) {
  bool any = false;
  for (const Joint& joint : doc.joints) {
    int slot[3] = {-1, -1, -1};
    for (std::size_t n = 0; n < joint.channels.size(); ++n)
      if (is_position(joint.channels[n]))
        slot[axis_of(joint.channels[n])] = joint.first_value + static_cast<int>(n);
    if (joint.parent < 0 || slot[0] < 0 || slot[1] < 0 || slot[2] < 0) continue;
    if (glm::length(joint.offset) == 0.0 || doc.frame_count == 0) continue;
    double from_offset = 0, from_zero = 0;
    for (int f = 0; f < doc.frame_count; ++f) {
      const core::Vec3 v(doc.value(f, slot[0]), doc.value(f, slot[1]), doc.value(f, slot[2]));
      from_offset += glm::length(v - joint.offset);
      from_zero += glm::length(v);
    }
    if (!(from_offset < from_zero)) return PositionConvention::offset_plus_channels;
    any = true;
  }
  return any ? PositionConvention::channels_only : PositionConvention::offset_plus_channels;
}

core::Transform unread_transform() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  core::Transform t;
  t.translation = core::Vec3(nan);
  t.rotation = core::Quat(nan, nan, nan, nan);
  t.scale = core::Vec3(nan);
  return t;
}

core::Clip clip(const Document& doc, const core::ParallelRunner* runner) {
  return convert(doc, nullptr, runner);
}

core::Clip clip_of_joints(const Document& doc, std::span<const char> read,
                          const core::ParallelRunner* runner) {
  if (read.size() != static_cast<std::size_t>(doc.joint_count()))
    throw std::invalid_argument("bvh::clip_of_joints: " + std::to_string(read.size()) +
                                " joint flags for " + std::to_string(doc.joint_count()) +
                                " joints");
  return convert(doc, read.data(), runner);
}

}  // namespace ikfix::io::bvh
