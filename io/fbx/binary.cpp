// Binary FBX 7.x: parsing into the node tree and writing it back.
//
// Layout (little-endian): a 27-byte header ("Kaydara FBX Binary  \0", 0x1A, 0x00, uint32
// version), then node records until a null record, then a footer. A record is EndOffset
// (absolute file offset just past the record), NumProperties, PropertyListLen (each uint32
// before 7500, uint64 from 7500 on), NameLen (uint8), the name, the properties, the nested
// records, and - when there are nested records, or by the writer's habit - a null record of
// 13 (25) zero bytes. A property is a type code and its payload: Y int16, C bool byte, I int32,
// F float32, D float64, L int64, S/R uint32 length + bytes, f d l i b arrays: uint32 count,
// uint32 encoding (0 raw, 1 zlib), uint32 stored byte length, stored bytes.
#include "io/fbx/binary.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <stdexcept>
#include <unordered_map>

#include "io/error.hpp"

namespace ikfix::io::fbx::detail {
namespace {

constexpr char kMagic[] = "Kaydara FBX Binary  ";  // 20 characters + the terminating NUL
constexpr std::size_t kHeaderSize = 27;
constexpr int kMaxDepth = 128;

template <typename T>
T load_le(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void store_le(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

template <typename T>
void patch_le(std::string& out, std::size_t at, T v) {
  std::memcpy(out.data() + at, &v, sizeof(T));
}

// What the parser builds of a node (ParseDepth::scene builds only what read_scene reads).
enum class Build : std::uint8_t {
  all,           // the node and everything below it
  scene_top,     // a top-level node of a scene-only parse
  scene_object,  // a child of Objects in a scene-only parse
  check,         // nothing: the record is only checked (a deferred node's descendants)
};

// Build mode of the children of a node built in `mode`.
Build child_build(Build mode, std::string_view name) {
  switch (mode) {
    case Build::all:
      return Build::all;
    case Build::check:
      return Build::check;
    case Build::scene_top:
      if (name == "Objects") return Build::scene_object;
      if (name == "GlobalSettings" || name == "Definitions" || name == "Connections")
        return Build::all;
      return Build::check;
    case Build::scene_object:
      if (name == "Model" || name == "AnimationStack" || name == "AnimationLayer" ||
          name == "AnimationCurveNode" || name == "Deformer")
        return Build::all;
      return Build::check;
  }
  return Build::all;
}

class BinaryParser {
 public:
  explicit BinaryParser(Document& doc, std::span<const std::uint32_t> models = {})
      : doc_(doc),
        data_(doc.data.data()),
        size_(doc.data.size()),
        wide_(doc.wide_offsets()),
        word_(wide_ ? 8 : 4),
        null_size_(3 * word_ + 1),
        models_(models) {}

  void run(bool scene_only) {
    Node& root = doc_.root;
    root.begin = kHeaderSize;
    std::uint64_t pos = kHeaderSize;
    for (;;) {
      if (pos + null_size_ > size_) fail(pos, "file is truncated (no end-of-nodes record)");
      if (read_word(pos) == 0) {
        root.tail = pos;
        root.end = size_;
        check_footer(pos + null_size_);
        return;
      }
      root.children.push_back(parse_node(pos, size_, 0, scene_only ? Build::scene_top : Build::all,
                                         root.children.size()));
      pos = root.children.back().end;
    }
  }

  // Builds the children of a node run() deferred (its records were checked then).
  void expand(Node& node) {
    Node whole = parse_node(node.begin, node.end, 0, Build::all, 0);
    node.children = std::move(whole.children);
    node.deferred = false;
  }

 private:
  [[noreturn]] void fail(std::uint64_t at, const std::string& cause) const {
    throw InputError(doc_.source_name, cause + " (at byte " + std::to_string(at) + ")");
  }

  // Some writers end the file right after the null record; when a footer is there it must be
  // whole (it ends with a fixed 16-byte magic), or the file was cut short.
  void check_footer(std::uint64_t at) const {
    static constexpr unsigned char kFooterMagic[16] = {0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5,
                                                       0xd9, 0x7e, 0xec, 0xe9, 0x0c, 0xe3,
                                                       0x75, 0x8f, 0x29, 0x0b};
    if (at == size_) return;
    if (size_ - at < 16 || std::memcmp(data_ + size_ - 16, kFooterMagic, 16) != 0)
      fail(at, "file is truncated or damaged: the footer after the last node is incomplete");
  }

  std::uint64_t read_word(std::uint64_t at) const {
    return wide_ ? load_le<std::uint64_t>(data_ + at) : load_le<std::uint32_t>(data_ + at);
  }

  // A record's header, checked against the file and its parent.
  struct Record {
    std::uint64_t begin, end, prop_count, props_at, props_end;
    std::string_view name;
  };
  Record read_record(std::uint64_t pos, std::uint64_t limit, int depth) const {
    if (depth > kMaxDepth) fail(pos, "nodes nested deeper than " + std::to_string(kMaxDepth));
    if (pos + null_size_ > limit)
      fail(pos, limit == size_ ? "file is truncated" : "node record overruns its parent");
    Record r;
    r.begin = pos;
    r.end = read_word(pos);
    r.prop_count = read_word(pos + word_);
    const std::uint64_t prop_bytes = read_word(pos + 2 * word_);
    const std::uint8_t name_len = static_cast<std::uint8_t>(data_[pos + 3 * word_]);
    if (r.end > size_)
      fail(pos, "file is truncated: node record ends at byte " + std::to_string(r.end) + " of " +
                    std::to_string(size_));
    if (r.end <= pos || r.end > limit)
      fail(pos, "node record end offset " + std::to_string(r.end) + " is out of range");
    const std::uint64_t name_at = pos + null_size_;
    r.props_at = name_at + name_len;
    if (r.props_at > r.end || prop_bytes > r.end - r.props_at)
      fail(pos, "node header overruns its record");
    r.name = std::string_view(data_ + name_at, name_len);
    r.props_end = r.props_at + prop_bytes;
    if (r.prop_count > prop_bytes)
      fail(pos, "node '" + std::string(r.name) + "' claims " + std::to_string(r.prop_count) +
                    " properties in " + std::to_string(prop_bytes) + " bytes");
    return r;
  }

  // Offset where the children of record `r` end (its null record, or its end).
  template <typename OnChild>
  std::uint64_t for_each_child(const Record& r, std::uint64_t from, OnChild&& on_child) {
    std::uint64_t cur = from;
    while (cur < r.end) {
      if (r.end - cur >= null_size_ && read_word(cur) == 0) return cur;
      cur = on_child(cur);
    }
    return r.end;
  }

  // The record at `pos` (child `index` of its parent) as a Node; in a deferring mode its
  // children are only checked.
  Node parse_node(std::uint64_t pos, std::uint64_t limit, int depth, Build mode,
                  std::size_t index) {
    const Record r = read_record(pos, limit, depth);
    Node node;
    node.begin = r.begin;
    node.end = r.end;
    node.name.assign(r.name);
    node.props.reserve(static_cast<std::size_t>(r.prop_count));
    std::uint64_t q = r.props_at;
    for (std::uint64_t k = 0; k < r.prop_count; ++k)
      node.props.push_back(parse_property(q, r.props_end, r.name));
    if (q != r.props_end)
      fail(q, "property list of node '" + node.name + "' does not match its declared length");
    Build children = child_build(mode, r.name);
    if (mode == Build::scene_object && r.name == "Model" && !models_.empty() &&
        !std::binary_search(models_.begin(), models_.end(), static_cast<std::uint32_t>(index)))
      children = Build::check;
    node.deferred = children == Build::check;
    // The null record (and anything up to the end offset) is kept verbatim.
    node.tail = for_each_child(r, r.props_end, [&](std::uint64_t at) {
      if (node.deferred) return check_node(at, node.end, depth + 1);
      node.children.push_back(parse_node(at, node.end, depth + 1, children, node.children.size()));
      return node.children.back().end;
    });
    return node;
  }

  // Checks the record at `pos` and everything below it as parse_node would, building nothing;
  // returns its end.
  std::uint64_t check_node(std::uint64_t pos, std::uint64_t limit, int depth) {
    const Record r = read_record(pos, limit, depth);
    std::uint64_t q = r.props_at;
    for (std::uint64_t k = 0; k < r.prop_count; ++k) parse_property(q, r.props_end, r.name);
    if (q != r.props_end)
      fail(q, "property list of node '" + std::string(r.name) +
                  "' does not match its declared length");
    for_each_child(r, r.props_end,
                   [&](std::uint64_t at) { return check_node(at, r.end, depth + 1); });
    return r.end;
  }

  Property parse_property(std::uint64_t& q, std::uint64_t limit, std::string_view name) const {
    if (q >= limit) fail(q, "property list of node '" + std::string(name) + "' is cut short");
    Property p;
    p.type = data_[q];
    p.offset = q + 1;
    std::uint64_t size = 0;
    switch (p.type) {
      case 'C':
        size = 1;
        break;
      case 'Y':
        size = 2;
        break;
      case 'I':
      case 'F':
        size = 4;
        break;
      case 'D':
      case 'L':
        size = 8;
        break;
      case 'S':
      case 'R':
        if (p.offset + 4 > limit)
          fail(q, "property of node '" + std::string(name) + "' is cut short");
        size = 4 + static_cast<std::uint64_t>(load_le<std::uint32_t>(data_ + p.offset));
        break;
      case 'f':
      case 'd':
      case 'l':
      case 'i':
      case 'b': {
        if (p.offset + 12 > limit)
          fail(q, "array property of node '" + std::string(name) + "' is cut short");
        const std::uint32_t count = load_le<std::uint32_t>(data_ + p.offset);
        const std::uint32_t encoding = load_le<std::uint32_t>(data_ + p.offset + 4);
        const std::uint32_t stored = load_le<std::uint32_t>(data_ + p.offset + 8);
        const std::uint64_t elem = (p.type == 'd' || p.type == 'l') ? 8 : (p.type == 'b' ? 1 : 4);
        if (encoding > 1)
          fail(q, "array property of node '" + std::string(name) + "' has unknown encoding " +
                      std::to_string(encoding));
        if (encoding == 0 && stored != count * elem)
          fail(q,
               "raw array property of node '" + std::string(name) + "' has the wrong byte length");
        size = 12 + static_cast<std::uint64_t>(stored);
        break;
      }
      default: {
        const unsigned char c = static_cast<unsigned char>(p.type);
        fail(q,
             "unknown property type " +
                 (c >= 32 && c < 127 ? std::string("'") + p.type + "'" : "0x" + std::to_string(c)) +
                 " in node '" + std::string(name) + "'");
      }
    }
    if (size > limit - p.offset)
      fail(q, "property of node '" + std::string(name) + "' overruns its record");
    p.size = size;
    q = p.offset + size;
    return p;
  }

  Document& doc_;
  const char* data_;
  std::uint64_t size_;
  bool wide_;
  std::uint64_t word_;
  std::uint64_t null_size_;
  std::span<const std::uint32_t> models_;  // scene-only parse: the Models to build (all when empty)
};

// Appends the raw little-endian bytes of an array Value to `out`; returns its element count.
std::uint32_t append_array_bytes(std::string& out, const Value& v) {
  std::uint32_t count = 0;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::vector<bool>>) {
          count = static_cast<std::uint32_t>(x.size());
          for (bool b : x) out.push_back(b ? 1 : 0);
        } else if constexpr (std::is_same_v<T, std::vector<float>> ||
                             std::is_same_v<T, std::vector<double>> ||
                             std::is_same_v<T, std::vector<std::int64_t>> ||
                             std::is_same_v<T, std::vector<std::int32_t>>) {
          count = static_cast<std::uint32_t>(x.size());
          out.append(reinterpret_cast<const char*>(x.data()),
                     x.size() * sizeof(typename T::value_type));
        }
      },
      v);
  return count;
}

// Element count and raw byte size of an array Value.
std::size_t array_byte_size(const Value& v, std::uint32_t& count) {
  std::size_t bytes = 0;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::vector<bool>>) {
          count = static_cast<std::uint32_t>(x.size());
          bytes = x.size();
        } else if constexpr (std::is_same_v<T, std::vector<float>> ||
                             std::is_same_v<T, std::vector<double>> ||
                             std::is_same_v<T, std::vector<std::int64_t>> ||
                             std::is_same_v<T, std::vector<std::int32_t>>) {
          count = static_cast<std::uint32_t>(x.size());
          bytes = x.size() * sizeof(typename T::value_type);
        }
      },
      v);
  return bytes;
}

