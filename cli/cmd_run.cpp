#include "cli/cmd_run.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>
#include <memory>

#include "cli/clip_config.hpp"
#include "cli/command_files.hpp"
#include "cli/command_guard.hpp"
#include "cli/exit_codes.hpp"
#include "cli/fail_on.hpp"
#include "cli/fix_job.hpp"
#include "cli/phase_times.hpp"
#include "cli/thread_option.hpp"
#include "io/error.hpp"
#include "io/output_set.hpp"
#include "io/report_json.hpp"
#include "io/temp_files.hpp"

namespace ikfix::cli {
namespace {

namespace fs = std::filesystem;

struct RunArgs {
  std::string input;
  std::string output;
  std::string report;
  bool in_place = false;
  ClipOptions clip;
  TerrainOptions terrain;
  FixOptions fix;
  std::string config;
  std::string fail_on;
  std::string contacts_out;
  std::string html;
  int threads = 0;  // --threads
};

int run(const RunArgs& args) {
  const auto started = std::chrono::steady_clock::now();
  PhaseTimes times;
  const auto conditions = parse_fail_on(args.fail_on);  // invalid_argument -> exit 2 below

  FixJob job;
  job.input = args.input;
  job.output = args.in_place         ? fs::path(args.input)
               : args.output.empty() ? default_output(args.input)
                                     : fs::path(args.output);
  job.in_place = args.in_place;
  const ClipSettings settings = settings_for_clip(args.input, args.clip, args.config);
  job.clip = settings.clip;
  job.terrain_offset = settings.terrain_offset;
  job.fix = args.fix;
  job.terrain_path = args.terrain.path;
  job.contacts_out = args.contacts_out;
  // Metrics are for the report and for --fail-on conditions on them; the summary line needs none.
  // --html: the page's summary shows the metrics too.
  job.measure = !args.report.empty() || needs_metrics(conditions) || !args.html.empty();
  job.html = args.html;
  if (!args.in_place && same_file(job.output, job.input))
    throw std::invalid_argument("output " + job.output.string() +
                                " is the input; pass --in-place to overwrite it");
  io::OutputSet files;
  ClipCommandInputs inputs;
  inputs.clip = args.input;
  inputs.config = args.config;
  inputs.contacts = job.clip.contacts;
  inputs.terrain = args.terrain.path;
  add_clip_command_inputs(files, inputs);
  files.add_output(job.output, args.in_place ? "--in-place" : "-o", args.in_place);
  files.add_output(args.report, "--report");
  files.add_output(args.contacts_out, "--contacts-out");
  files.add_output(args.html, "--html");
  io::remove_temp_files_on_signals();
  // One pool per run, shared by the clip's read, the terrain's, the fix and the write.
  job.runner = thread_pool_for_process(args.threads);
  start_terrain(job, args.terrain, args.threads);
  times.mark("setup");
  job.times = &times;

  io::OutputTransaction outputs;  // the clip, contacts and report: all in place, or none
  const FixJobResult result = run_fix_job(job);
  if (!args.report.empty()) {
    io::save_json(args.report, result.report);
    times.mark("report");
  }
  outputs.commit();
  spdlog::debug("{}: {}", args.input, times.summary());
  for (const auto& w : result.warnings) spdlog::warn("{}: {}", args.input, w);

  const auto& r = result.report;
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  spdlog::info(
      "{} -> {}: {} frames at {:g} fps, unit {} ({}), legs by {}, body {:+.3f}..{:+.3f} m, "
      "pelvis drop <= {:.3f} m, {} unreachable frame(s), {:.0f} ms",
      args.input, job.output.string(), r["frames"].get<int>(), r["fps"].get<double>(),
      r["unit"]["name"].get<std::string>(), r["unit"]["source"].get<std::string>(),
      r["legs"]["method"].get<std::string>(), r["body"]["min_rise_m"].get<double>(),
      r["body"]["max_rise_m"].get<double>(), r["body"]["max_pelvis_drop_m"].get<double>(),
      r["totals"]["unreachable_frames"].get<int>(), ms);
  if (r.contains("takes"))  // --take all: the line above is the first take's, unreachable summed
    for (const auto& t : r["takes"])
      spdlog::info("  take {} '{}': {} frames, {} unreachable frame(s)",
                   t["take"]["index"].get<int>(), t["take"]["name"].get<std::string>(),
                   t["frames"].get<int>(), t["totals"]["unreachable_frames"].get<int>());

  const auto failed = failed_conditions(conditions, r);
  for (const auto& f : failed) spdlog::error("{}: --fail-on condition held: {}", args.input, f);
  return failed.empty() ? kExitOk : kExitFailOn;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Fix one clip's feet onto a terrain mesh and write the corrected clip");
  cmd->add_option("clip", args->input, "Input clip (.bvh, .fbx, .glb/.gltf; .dae read-only)")
      ->required();
  add_terrain_options(*cmd, args->terrain);
  cmd->add_option("-o,--output", args->output,
                  "Output clip (default: CLIP.ikfix.EXT beside the input)");
  cmd->add_option("--report", args->report, "Write a JSON report here");
  cmd->add_option("--html", args->html,
                  "Write an HTML report here: 3D before/after viewer, timeline, plots, summary");
  cmd->add_flag("--in-place", args->in_place, "Overwrite the input clip");
  add_clip_options(*cmd, args->clip);
  add_contacts_option(*cmd, args->clip);
  cmd->add_option(
      "--contacts-out", args->contacts_out,
      "Write the foot contacts the fix used as JSON (edit and pass back with --contacts)");
  add_fix_options(*cmd, args->fix);
  add_verify_assimp_option(*cmd);
  add_threads_option(*cmd, args->threads);
  cmd->add_option("--config", args->config,
                  "Clip settings as JSON (legs, clip_unit, clip_up, take, terrain_offset, "
                  "contacts); CLIP.ikfix.json "
                  "beside the clip is read too and wins");
  cmd->add_option("--fail-on", args->fail_on,
                  "Exit 1 when a condition holds, e.g. \"unreachable,penetration>0.005\" (see "
                  "cli/REFERENCE.md: --fail-on)");
  cmd->callback(
      [args, &exit_code] { exit_code = run_guarded(args->input, [&] { return run(*args); }); });
}

}  // namespace ikfix::cli
