#include "cli/cmd_report.hpp"

#include <spdlog/spdlog.h>

#include <memory>

#include "cli/batch_report.hpp"
#include "cli/exit_codes.hpp"
#include "cli/html_index.hpp"
#include "cli/junit.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/output_set.hpp"
#include "io/temp_files.hpp"

namespace ikfix::cli {
namespace {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string output;
  std::string junit;
  std::string html_dir;
};

int merge(const MergeArgs& args) {
  io::OutputSet files;
  for (const std::string& input : args.inputs) files.add_input(input, "shard report");
  files.add_output(args.output, "-o");
  files.add_output(args.junit, "--junit");
  if (!args.html_dir.empty())
    files.add_output(std::filesystem::path(args.html_dir) / "index.html", "--html-dir");
  io::remove_temp_files_on_signals();
  std::vector<std::string> warnings;
  const BatchReport merged = merge_batch_reports(args.inputs, warnings);
  for (const auto& w : warnings) spdlog::warn("report merge: {}", w);
  io::OutputTransaction outputs;  // the report and the JUnit file: both in place, or neither
  save_batch_report(args.output, merged);
  if (!args.junit.empty()) io::write_file_atomic(args.junit, junit_xml(merged));
  if (!args.html_dir.empty()) write_html_index(args.html_dir, merged);
  outputs.commit();
  const Json& t = merged.head["totals"];
  spdlog::info(
      "report merge: {} report(s), {} clip(s): {} fixed, {} failed, {} not done, {} with "
      "unreachable frames -> {}",
      args.inputs.size(), t["clips"].get<long>(), t["ok"].get<long>(), t["errors"].get<long>(),
      t["not_done"].get<long>(), t["clips_with_unreachable"].get<long>(), args.output);
  if (batch_passed(merged)) return kExitOk;
  spdlog::error(
      "report merge: the batch did not pass ({} clip(s) with --fail-on held, {} failed, {} not "
      "done)",
      t["clips_fail_on_held"].get<long>(), t["errors"].get<long>(), t["not_done"].get<long>());
  return kExitFailOn;
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  CLI::App* report = app.add_subcommand("report", "Work on batch reports");
  report->require_subcommand(1);
  auto args = std::make_shared<MergeArgs>();
  CLI::App* cmd = report->add_subcommand("merge",
                                         "Join batch reports (e.g. one per --shard) into the "
                                         "report one batch over all their clips writes");
  cmd->add_option("reports", args->inputs, "Batch reports to join")->required();
  cmd->add_option("-o,--output", args->output, "Merged report (JSON)")->required();
  cmd->add_option("--junit", args->junit, "Also write JUnit XML for the merged batch here");
  cmd->add_option("--html-dir", args->html_dir,
                  "Also write the HTML index here (links the clip pages the shards' batch "
                  "--html-dir wrote into the same folder)");
  cmd->callback([args, &exit_code] {
    try {
      exit_code = merge(*args);
    } catch (const io::InputError& e) {
      spdlog::error("{}", e.what());
      exit_code = kExitBadInput;
    } catch (const std::exception& e) {
      spdlog::error("report merge: {}", e.what());
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace ikfix::cli