class BinaryWriter {
 public:
  explicit BinaryWriter(const Document& doc)
      : doc_(doc), wide_(doc.wide_offsets()), word_(wide_ ? 8 : 4), null_size_(3 * word_ + 1) {}

  std::string run() {
    out_.reserve(doc_.data.size() + doc_.data.size() / 8);
    out_.append(doc_.data, 0, kHeaderSize);
    for (const Node& n : doc_.root.children) write_node(n);
    write_tail();
    return std::move(out_);
  }

 private:
  void put_word(std::uint64_t v) {
    if (wide_)
      store_le<std::uint64_t>(out_, v);
    else
      store_le<std::uint32_t>(out_, static_cast<std::uint32_t>(v));
  }
  void patch_word(std::size_t at, std::uint64_t v) {
    if (wide_)
      patch_le<std::uint64_t>(out_, at, v);
    else
      patch_le<std::uint32_t>(out_, at, static_cast<std::uint32_t>(v));
  }

  void write_node(const Node& n) {
    // An unchanged node - or one standing for its bytes (deferred) - is its source record,
    // copied whole; only the end offsets inside move with it.
    if (n.begin != kNoSource && !is_changed(n)) {
      copy_record(n.begin, n.end);
      return;
    }
    if (n.deferred)
      throw std::logic_error("fbx::write: node '" + n.name +
                             "' was changed but its children were never built");
    if (n.name.size() > 255)
      throw InputError(doc_.source_name,
                       "node name longer than 255 bytes: " + n.name.substr(0, 40));
    const std::size_t start = out_.size();
    put_word(0);
    put_word(n.props.size());
    put_word(0);
    out_.push_back(static_cast<char>(n.name.size()));
    out_.append(n.name);
    const std::size_t props_start = out_.size();
    for (const Property& p : n.props) write_property(p);
    const std::size_t props_end = out_.size();
    for (const Node& c : n.children) write_node(c);
    if (n.begin != kNoSource) {
      out_.append(doc_.data, n.tail, n.end - n.tail);
    } else if (!n.children.empty() || n.props.empty()) {
      out_.append(null_size_, '\0');
    }
    const std::uint64_t end = out_.size();
    if (!wide_ && end > 0xffffffffu)
      throw InputError(doc_.source_name, "the file would exceed 4 GiB, too large for FBX " +
                                             std::to_string(doc_.version));
    patch_word(start, end);
    patch_word(start + 2 * word_, props_end - props_start);
  }

