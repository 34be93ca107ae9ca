#pragma once
// Options shared by every command that reads a clip: units, up axis, legs.
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "core/legs.hpp"
#include "io/clip_io.hpp"

namespace ikfix::cli {

struct ClipOptions {
  std::string clip_unit;  // m|cm|mm|in|ft|cmu|<metres per unit>; empty: from the file or guessed
  std::string clip_up;    // y|z; empty: from the file
  std::string legs;       // 8 comma-separated joint names (toe may be empty)
  std::string take;       // take (FBX stack / glTF animation) name, 0-based index or "all"; empty: the first
  std::string contacts;   // contacts file (io/contacts_json.hpp) used instead of detection; empty: detect
};

// --contacts FILE for commands that fix one clip (run, check); batch takes it per clip from
// the clip's config.
void add_contacts_option(CLI::App& cmd, ClipOptions& options);

void add_clip_options(CLI::App& cmd, ClipOptions& options);

// Throws std::invalid_argument with a readable message on a bad value.
io::ClipLoadOptions to_load_options(const ClipOptions& options);

// Leg rig from --legs or detection; throws io::InputError naming the clip when none is found.
core::LegRig find_legs(const io::LoadedClip& clip, const ClipOptions& options);

}  // namespace ikfix::cli
