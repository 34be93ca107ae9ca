#pragma once
// Per-clip settings from JSON, so a mixed library works in one command: a file passed once with
// --config, and/or CLIP.ikfix.json beside a clip (which wins). Keys (all optional):
//   "legs": "LHIP,LKNEE,LANKLE,LTOE,RHIP,RKNEE,RANKLE,RTOE"   (as --legs)
//   "clip_unit": "cm" | 0.01                                    (as --clip-unit)
//   "clip_up": "y" | "z"                                        (as --clip-up)
//   "take": "Walk" | 1                                          (as --take)
//   "terrain_offset": [x, y, z]   metres: where this clip stands on the shared terrain (the
//                                 terrain is moved by this much relative to the clip)
//   "contacts": "walk.contacts.json"  foot contacts file (as --contacts), relative to this config
#include <filesystem>
#include <vector>

#include "cli/clip_options.hpp"

namespace ikfix::cli {

// CLIP.ikfix.json beside `clip` (e.g. walk.bvh -> walk.bvh.ikfix.json).
std::filesystem::path sidecar_config_path(const std::filesystem::path& clip);

// Applies the keys of `config` over `clip` and `terrain_offset`. Throws io::InputError naming
// the config file on unreadable JSON, an unknown key or a value of the wrong type.
void apply_clip_config(const std::filesystem::path& config, ClipOptions& clip,
                       std::vector<double>& terrain_offset);

// The settings one clip runs with: `base` (the command line), then `config` (--config, may be
// empty), then the clip's sidecar if it exists.
struct ClipSettings {
  ClipOptions clip;
  std::vector<double> terrain_offset;
};
ClipSettings settings_for_clip(const std::filesystem::path& input, const ClipOptions& base,
                               const std::filesystem::path& config);

}  // namespace ikfix::cli
