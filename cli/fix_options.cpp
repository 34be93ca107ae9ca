#include "cli/fix_options.hpp"

#include <spdlog/spdlog.h>

#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "core/units.hpp"
#include "io/error.hpp"
#include "io/fbx/verify.hpp"
#include "io/memory_budget.hpp"
#include "io/terrain_io.hpp"

namespace ikfix::cli {

void add_terrain_options(CLI::App& cmd, TerrainOptions& o, bool required) {
  auto* terrain = cmd.add_option(
      "--terrain", o.path,
      required
          ? "Terrain mesh (any format Assimp reads; OBJ is common)"
          : "Terrain mesh (any format Assimp reads; OBJ is common); default flat ground at y = 0");
  if (required) terrain->required();
  cmd.add_option("--terrain-unit", o.unit, "Length unit of the terrain (default m)");
  cmd.add_option("--terrain-up", o.up, "Up axis of the terrain: y or z (default y)")
      ->check(CLI::IsMember({"y", "z"}));
  cmd.add_option("--terrain-offset", o.offset, "Move the terrain by X Y Z metres")->expected(3);
}

void add_verify_assimp_option(CLI::App& cmd) {
  cmd.add_flag_callback(
      "--verify-assimp", [] { io::fbx::set_assimp_check(true); },
      "Also read every FBX output back through Assimp before writing it (slower; our own re-read "
      "always runs)");
}

void add_fix_options(CLI::App& cmd, FixOptions& o) {
  cmd.add_option("--solver", o.solver, "Leg solver: fabrik (default), ccd, two-bone or dls")
      ->check(CLI::IsMember({"fabrik", "ccd", "two-bone", "dls"}));
  cmd.add_option("--weight", o.weight, "Blend between input (0) and full fix (1)")
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option("--max-pelvis-drop", o.max_pelvis_drop,
                 "Pelvis drop limit, fraction of leg length (default 0.35)")
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option(
         "--max-heel-lift", o.max_heel_lift_deg,
         "Degrees a foot out of reach may turn up on its ball (heel up) before the pelvis drops; "
         "0 = drop only (default 20)")
      ->check(CLI::Range(0.0, 60.0));
  cmd.add_option("--floor", o.floor, "Height of the clip's own floor, metres (default: detected)");
  cmd.add_flag("--no-align-feet", o.no_align_feet, "Do not turn planted feet to the ground normal");
  cmd.add_flag("--no-place-plants", o.no_place_plants,
               "Leave planted feet where the clip put them even where a riser or wall is in the "
               "way (default: moved where the whole foot fits)");
}

std::unique_ptr<core::Terrain> load_terrain(const TerrainOptions& o,
                                            const std::optional<core::XzBox>& footprint_ws,
                                            int threads, const core::ParallelRunner* runner,
                                            io::ObjReadAhead* ahead) {
  const double scale = core::metres_per_unit_from_name(o.unit);
  if (!(scale > 0)) throw std::invalid_argument("--terrain-unit: '" + o.unit + "' is not a unit");
  const core::Vec3 offset =
      o.offset.empty() ? core::Vec3(0.0) : core::Vec3(o.offset[0], o.offset[1], o.offset[2]);
  std::optional<core::XzBox> keep;  // in the file's world, before --terrain-offset
  if (footprint_ws && footprint_ws->min_x <= footprint_ws->max_x) {
    // 1 mm more than the footprint: the crop tests positions before the offset is added, and a
    // triangle kept in excess changes no answer.
    keep =
        core::XzBox{footprint_ws->min_x - offset.x - 1e-3, footprint_ws->min_z - offset.z - 1e-3,
                    footprint_ws->max_x - offset.x + 1e-3, footprint_ws->max_z - offset.z + 1e-3};
  }
  // The CLI's terrains answer with face normals (core::TerrainOptions::smooth_normals off): a
  // prepared terrain's part is read without its vertex normals.
  io::TerrainRead read = io::load_terrain_part(o.path, scale, o.up[0], keep, threads,
                                               /*normals=*/false, runner, ahead);
  if (!o.offset.empty())
    for (auto& v : read.mesh.vertices) v += offset;
  core::TerrainOptions terrain_options;
  if (read.crop) {  // rounding is monotonic: the whole bounds moved are the moved mesh's bounds
    core::TerrainCrop crop = *read.crop;
    crop.whole_min += offset, crop.whole_max += offset;
    crop.min_x = footprint_ws->min_x, crop.min_z = footprint_ws->min_z;
    crop.max_x = footprint_ws->max_x, crop.max_z = footprint_ws->max_z;
    terrain_options.crop = crop;
    spdlog::debug("{}: {} triangles read under the footprint x {:.2f}..{:.2f}, z {:.2f}..{:.2f} m",
                  o.path, read.mesh.triangles.size(), crop.min_x, crop.max_x, crop.min_z,
                  crop.max_z);
  }
  try {
    return std::make_unique<core::Terrain>(std::move(read.mesh), terrain_options);
  } catch (const std::invalid_argument& e) {
    throw io::InputError(o.path, e.what());
  }
}

const core::Terrain& load_terrain_for_process(const TerrainOptions& options,
                                              const std::optional<core::XzBox>& footprint_ws,
                                              int threads, const core::ParallelRunner* runner,
                                              io::ObjReadAhead* ahead) {
  io::reserve_terrain_memory(options.path);
  // Intentionally never freed (see the header), but listed where a leak checker (LeakSanitizer
  // in `make sanitize`) finds it reachable from a global, not lost.
  static std::mutex mutex;
  static auto* const kept = new std::vector<const core::Terrain*>();
  std::unique_ptr<core::Terrain> terrain =
      load_terrain(options, footprint_ws, threads, runner, ahead);
  const std::lock_guard lock(mutex);
  kept->push_back(terrain.get());
  return *terrain.release();
}

core::FixSettings to_settings(const FixOptions& o) {
  core::FixSettings s;
  s.solver = o.solver == "ccd"        ? core::SolverKind::Ccd
             : o.solver == "two-bone" ? core::SolverKind::TwoBone
             : o.solver == "dls"      ? core::SolverKind::Dls
                                      : core::SolverKind::Fabrik;
  s.weight = o.weight;
  s.max_pelvis_drop = o.max_pelvis_drop;
  s.max_heel_lift = o.max_heel_lift_deg * core::kPi / 180.0;
  s.floor_height = o.floor;
  s.align_feet = !o.no_align_feet;
  s.place_plants = !o.no_place_plants;
  return s;
}

}  // namespace ikfix::cli
