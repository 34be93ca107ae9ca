#include "cli/cmd_retarget.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>
#include <memory>

#include "cli/clip_options.hpp"
#include "cli/command_files.hpp"
#include "cli/command_guard.hpp"
#include "cli/exit_codes.hpp"
#include "cli/fail_on.hpp"
#include "cli/fix_job.hpp"
#include "cli/fix_options.hpp"
#include "cli/retarget_job.hpp"
#include "io/error.hpp"
#include "io/output_set.hpp"
#include "io/report_json.hpp"
#include "io/temp_files.hpp"

namespace ikfix::cli {
namespace {

namespace fs = std::filesystem;

struct RetargetArgs {
  std::string input;
  RetargetOptions retarget;
  std::string output;
  std::string report;
  std::string html;
  ClipOptions clip;
  TerrainOptions terrain;
  FixOptions fix;
  std::string fail_on;
};

int retarget(const RetargetArgs& args) {
  const auto started = std::chrono::steady_clock::now();
  const auto conditions = parse_fail_on(args.fail_on);
  RetargetJob job;
  job.input = args.input;
  job.output = args.output.empty() ? default_retarget_output(args.input, args.retarget.target)
                                   : fs::path(args.output);
  if (same_file(job.output, job.input) || same_file(job.output, args.retarget.target))
    throw std::invalid_argument("output " + job.output.string() +
                                " would overwrite an input; choose another -o");
  job.html = args.html;
  for (const fs::path& file : {job.output, job.input, fs::path(args.retarget.target)})
    if (!job.html.empty() && same_file(job.html, file))
      throw std::invalid_argument("--html " + job.html.string() + " is " + file.string() +
                                  "; choose another file");
  job.clip = args.clip;
  job.retarget = args.retarget;
  job.fix = args.fix;
  job.terrain_path = args.terrain.path;
  io::OutputSet files;
  add_clip_command_inputs(files, {args.input, "", args.clip.contacts, args.terrain.path,
                                  args.retarget.target, args.retarget.map});
  files.add_output(job.output, "-o");
  files.add_output(args.report, "--report");
  files.add_output(args.html, "--html");
  io::remove_temp_files_on_signals();
  job.terrain = args.terrain.path.empty() ? nullptr : &load_terrain_for_process(args.terrain);

  io::OutputTransaction outputs;  // the clip and the report: both in place, or neither
  const RetargetJobResult result = run_retarget_job(job);
  if (!args.report.empty()) io::save_json(args.report, result.report);
  outputs.commit();
  for (const auto& w : result.warnings) spdlog::warn("{}: {}", args.input, w);

  const auto& r = result.report;
  const auto& rt = r["retarget"];
  const auto& feet = rt["quality"]["final"]["feet_at_source_contacts"];
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  spdlog::info(
      "{} -> {} ({}): {} frames, {} bones mapped, scale {:.3f}, feet at contacts: slide {:.4f} "
      "m/s, "
      "float {:.4f} m, penetration {:.4f} m; {} unreachable frame(s), {:.0f} ms",
      args.input, job.output.string(), args.retarget.target, r["frames"].get<int>(),
      rt["map"].size(), rt["scale"]["horizontal"].get<double>(),
      feet["slide_mean_mps"].get<double>(), feet["float_mean_m"].get<double>(),
      feet["penetration_max_m"].get<double>(), r["totals"]["unreachable_frames"].get<int>(), ms);
  const auto failed = failed_conditions(conditions, r);
  for (const auto& f : failed) spdlog::error("{}: --fail-on condition held: {}", args.input, f);
  return failed.empty() ? kExitOk : kExitFailOn;
}

}  // namespace

void add_retarget_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RetargetArgs>();
  CLI::App* cmd = app.add_subcommand("retarget",
                                     "Put a clip's motion on another character (bones mapped "
                                     "automatically), feet planted on a terrain");
  cmd->add_option("clip", args->input, "Source clip (BVH, FBX, glTF/GLB, ...)")->required();
  add_retarget_options(*cmd, args->retarget);
  cmd->add_option(
      "-o,--output", args->output,
      "Output file: the character's format adds a take (FBX, glTF) or writes its hierarchy (BVH); "
      ".bvh writes a BVH of the character's skeleton. Default: SOURCE_on_CHARACTER.<character's "
      "extension> "
      "beside the source");
  cmd->add_option("--report", args->report,
                  "Write a JSON report here (map, scales, rest alignment, quality)");
  cmd->add_option("--html", args->html,
                  "Write an HTML report here: the source and the character in 3D, plots, summary");
  add_terrain_options(*cmd, args->terrain, false);
  add_clip_options(*cmd, args->clip);
  add_fix_options(*cmd, args->fix);
  add_verify_assimp_option(*cmd);
  cmd->add_option(
      "--fail-on", args->fail_on,
      "Exit 1 when a condition holds on the output, e.g. \"slide>0.01,unreachable\" (as for run)");
  cmd->callback([args, &exit_code] {
    exit_code = run_guarded(args->input, [&] { return retarget(*args); });
  });
}

}  // namespace ikfix::cli