  std::uint64_t source_word(std::uint64_t at) const {
    const char* p = doc_.data.data() + at;
    return wide_ ? load_le<std::uint64_t>(p) : load_le<std::uint32_t>(p);
  }

  // Appends source record [begin, end) (checked when it was parsed) with its end offset and
  // those of the records nested in it rewritten for where it lands.
  void copy_record(std::uint64_t begin, std::uint64_t end) {
    const std::uint64_t start = out_.size();
    if (!wide_ && start + (end - begin) > 0xffffffffu)
      throw InputError(doc_.source_name, "the file would exceed 4 GiB, too large for FBX " +
                                             std::to_string(doc_.version));
    out_.append(doc_.data, begin, end - begin);
    if (start != begin) move_end_offsets(begin, end, start);
  }
  void move_end_offsets(std::uint64_t begin, std::uint64_t end, std::uint64_t to) {
    patch_word(to, to + (end - begin));
    const std::uint64_t prop_bytes = source_word(begin + 2 * word_);
    const std::uint8_t name_len = static_cast<std::uint8_t>(doc_.data[begin + 3 * word_]);
    std::uint64_t cur = begin + null_size_ + name_len + prop_bytes;
    while (cur < end && !(end - cur >= null_size_ && source_word(cur) == 0)) {
      const std::uint64_t child_end = source_word(cur);
      move_end_offsets(cur, child_end, to + (cur - begin));
      cur = child_end;
    }
  }

