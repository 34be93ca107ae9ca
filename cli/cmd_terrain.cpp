#include "cli/cmd_terrain.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli/clip_options.hpp"
#include "core/terrain_gen.hpp"
#include "core/units.hpp"
#include "io/error.hpp"
#include "io/prepared_terrain.hpp"
#include "io/terrain_io.hpp"

namespace ikfix::cli {

namespace {

// Raw option values; a parameter left unset keeps the generator's documented default.
struct TerrainArgs {
  std::string kind;
  std::string input;  // prepare: the mesh to prepare
  std::string output;
  std::string unit = "m", up = "y";  // prepare: the input's unit and up axis
  double step_height = 0, step_depth = 0, width = 0, angle = 0, length = 0, amplitude = 0;
  double wavelength = 0, cell = 0, height = 0, start = 0, size = 0;
  int steps = 0;
  std::string axis;
  // Options and the kinds they apply to.
  std::vector<std::pair<CLI::Option*, std::vector<std::string>>> applies;
};

// Fills the generator parameters from the given options, builds the mesh and a summary.
core::TerrainMesh generate(const TerrainArgs& a, const CLI::App& cmd, std::string& summary) {
  auto given = [&](const char* name) { return cmd.get_option(name)->count() > 0; };
  core::TerrainAxis axis = core::TerrainAxis::kPosZ;
  if (given("--axis")) axis = *core::parse_terrain_axis(a.axis);  // checked by CLI11
  const auto fmt_axis = std::string(core::to_string(axis));

  if (a.kind == "flat") {
    core::FlatParams p;
    if (given("--size")) p.size = a.size;
    if (given("--height")) p.height = a.height;
    auto mesh = core::make_flat_terrain(p);
    summary = fmt::format("flat {:g} m square at y = {:g} m", p.size, p.height);
    return mesh;
  }
  if (a.kind == "stairs") {
    core::StairsParams p;
    p.axis = axis;
    if (given("--step-height")) p.step_height = a.step_height;
    if (given("--step-depth")) p.step_depth = a.step_depth;
    if (given("--steps")) p.steps = a.steps;
    if (given("--start")) p.start = a.start;
    if (given("--width")) p.width = a.width;
    if (given("--size")) p.size = a.size;
    auto mesh = core::make_stairs_terrain(p);
    summary = fmt::format("{} steps of {:g} m, {:g} m deep, up along {} from {:g} m", p.steps,
                          p.step_height, p.step_depth, fmt_axis, p.start);
    return mesh;
  }
  if (a.kind == "slope") {
    core::SlopeParams p;
    p.axis = axis;
    if (given("--angle")) p.angle_deg = a.angle;
    if (given("--length")) p.length = a.length;
    if (given("--start")) p.start = a.start;
    if (given("--width")) p.width = a.width;
    if (given("--size")) p.size = a.size;
    auto mesh = core::make_slope_terrain(p);
    summary = fmt::format("{:g} degree slope along {} from {:g} m", p.angle_deg, fmt_axis, p.start);
    return mesh;
  }
  if (a.kind == "bumps") {
    core::BumpsParams p;
    if (given("--amplitude")) p.amplitude = a.amplitude;
    if (given("--wavelength")) p.wavelength = a.wavelength;
    if (given("--cell")) p.cell = a.cell;
    if (given("--size")) p.size = a.size;
    auto mesh = core::make_bumps_terrain(p);
    summary = fmt::format("bumps {:g} m high every {:g} m over {:g} m", p.amplitude, p.wavelength,
                          p.size);
    return mesh;
  }
  core::CliffParams p;  // "cliff" (the kind is checked by CLI11)
  p.axis = axis;
  if (given("--height")) p.height = a.height;
  if (given("--start")) p.start = a.start;
  if (given("--width")) p.width = a.width;
  if (given("--size")) p.size = a.size;
  auto mesh = core::make_cliff_terrain(p);
  summary = fmt::format("{:g} m {} along {} at {:g} m", std::abs(p.height),
                        p.height > 0 ? "raise" : "drop", fmt_axis, p.start);
  return mesh;
}

// `terrain prepare IN -o OUT.ikterrain`: the mesh read as `--terrain IN` reads it, written as a
// prepared terrain (io/prepared_terrain.hpp).
int run_prepare(const TerrainArgs& args) {
  if (args.input.empty()) {
    spdlog::error(
        "terrain prepare: give the terrain mesh to prepare (ikfix terrain prepare "
        "level.obj -o level.ikterrain)");
    return 2;
  }
  if (!io::is_prepared_terrain(args.output)) {
    spdlog::error("terrain prepare: output must be a .ikterrain file, got '{}'", args.output);
    return 2;
  }
  try {
    const double scale = core::metres_per_unit_from_name(args.unit);
    if (!(scale > 0))
      throw std::invalid_argument("--terrain-unit: '" + args.unit + "' is not a unit");
    const core::TerrainMesh mesh = io::load_terrain_mesh(args.input, scale, args.up[0]);
    io::save_prepared_terrain(args.output, mesh);
    spdlog::info("wrote {}: {} triangles, {} vertices", args.output, mesh.triangles.size(),
                 mesh.vertices.size());
    return 0;
  } catch (const std::invalid_argument& e) {
    spdlog::error("terrain prepare: {}", e.what());
  } catch (const io::InputError& e) {
    spdlog::error("{}", e.what());
  }
  return 2;
}

int run_terrain(const TerrainArgs& args, const CLI::App& cmd) {
  if (args.kind == "prepare") return run_prepare(args);
  if (!args.input.empty()) {
    spdlog::error("terrain {}: takes no input file (only `terrain prepare` does)", args.kind);
    return 2;
  }
  for (const auto& [option, kinds] : args.applies) {
    if (option->count() > 0 && std::find(kinds.begin(), kinds.end(), args.kind) == kinds.end()) {
      spdlog::error("terrain {}: {} does not apply to {} (it is for {})", args.kind,
                    option->get_name(), args.kind, fmt::join(kinds, ", "));
      return 2;
    }
  }
  std::string extension = std::filesystem::path(args.output).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension != ".obj") {
    spdlog::error("terrain: output must be a .obj file, got '{}'", args.output);
    return 2;
  }
  try {
    std::string summary;
    const core::TerrainMesh mesh = generate(args, cmd, summary);
    io::save_obj(args.output, mesh);
    spdlog::info("wrote {}: {}, {} triangles", args.output, summary, mesh.triangles.size());
    return 0;
  } catch (const std::invalid_argument& e) {
    spdlog::error("terrain {}: {}", args.kind, e.what());
  } catch (const io::InputError& e) {
    spdlog::error("{}", e.what());
  }
  return 2;
}

}  // namespace

