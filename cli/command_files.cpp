#include "cli/command_files.hpp"

#include "cli/clip_config.hpp"

namespace ikfix::cli {

void add_clip_command_inputs(io::OutputSet& files, const ClipCommandInputs& inputs) {
  files.add_input(inputs.clip, "clip");
  if (!inputs.clip.empty()) files.add_input(sidecar_config_path(inputs.clip), "clip config");
  files.add_input(inputs.config, "--config");
  files.add_input(inputs.contacts, "--contacts");
  files.add_input(inputs.terrain, "--terrain");
  files.add_input(inputs.target, "--to");
  files.add_input(inputs.map, "--map");
}

}  // namespace ikfix::cli
