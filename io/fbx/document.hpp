#pragma once
// An FBX 7.x file kept whole as a node tree (ikfix::io::fbx), binary or ASCII.
//
// Every node and property remembers where it came from in Document::data, so writing an
// unmodified Document gives back the file byte for byte, and writing a modified one re-encodes
// only what was changed: a binary array keeps its original (possibly zlib-compressed) bytes
// until it is replaced, an ASCII file keeps its comments, spacing and number formatting.
//
//   Document doc = fbx::read_file(path);              // throws io::InputError
//   const Node* objects = doc.root.child("Objects");
//   fbx::set_value(node->props[0], std::vector<float>{...});  // replace a property
//   std::string bytes = fbx::write(doc);
//
// Ownership: a Document owns its bytes; nodes and properties refer to them by offset, so a
// Document can be moved freely (copying it copies the bytes). Replacement values are owned by
// their property.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ikfix::io::fbx {

enum class Encoding : std::uint8_t { binary, ascii };

// A decoded property value, used for values set by the patcher (and as the decoder's output).
// Scalars: bool (C), int16 (Y), int32 (I), float (F), double (D), int64 (L), std::string (S,
// bytes as stored: binary names use "Name\0\x01Class"), Raw (R). Arrays: f d l i b.
struct Raw {
  std::string bytes;
};
using Value = std::variant<bool, std::int16_t, std::int32_t, float, double, std::int64_t,
                           std::string, Raw, std::vector<float>, std::vector<double>,
                           std::vector<std::int64_t>, std::vector<std::int32_t>, std::vector<bool>>;

// Binary type code of a Value alternative ('C', 'Y', 'I', 'F', 'D', 'L', 'S', 'R', 'f', 'd',
// 'l', 'i', 'b').
char type_code(const Value& v);

inline constexpr std::uint64_t kNoSource = ~std::uint64_t{0};

struct Property {
  // Binary: the type code as stored. ASCII: 'S' quoted string, 'L' integer, 'D' number with a
  // fraction or exponent, 'W' bare word (e.g. T, Y, W), 'a' array ("*N { a: ... }").
  // For a replaced property: type_code(*value).
  char type = 0;
  // Where the property lies in Document::data. Binary: the payload after the type code (for
  // arrays: the 12-byte array header and the encoded contents). ASCII: the token's text (for
  // strings, including the quotes; for arrays, from '*' to the closing '}').
  std::uint64_t offset = kNoSource;
  std::uint64_t size = 0;
  // Set when the property was replaced or created; the writer encodes it, ignoring offset.
  std::shared_ptr<const Value> value;

  bool is_array() const {
    return type == 'f' || type == 'd' || type == 'l' || type == 'i' || type == 'b' || type == 'a';
  }
};

struct Node {
  std::string name;
  std::vector<Property> props;
  std::vector<Node> children;

  // Source extent in Document::data: [begin, end). Binary: the whole record, EndOffset
  // included. ASCII: from the first character of the name to after the closing '}' (or the
  // last property when the node has no braces). kNoSource for a created node.
  std::uint64_t begin = kNoSource;
  std::uint64_t end = kNoSource;
  // Binary: bytes after the last child up to `end` (normally the 13- or 25-byte null record
  // that closes a nested list; kept as stored). ASCII: offset of the closing '}' (kNoSource
  // when the node has no braces). For a created node the writer decides.
  std::uint64_t tail = kNoSource;
  // The node stands for its source bytes [begin, end): its children were not built (a
  // ParseDepth::scene parse: until fbx::parse_children builds them; fbx::copy_for_patch: nor
  // its properties). The writers copy such a node as it was; changing it is an error.
  bool deferred = false;
  // First child called `name`, or nullptr.
  const Node* child(std::string_view child_name) const;
  Node* child(std::string_view child_name);
};

struct Document {
  std::string source_name;  // as given to the reader; used in error messages
  Encoding encoding = Encoding::binary;
  std::uint32_t version = 0;  // 7100 .. 7700
  std::string data;           // the file, byte for byte
  // Top-level nodes are the root's children. Binary: root.begin = end of the 27-byte header,
  // root.tail = offset of the top-level null record (everything from there on - null record,
  // footer, padding - is kept and re-emitted, with only the footer's alignment padding
  // adjusted when the size before it changed). ASCII: root spans the whole text.
  Node root;

  bool wide_offsets() const { return encoding == Encoding::binary && version >= 7500; }
};

// ---- Reading values (both encodings) -------------------------------------------------------
// Each throws InputError (naming doc.source_name and the byte offset or line) when the
// property is not of a compatible kind or its data is corrupt.

// Integers of any width, bools, and (binary) floats truncated toward zero only when integral.
std::int64_t as_int(const Document& doc, const Property& p);
// Any number.
double as_double(const Document& doc, const Property& p);
// Strings (S) and ASCII bare words; binary strings as stored.
std::string as_string(const Document& doc, const Property& p);
// Any numeric array (or a single number, as a one-element array) converted to double/int64.
std::vector<double> as_doubles(const Document& doc, const Property& p);
std::vector<std::int64_t> as_ints(const Document& doc, const Property& p);
// Number of elements of an array property without decoding it.
std::uint64_t array_size(const Document& doc, const Property& p);
// The whole property as a Value (ASCII arrays become double arrays, or int64 arrays when every
// element is an integer).
Value decode(const Document& doc, const Property& p);

// "Model::Hips" in both encodings: binary "Hips\0\x01Model" becomes "Model::Hips".
std::string display_name(std::string_view stored);
// The object name without its class: "Hips" from "Model::Hips" or "Hips\0\x01Model".
std::string object_name(std::string_view stored);
// "Hips" + "Model" in the file's own convention ("Model::Hips" or "Hips\0\x01Model").
std::string stored_name(const Document& doc, std::string_view name, std::string_view class_name);

// ---- Changing the tree -----------------------------------------------------------------------
// Properties are replaced with set_value; nodes are created with make_node and appended to a
// parent's children. The writers find changes by themselves (a node is changed when it was
// created, one of its properties holds a value, or one of its descendants is changed), so
// nothing has to be marked.

// Replaces property `p` with `value` (kept in the property).
void set_value(Property& p, Value value);
// Same, sharing `value` with other properties (one KeyTime array for every rewritten curve of a
// take: the writer then also encodes it once).
void set_value(Property& p, std::shared_ptr<const Value> value);
// A created property / node.
Property make_property(Value value);
Node make_node(std::string name, std::vector<Value> props = {});
// True when `node` or anything below it was changed or created.
bool is_changed(const Node& node);

}  // namespace ikfix::io::fbx
