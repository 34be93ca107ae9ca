#include "cli/cmd_check.hpp"

#include <spdlog/spdlog.h>

#include <memory>
#include <string>

#include "cli/command_files.hpp"
#include "cli/command_guard.hpp"
#include "cli/exit_codes.hpp"
#include "cli/fail_on.hpp"
#include "cli/fix_job.hpp"
#include "cli/thread_option.hpp"
#include "io/error.hpp"
#include "io/output_set.hpp"
#include "io/report_json.hpp"
#include "io/temp_files.hpp"

namespace ikfix::cli {
namespace {

struct CheckArgs {
  std::string input;
  std::string report;
  ClipOptions clip;
  TerrainOptions terrain;
  FixOptions fix;
  std::string fail_on;
  std::string contacts_out;
  std::string html;
  int threads = 0;  // --threads
};

int check(const CheckArgs& args) {
  const auto conditions = parse_fail_on(args.fail_on);
  FixJob job;
  job.input = args.input;
  job.clip = args.clip;
  job.fix = args.fix;
  job.contacts_out = args.contacts_out;
  job.terrain_path = args.terrain.path;
  job.html = args.html;
  io::OutputSet files;
  ClipCommandInputs inputs;
  inputs.clip = args.input;
  inputs.contacts = job.clip.contacts;
  inputs.terrain = args.terrain.path;
  add_clip_command_inputs(files, inputs);
  files.add_output(args.report, "--report");
  files.add_output(args.contacts_out, "--contacts-out");
  files.add_output(args.html, "--html");
  io::remove_temp_files_on_signals();
  job.runner = thread_pool_for_process(args.threads);
  start_terrain(job, args.terrain, args.threads);
  io::OutputTransaction outputs;  // the contacts and the report: both in place, or neither
  const FixJobResult result = run_check_job(job);
  if (!args.report.empty()) io::save_json(args.report, result.report);
  outputs.commit();
  for (const auto& w : result.warnings) spdlog::warn("{}: {}", args.input, w);
  const auto& m = result.report["metrics"];
  const auto& t = result.report["totals"];
  const auto& foot = m["foot_penetration"]["nearest"];
  const std::string deepest = foot["frame"].get<int>() < 0
                                  ? std::string("none inside")
                                  : foot["leg"].get<std::string>() + " " +
                                        foot["point"].get<std::string>() + "@" +
                                        std::to_string(foot["frame"].get<int>());
  spdlog::info(
      "{}: penetration max {:.4f} m (frame {}), planted {:.4f} m, foot point depth max {:.4f} m "
      "({}), slide mean {:.4f} max {:.4f} m/s, "
      "float mean {:.4f} m, bone length change {:.2g}, {} unreachable frame(s)",
      args.input, m["penetration"]["max_m"].get<double>(), m["penetration"]["frame"].get<int>(),
      m["planted_penetration"]["max_m"].get<double>(), foot["max_m"].get<double>(), deepest,
      m["slide"]["mean_mps"].get<double>(), m["slide"]["max_mps"].get<double>(),
      m["float"]["mean_m"].get<double>(), m["bone_length_change"]["max"].get<double>(),
      t["unreachable_frames"].get<int>());
  const auto failed = failed_conditions(conditions, result.report);
  for (const auto& f : failed) spdlog::error("{}: --fail-on condition held: {}", args.input, f);
  return failed.empty() ? kExitOk : kExitFailOn;
}

}  // namespace

void add_check_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd =
      app.add_subcommand("check", "Measure a clip against a terrain without changing it");
  cmd->add_option("clip", args->input, "Clip to measure")->required();
  add_terrain_options(*cmd, args->terrain);
  cmd->add_option("--report", args->report, "Write a JSON report here");
  add_clip_options(*cmd, args->clip);
  add_contacts_option(*cmd, args->clip);
  cmd->add_option(
      "--contacts-out", args->contacts_out,
      "Write the foot contacts a fix would use as JSON, to edit and pass to run with --contacts");
  cmd->add_option("--html", args->html,
                  "Write an HTML report here: the clip as it is against what run would make of it");
  add_fix_options(*cmd, args->fix);
  add_threads_option(*cmd, args->threads);
  cmd->add_option(
      "--fail-on", args->fail_on,
      "Exit 1 when a condition holds, e.g. \"penetration>0.005,slide>0.01,unreachable\" "
      "(see cli/REFERENCE.md: --fail-on)");
  cmd->callback(
      [args, &exit_code] { exit_code = run_guarded(args->input, [&] { return check(*args); }); });
}

}  // namespace ikfix::cli
