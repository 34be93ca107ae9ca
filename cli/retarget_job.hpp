#pragma once
// One clip retargeted onto a character: load both, map the bones (automatically or from a map
// file), transfer, fix the feet, write, report. Shared by `retarget` and `batch --to`.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/clip_options.hpp"
#include "cli/fix_options.hpp"
#include "core/terrain.hpp"

namespace ikfix::cli {

struct RetargetOptions {
  std::string target;           // --to: the character (FBX, glTF/GLB, BVH)
  std::string map;              // --map: a bone map file (ikfix map --save); empty: automatic
  std::string target_unit;      // --target-unit: overrides the character file's unit
  std::string target_up;        // --target-up
  std::optional<double> scale;  // --scale: horizontal root scale; default the leg-length ratio
  double arm_reach = 1.0;       // --arm-reach
  bool no_foot_fix = false;     // --no-foot-fix: the transfer only
  bool no_rest_align = false;   // --no-rest-align: keep target rest directions (diagnostics)
  std::string take_name;        // --take-name: the new take's name; default the source's stem
};

// `for_batch`: --to is optional (given: every clip is retargeted) and --take-name is left out
// (each clip's take is named after its file).
void add_retarget_options(CLI::App& cmd, RetargetOptions& options, bool for_batch = false);

struct RetargetJob {
  std::filesystem::path input;
  std::filesystem::path output;
  const core::Terrain* terrain = nullptr;  // null: flat ground at y = 0
  std::string terrain_path;
  ClipOptions clip;  // the source clip's options (--take, --clip-unit, --legs)
  RetargetOptions retarget;
  FixOptions fix;
  bool write_output = true;
  std::filesystem::path html;  // the HTML report (cli/html_page.hpp); empty: none
};

struct RetargetJobResult {
  nlohmann::ordered_json report;
  std::vector<std::string> warnings;
  int frames = 0;
};

// Throws io::InputError / std::invalid_argument (exit 2) with a one-line message naming the file.
// Thread-safe (no logging, no globals).
RetargetJobResult run_retarget_job(const RetargetJob& job);

// walk.bvh --to hero.fbx -> walk_on_hero.fbx beside walk.bvh.
std::filesystem::path default_retarget_output(const std::filesystem::path& source,
                                              const std::filesystem::path& target);

}  // namespace ikfix::cli
