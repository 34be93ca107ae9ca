#pragma once
// The inputs a clip command reads, for its io::OutputSet (io/output_set.hpp): every output of
// the command is checked against them before anything is written.
#include <filesystem>
#include <string>

#include "io/output_set.hpp"

namespace ikfix::cli {

struct ClipCommandInputs {
  std::filesystem::path clip;
  std::string config;    // --config (empty: none)
  std::string contacts;  // --contacts or the config's contacts (empty: none)
  std::string terrain;   // --terrain (empty: none)
  std::string target;    // --to: the retarget character (empty: none)
  std::string map;       // --map (empty: none)
};

// Adds each given input, and the clip's sidecar config (CLIP.ikfix.json), to `files`.
void add_clip_command_inputs(io::OutputSet& files, const ClipCommandInputs& inputs);

}  // namespace ikfix::cli
