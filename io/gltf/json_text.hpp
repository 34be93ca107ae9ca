#pragma once
// Locating values inside JSON text, so the glTF writer can splice new text into the original
// instead of re-serialising it (every byte it does not touch stays as it was).
//
// The text must already be valid JSON (the reader parsed it with nlohmann::json first); these
// functions only find where things are. They never read past the end of the text.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ikfix::io::gltf::json_text {

// Bytes [begin, end) of one JSON value (string, number, literal, object or array).
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
};

// The value starting at the first non-space byte at or after `pos`.
Span value_at(std::string_view text, std::size_t pos);

// Every member of the object at `object`, in text order: (unescaped key, value span).
std::vector<std::pair<std::string, Span>> members(std::string_view text, Span object);

// The value of member `key` of the object at `object` (keys compared after unescaping), or
// nullopt. With duplicate keys, the last one wins (as nlohmann::json does).
std::optional<Span> member(std::string_view text, Span object, std::string_view key);

// The elements of the array at `array`, in order.
std::vector<Span> elements(std::string_view text, Span array);

// One text replacement: bytes [begin, begin + length) of the original become `text`
// (length 0 inserts).
struct Edit {
  std::size_t begin = 0;
  std::size_t length = 0;
  std::string text;
};

// Applies non-overlapping edits (any order; insertions at the same place keep their order).
std::string apply(std::string_view text, std::vector<Edit> edits);

// Edit that appends `items` (already JSON text, comma-free) to the array at `array`, right
// after its last element (or inside the brackets when it is empty).
Edit append_to_array(std::string_view text, Span array, const std::vector<std::string>& items);

// Edit that adds member "key": value_text to the object at `object` (before its closing brace).
Edit add_member(std::string_view text, Span object, std::string_view key,
                std::string_view value_text);

}  // namespace ikfix::io::gltf::json_text
