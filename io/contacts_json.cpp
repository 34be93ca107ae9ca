#include "io/contacts_json.hpp"

#include <nlohmann/json.hpp>
#include <string>

#include "io/error.hpp"
#include "io/file_util.hpp"

namespace ikfix::io {
namespace {

constexpr const char* kLegKeys[2] = {"left", "right"};

}  // namespace

ContactFlags load_contacts(const std::filesystem::path& path, int frame_count) {
  const std::string file = path.string();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw InputError(file, "a contacts file must be a JSON object");
  for (const auto& [key, value] : j.items())
    if (key != "ikfix_contacts" && key != "frames" && key != "fps" && key != "left" &&
        key != "right")
      throw InputError(
          file, "unknown key \"" + key + "\" (known: ikfix_contacts, frames, fps, left, right)");
  if (!j.contains("ikfix_contacts") || !j["ikfix_contacts"].is_number_integer() ||
      j["ikfix_contacts"].get<int>() != 1)
    throw InputError(file, "\"ikfix_contacts\": 1 is required (the format version)");
  if (!j.contains("frames") || !j["frames"].is_number_integer())
    throw InputError(file, "\"frames\" (the clip's frame count) is required");
  if (j["frames"].get<long long>() != frame_count)
    throw InputError(file, "is for " + std::to_string(j["frames"].get<long long>()) +
                               " frames but the clip has " + std::to_string(frame_count));
  if (j.contains("fps") && !(j["fps"].is_number() && j["fps"].get<double>() > 0))
    throw InputError(file, "\"fps\" must be a positive number");

  ContactFlags flags;
  for (int l = 0; l < 2; ++l) {
    const std::string leg = kLegKeys[l];
    if (!j.contains(leg) || !j[leg].is_array())
      throw InputError(file,
                       "\"" + leg + "\" is required: a list of [first, last] planted frame ranges");
    flags[l].assign(static_cast<std::size_t>(frame_count), 0);
    long long previous_last = -1;
    for (std::size_t i = 0; i < j[leg].size(); ++i) {
      const auto& range = j[leg][i];
      const std::string where = "\"" + leg + "\"[" + std::to_string(i) + "]";
      if (!range.is_array() || range.size() != 2 || !range[0].is_number_integer() ||
          !range[1].is_number_integer())
        throw InputError(file, where + " must be [first, last], two whole frame numbers");
      const long long first = range[0].get<long long>(), last = range[1].get<long long>();
      if (first < 0 || last >= frame_count)
        throw InputError(file, where + " = [" + std::to_string(first) + ", " +
                                   std::to_string(last) + "] is outside the clip's frames 0.." +
                                   std::to_string(frame_count - 1));
      if (first > last)
        throw InputError(file, where + " = [" + std::to_string(first) + ", " +
                                   std::to_string(last) + "] ends before it starts");
      if (first <= previous_last)
        throw InputError(
            file, where + " starts at frame " + std::to_string(first) +
                      ", not after the range before it (ranges must be in order and not overlap)");
      for (long long f = first; f <= last; ++f) flags[l][static_cast<std::size_t>(f)] = 1;
      previous_last = last;
    }
  }
  return flags;
}

void save_contacts(const std::filesystem::path& path, const ContactFlags& contacts, double fps) {
  // Written by hand rather than pretty-printed so that each plant stays on one line.
  std::string text =
      "{\n  \"ikfix_contacts\": 1,\n  \"frames\": " + std::to_string(contacts[0].size()) +
      ",\n  \"fps\": " + nlohmann::json(fps).dump();
  for (int l = 0; l < 2; ++l) {
    text += ",\n  \"" + std::string(kLegKeys[l]) + "\": [";
    const auto& planted = contacts[l];
    bool first_range = true;
    for (std::size_t f = 0; f < planted.size();) {
      if (!planted[f]) {
        ++f;
        continue;
      }
      std::size_t g = f;
      while (g + 1 < planted.size() && planted[g + 1]) ++g;
      text += (first_range ? "[" : ", [") + std::to_string(f) + ", " + std::to_string(g) + "]";
      first_range = false;
      f = g + 1;
    }
    text += "]";
  }
  text += "\n}\n";
  write_file_atomic(path, text);
}

}  // namespace ikfix::io
