#pragma once
// Options of the foot fix and of the terrain, shared by `run` and `batch`.
#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/fix/fix_settings.hpp"
#include "core/parallel.hpp"
#include "core/terrain.hpp"
#include "core/xz_grid.hpp"

namespace ikfix::io {
class ObjReadAhead;
}

namespace ikfix::cli {

struct TerrainOptions {
  std::string path;
  std::string unit = "m";
  std::string up = "y";
  std::vector<double> offset;  // X Y Z metres, or empty
};

struct FixOptions {
  std::string solver = "fabrik";
  double weight = 1.0;
  double max_pelvis_drop = 0.35;
  double max_heel_lift_deg = 20.0;
  std::optional<double> floor;
  bool no_align_feet = false;
  bool no_place_plants = false;
};

// `required` false: the terrain is optional (retarget: flat ground at y = 0 without one).
void add_terrain_options(CLI::App& cmd, TerrainOptions& options, bool required = true);
void add_fix_options(CLI::App& cmd, FixOptions& options);

// `--verify-assimp` (commands that write clips): every FBX output is also read back through
// Assimp before it is written (io::fbx::set_assimp_check), on top of the check with our own
// reader that always runs.
void add_verify_assimp_option(CLI::App& cmd);

// Loads and builds the terrain once; throws io::InputError naming the file. With `footprint_ws`
// (world metres, core::clip_footprint), only the triangles touching it are read when the
// format allows (io::load_terrain_part): the answers there are the whole terrain's. `threads`:
// what an OBJ file is read on (io::load_terrain_part; 0: one per core), or `runner`'s threads.
// `ahead`: the OBJ file's first pass begun before the footprint was known (io::ObjReadAhead).
std::unique_ptr<core::Terrain> load_terrain(
    const TerrainOptions& options, const std::optional<core::XzBox>& footprint_ws = std::nullopt,
    int threads = 0, const core::ParallelRunner* runner = nullptr,
    io::ObjReadAhead* ahead = nullptr);

// load_terrain for a command that runs once per process (run, check, batch, retarget): the
// terrain is kept until the process exits, never destroyed: freeing its mesh and query
// structures would only give back memory the OS takes back at exit anyway.
const core::Terrain& load_terrain_for_process(
    const TerrainOptions& options, const std::optional<core::XzBox>& footprint_ws = std::nullopt,
    int threads = 0, const core::ParallelRunner* runner = nullptr,
    io::ObjReadAhead* ahead = nullptr);

core::FixSettings to_settings(const FixOptions& options);

}  // namespace ikfix::cli
