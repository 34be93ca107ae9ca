#include "cli/clip_config.hpp"

#include <nlohmann/json.hpp>

#include "io/error.hpp"
#include "io/file_util.hpp"

namespace ikfix::cli {

std::filesystem::path sidecar_config_path(const std::filesystem::path& clip) {
  return clip.string() + ".ikfix.json";
}

void apply_clip_config(const std::filesystem::path& path, ClipOptions& clip,
                       std::vector<double>& terrain_offset) {
  const std::string file = path.string();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(io::read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw io::InputError(file, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw io::InputError(file, "a clip config must be a JSON object");
  auto text = [&](const char* key, const nlohmann::json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number()) return v.dump();
    throw io::InputError(file, std::string("\"") + key + "\" must be a string or a number");
  };
  for (const auto& [key, value] : j.items()) {
    if (key == "legs")
      clip.legs = text("legs", value);
    else if (key == "clip_unit")
      clip.clip_unit = text("clip_unit", value);
    else if (key == "clip_up") {
      clip.clip_up = text("clip_up", value);
      if (clip.clip_up != "y" && clip.clip_up != "z")
        throw io::InputError(file, "\"clip_up\" must be \"y\" or \"z\"");
    } else if (key == "take")
      clip.take = text("take", value);
    else if (key == "terrain_offset") {
      if (!value.is_array() || value.size() != 3 || !value[0].is_number() ||
          !value[1].is_number() || !value[2].is_number())
        throw io::InputError(file, "\"terrain_offset\" must be [x, y, z] in metres");
      terrain_offset = {value[0].get<double>(), value[1].get<double>(), value[2].get<double>()};
    } else if (key == "contacts") {
      if (!value.is_string() || value.get<std::string>().empty())
        throw io::InputError(file, "\"contacts\" must be the path of a contacts file");
      const std::filesystem::path contacts = value.get<std::string>();
      clip.contacts = (contacts.is_absolute() ? contacts : path.parent_path() / contacts).string();
    } else {
      throw io::InputError(
          file, "unknown key \"" + key +
                    "\" (known: legs, clip_unit, clip_up, take, terrain_offset, contacts)");
    }
  }
}

ClipSettings settings_for_clip(const std::filesystem::path& input, const ClipOptions& base,
                               const std::filesystem::path& config) {
  ClipSettings out{base, {}};
  if (!config.empty()) apply_clip_config(config, out.clip, out.terrain_offset);
  const auto sidecar = sidecar_config_path(input);
  std::error_code ec;
  if (std::filesystem::is_regular_file(sidecar, ec))
    apply_clip_config(sidecar, out.clip, out.terrain_offset);
  return out;
}

}  // namespace ikfix::cli