  void write_property(const Property& p) {
    if (!p.value) {
      out_.push_back(p.type);
      out_.append(doc_.data, p.offset, p.size);
      return;
    }
    const Value& v = *p.value;
    const char type = type_code(v);
    out_.push_back(type);
    switch (type) {
      case 'C':
        out_.push_back(std::get<bool>(v) ? 1 : 0);
        return;
      case 'Y':
        store_le(out_, std::get<std::int16_t>(v));
        return;
      case 'I':
        store_le(out_, std::get<std::int32_t>(v));
        return;
      case 'F':
        store_le(out_, std::get<float>(v));
        return;
      case 'D':
        store_le(out_, std::get<double>(v));
        return;
      case 'L':
        store_le(out_, std::get<std::int64_t>(v));
        return;
      case 'S': {
        const std::string& s = std::get<std::string>(v);
        store_le(out_, static_cast<std::uint32_t>(s.size()));
        out_.append(s);
        return;
      }
      case 'R': {
        const std::string& s = std::get<Raw>(v).bytes;
        store_le(out_, static_cast<std::uint32_t>(s.size()));
        out_.append(s);
        return;
      }
      default:
        break;
    }
    std::uint32_t count = 0;
    const std::size_t raw_size = array_byte_size(v, count);
    // Integer arrays (key times, flags) shrink several-fold under zlib; float key values barely
    // do (~0.9), so they are stored raw. A replaced integer array keeps its stored encoding.
    const bool integral = type == 'l' || type == 'i' || type == 'b';
    bool compress = integral && raw_size >= 128;
    if (integral && p.offset != kNoSource && p.offset + 12 <= doc_.data.size())
      compress = load_le<std::uint32_t>(doc_.data.data() + p.offset + 4) == 1;
    store_le(out_, count);
    if (!compress) {
      store_le(out_, std::uint32_t{0});
      store_le(out_, static_cast<std::uint32_t>(raw_size));
      append_array_bytes(out_, v);
      return;
    }
    // Edited curves share one KeyTime value (fbx::set_value with a shared value): compress it once.
    std::string& packed = compressed_[&v];
    if (packed.empty()) {
      std::string raw;
      raw.reserve(raw_size);
      append_array_bytes(raw, v);
      uLongf packed_len = compressBound(static_cast<uLong>(raw.size()));
      packed.resize(packed_len);
      if (compress2(reinterpret_cast<Bytef*>(packed.data()), &packed_len,
                    reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()),
                    Z_BEST_SPEED) != Z_OK)
        throw InputError(doc_.source_name, "zlib failed to compress an array");
      packed.resize(packed_len);
    }
    store_le(out_, std::uint32_t{1});
    store_le(out_, static_cast<std::uint32_t>(packed.size()));
    out_.append(packed);
  }

  // The top-level null record and the footer. The footer is: 16 id bytes, zero padding, the
  // version (uint32), 120 zero bytes, 16 magic bytes; the padding aligns the version field.
  // Kept verbatim unless the bytes before it moved, in which case the padding is recomputed to
  // keep the version at the same offset modulo 16 (Blender: 0, FBX SDK: 4).
  void write_tail() {
    const std::uint64_t tail = doc_.root.tail;
    const std::string_view t = std::string_view(doc_.data).substr(tail);
    const std::uint64_t moved_from = tail;
    const std::uint64_t moved_to = out_.size();
    const std::size_t fixed_after_pad = 4 + 120 + 16;
    const std::size_t before_pad = null_size_ + 16;
    bool recognised = moved_from != moved_to && t.size() >= before_pad + fixed_after_pad &&
                      load_le<std::uint32_t>(t.data() + t.size() - fixed_after_pad) == doc_.version;
    if (recognised) {
      for (std::size_t k = before_pad; k < t.size() - fixed_after_pad && recognised; ++k)
        recognised = t[k] == 0;
      for (std::size_t k = t.size() - 136; k < t.size() - 16 && recognised; ++k)
        recognised = t[k] == 0;
    }
    if (!recognised) {
      out_.append(t);
      return;
    }
    const std::size_t old_pad = t.size() - fixed_after_pad - before_pad;
    const std::uint64_t residue = (moved_from + before_pad + old_pad) % 16;
    const std::uint64_t id_end = moved_to + before_pad;
    std::uint64_t pad = (residue + 16 - id_end % 16) % 16;
    if (pad < (residue == 0 ? 1 : residue)) pad += 16;
    out_.append(t.substr(0, before_pad));
    out_.append(pad, '\0');
    out_.append(t.substr(t.size() - fixed_after_pad));
  }

  const Document& doc_;
  bool wide_;
  std::uint64_t word_;
  std::uint64_t null_size_;
  std::string out_;
  std::unordered_map<const Value*, std::string> compressed_;  // array value -> its zlib stream
};

}  // namespace

bool looks_binary(std::string_view data) {
  return data.size() >= 21 && std::memcmp(data.data(), kMagic, 21) == 0;
}

std::uint32_t binary_version(std::string_view data) {
  if (data.size() < kHeaderSize) return 0;
  return load_le<std::uint32_t>(data.data() + 23);
}

void parse_binary(Document& doc, bool scene_only, std::span<const std::uint32_t> models) {
  if (doc.data.size() < kHeaderSize)
    throw InputError(doc.source_name, "file is truncated (FBX header)");
  BinaryParser(doc, models).run(scene_only);
}

void parse_binary_children(Document& doc, Node& node) { BinaryParser(doc).expand(node); }

std::string write_binary(const Document& doc) { return BinaryWriter(doc).run(); }

}  // namespace ikfix::io::fbx::detail