void add_terrain_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<TerrainArgs>();
  CLI::App* cmd = app.add_subcommand(
      "terrain",
      "Write a test terrain as OBJ (metres, Y up; features lie along --axis), or prepare a "
      "terrain mesh for fast reading (prepare IN -o OUT.ikterrain)");
  cmd->add_option("kind", args->kind, "flat | stairs | slope | bumps | cliff | prepare")
      ->required()
      ->check(CLI::IsMember({"flat", "stairs", "slope", "bumps", "cliff", "prepare"}));
  cmd->add_option("input", args->input, "prepare: the terrain mesh to prepare (OBJ or any mesh)");
  cmd->add_option("-o,--output", args->output, "Output .obj file (prepare: .ikterrain file)")
      ->required();

  const std::vector<std::string> along = {"stairs", "slope", "cliff"};
  auto add = [&](const char* name, auto& value, const char* help, std::vector<std::string> kinds) {
    CLI::Option* option = cmd->add_option(name, value, help);
    args->applies.emplace_back(option, std::move(kinds));
    return option;
  };
  add("--step-height", args->step_height, "stairs: riser height, m (default 0.15)", {"stairs"});
  add("--step-depth", args->step_depth, "stairs: tread depth, m (default 0.3)", {"stairs"});
  add("--steps", args->steps, "stairs: number of steps (default 10)", {"stairs"});
  add("--angle", args->angle, "slope: degrees, negative goes down (default 10)", {"slope"});
  add("--length", args->length, "slope: ramp length along the axis, m; 0 = to the edge", {"slope"});
  add("--amplitude", args->amplitude, "bumps: peak height, m (default 0.1)", {"bumps"});
  add("--wavelength", args->wavelength, "bumps: distance between peaks, m (default 2)", {"bumps"});
  add("--cell", args->cell, "bumps: grid spacing, m (default 0.1)", {"bumps"});
  add("--height", args->height,
      "cliff: step height, m, negative = drop (default 0.5); flat: ground height (default 0)",
      {"cliff", "flat"});
  add("--start", args->start, "distance along the axis to the feature, m (default 0.5; cliff 2)",
      along);
  add("--axis", args->axis, "direction the feature lies in: +x, -x, +z, -z (default +z)", along)
      ->check(CLI::IsMember({"+x", "-x", "+z", "-z"}));
  add("--width", args->width, "extent across the axis, m (default: --size)", along);
  add("--size", args->size, "extent of the terrain, m (default 20)",
      {"flat", "stairs", "slope", "bumps", "cliff"});
  add("--terrain-unit", args->unit, "prepare: length unit of the input mesh (default m)",
      {"prepare"});
  add("--terrain-up", args->up, "prepare: up axis of the input mesh, y or z (default y)",
      {"prepare"})
      ->check(CLI::IsMember({"y", "z"}));
  args->applies.emplace_back(add_assimp_timeout_option(*cmd), std::vector<std::string>{"prepare"});

  cmd->callback([args, cmd, &exit_code] { exit_code = run_terrain(*args, *cmd); });
}

}  // namespace ikfix::cli
