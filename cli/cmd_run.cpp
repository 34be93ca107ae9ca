#include "cli/cmd_run.hpp"

#include <chrono>
#include <filesystem>
#include <memory>

#include <spdlog/spdlog.h>

#include "cli/clip_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/fail_on.hpp"
#include "core/fix/footfix.hpp"
#include "core/units.hpp"
#include "io/clip_io.hpp"
#include "io/error.hpp"
#include "io/report_json.hpp"
#include "io/terrain_io.hpp"

namespace ikfix::cli {
namespace {

namespace fs = std::filesystem;

struct RunArgs {
  std::string input;
  std::string terrain;
  std::string output;
  std::string report;
  bool in_place = false;
  ClipOptions clip;
  std::string terrain_unit = "m";
  std::string terrain_up = "y";
  std::vector<double> terrain_offset;
  std::string solver = "fabrik";
  double weight = 1.0;
  double max_pelvis_drop = 0.35;
  std::optional<double> floor;
  bool no_align_feet = false;
  std::string fail_on;
};

// walk.bvh -> walk.ikfix.bvh beside the input.
fs::path default_output(const fs::path& input) {
  return input.parent_path() / (input.stem().string() + ".ikfix" + input.extension().string());
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

core::SolverKind parse_solver(const std::string& name) {
  if (name == "ccd") return core::SolverKind::Ccd;
  if (name == "two-bone") return core::SolverKind::TwoBone;
  return core::SolverKind::Fabrik;
}

int run(const RunArgs& args) {
  const auto started = std::chrono::steady_clock::now();
  const auto conditions = parse_fail_on(args.fail_on);  // invalid_argument -> exit 2 below
  const fs::path output = args.in_place ? fs::path(args.input)
                          : args.output.empty() ? default_output(args.input)
                                                : fs::path(args.output);
  if (!args.in_place && same_file(output, args.input))
    throw std::invalid_argument("output " + output.string() + " is the input; pass --in-place to overwrite it");

  io::LoadedClip clip = io::load_clip(args.input, to_load_options(args.clip));
  const core::LegRig rig = find_legs(clip, args.clip);
  for (const auto& w : clip.warnings) spdlog::warn("{}: {}", args.input, w);

  const double terrain_scale = core::metres_per_unit_from_name(args.terrain_unit);
  if (!(terrain_scale > 0)) throw std::invalid_argument("--terrain-unit: '" + args.terrain_unit + "' is not a unit");
  core::TerrainMesh mesh = io::load_terrain_mesh(args.terrain, terrain_scale, args.terrain_up[0]);
  if (!args.terrain_offset.empty())
    for (auto& v : mesh.vertices) v += core::Vec3(args.terrain_offset[0], args.terrain_offset[1], args.terrain_offset[2]);
  std::unique_ptr<core::Terrain> terrain;
  try {
    terrain = std::make_unique<core::Terrain>(std::move(mesh));
  } catch (const std::invalid_argument& e) {
    throw io::InputError(args.terrain, e.what());
  }

  core::FixInput fix;
  fix.skeleton = &clip.skeleton;
  fix.clip = &clip.clip;
  fix.space = clip.space;
  fix.rig = rig;
  fix.terrain = terrain.get();
  fix.settings.solver = parse_solver(args.solver);
  fix.settings.weight = args.weight;
  fix.settings.max_pelvis_drop = args.max_pelvis_drop;
  fix.settings.floor_height = args.floor;
  fix.settings.align_feet = !args.no_align_feet;
  const core::FixResult result = core::fix_clip(fix);

  io::save_clip(output, clip, result.clip, result.changed_joints);

  io::RunReportInput report_input;
  report_input.tool_version = IKFIX_VERSION;
  report_input.clip = &clip;
  report_input.rig = &rig;
  report_input.output_path = output.string();
  report_input.terrain_path = args.terrain;
  report_input.diagnostics = &result.diagnostics;
  const auto report = io::make_run_report(report_input);
  if (!args.report.empty()) io::save_json(args.report, report);

  const auto& d = result.diagnostics;
  for (const auto& w : d.warnings) spdlog::warn("{}: {}", args.input, w);
  const int unreachable = report["totals"]["unreachable_frames"].get<int>();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  spdlog::info("{} -> {}: {} frames at {:g} fps, unit {} ({}), legs by {}, body {:+.3f}..{:+.3f} m, pelvis drop <= {:.3f} m, "
               "{} unreachable frame(s), {:.0f} ms",
               args.input, output.string(), d.frames, d.fps, clip.unit_name, clip.unit_source, rig.method,
               d.min_body_rise_m, d.max_body_rise_m, d.max_pelvis_drop_m, unreachable, ms);

  const auto failed = failed_conditions(conditions, report);
  for (const auto& f : failed) spdlog::error("{}: --fail-on condition held: {}", args.input, f);
  return failed.empty() ? kExitOk : kExitFailOn;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Fix one clip's feet onto a terrain mesh and write the corrected clip");
  cmd->add_option("clip", args->input, "Input clip (.bvh)")->required();
  cmd->add_option("--terrain", args->terrain, "Terrain mesh (any format Assimp reads; OBJ is common)")->required();
  cmd->add_option("-o,--output", args->output, "Output clip (default: CLIP.ikfix.EXT beside the input)");
  cmd->add_option("--report", args->report, "Write a JSON report here");
  cmd->add_flag("--in-place", args->in_place, "Overwrite the input clip");
  add_clip_options(*cmd, args->clip);
  cmd->add_option("--terrain-unit", args->terrain_unit, "Length unit of the terrain (default m)");
  cmd->add_option("--terrain-up", args->terrain_up, "Up axis of the terrain: y or z (default y)")
      ->check(CLI::IsMember({"y", "z"}));
  cmd->add_option("--terrain-offset", args->terrain_offset, "Move the terrain by X Y Z metres")->expected(3);
  cmd->add_option("--solver", args->solver, "Leg solver: fabrik (default), ccd or two-bone")
      ->check(CLI::IsMember({"fabrik", "ccd", "two-bone"}));
  cmd->add_option("--weight", args->weight, "Blend between input (0) and full fix (1)")->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--max-pelvis-drop", args->max_pelvis_drop, "Pelvis drop limit, fraction of leg length (default 0.35)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--floor", args->floor, "Height of the clip's own floor, metres (default: detected)");
  cmd->add_flag("--no-align-feet", args->no_align_feet, "Do not turn planted feet to the ground normal");
  cmd->add_option("--fail-on", args->fail_on,
                  "Exit 1 when a condition holds: unreachable[>N], shortfall>M (metres), pelvis-limit[>N]");
  cmd->callback([args, &exit_code] {
    try {
      exit_code = run(*args);
    } catch (const io::InputError& e) {
      spdlog::error("{}", e.what());
      exit_code = kExitBadInput;
    } catch (const std::invalid_argument& e) {
      spdlog::error("{}", e.what());
      exit_code = kExitBadInput;
    } catch (const std::exception& e) {
      spdlog::error("{}: {}", args->input, e.what());
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace ikfix::cli
