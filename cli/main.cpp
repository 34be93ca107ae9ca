// ikfix: puts the feet of animation clips on real terrain. Parses arguments, sets up logging
// and dispatches to one file per command.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

#include "cli/clip_options.hpp"
#include "cli/cmd_batch.hpp"
#include "cli/cmd_check.hpp"
#include "cli/cmd_inspect.hpp"
#include "cli/cmd_map.hpp"
#include "cli/cmd_report.hpp"
#include "cli/cmd_retarget.hpp"
#include "cli/cmd_run.hpp"
#include "cli/cmd_terrain.hpp"
#include "cli/exit_codes.hpp"
#include "cli/heap_setup.hpp"
#include "io/assimp/import_process.hpp"
#include "io/clip_facts.hpp"
#include "io/memory_budget.hpp"

namespace {

// The command argv names, when it is known before parsing: the first argument that is not an
// option, since every option before the command is a flag (none takes a value). Empty when
// there is none or after "--".
std::string_view named_command(int argc, char** argv) {
  for (int n = 1; n < argc; ++n) {
    const std::string_view arg(argv[n]);
    if (arg == "--") return {};
    if (arg.empty() || arg[0] != '-') return arg;
  }
  return {};
}

using AddCommand = void (*)(CLI::App&, int&);
constexpr std::pair<std::string_view, AddCommand> kCommands[] = {
    {"run", ikfix::cli::add_run_command},         {"check", ikfix::cli::add_check_command},
    {"inspect", ikfix::cli::add_inspect_command}, {"terrain", ikfix::cli::add_terrain_command},
    {"batch", ikfix::cli::add_batch_command},     {"report", ikfix::cli::add_report_command},
    {"map", ikfix::cli::add_map_command},         {"retarget", ikfix::cli::add_retarget_command}};

bool is_command(std::string_view named) {
  for (const auto& command : kCommands)
    if (command.first == named) return true;
  return false;
}

// "run, check, ... and retarget".
std::string command_list() {
  std::string list;
  const std::size_t count = std::size(kCommands);
  for (std::size_t n = 0; n < count; ++n)
    list += std::string(n == 0           ? ""
                        : n + 1 == count ? " and "
                                         : ", ") +
            std::string(kCommands[n].first);
  return list;
}

// Whether a flag before the command asks for help or the version (CLI11 answers those first).
bool asks_help_or_version(int argc, char** argv) {
  for (int n = 1; n < argc && argv[n][0] == '-'; ++n) {
    const std::string_view arg(argv[n]);
    if (arg == "-h" || arg == "--help" || arg == "--version") return true;
  }
  return false;
}

// Adds the command `named` alone when it is one of ikfix's (its options are all one command
// parses: building the others' is wasted), else every command (help, errors).
void add_commands(CLI::App& app, int& exit_code, std::string_view named) {
  for (const auto& [name, add] : kCommands)
    if (name == named) return add(app, exit_code);
  for (const auto& [name, add] : kCommands) add(app, exit_code);
}

}  // namespace

int main(int argc, char** argv) {
  // A child started to import one file through Assimp (io/assimp/import_process.hpp): nothing
  // of the CLI, not even the heap set-up, runs there.
  if (argc >= 2 && std::string_view(argv[1]) == ikfix::io::assimp::kImportChildArgument)
    return ikfix::io::assimp::serve_import_child();
  ikfix::io::assimp::run_imports_in("/proc/self/exe");  // every Assimp import in a child of ours
  ikfix::cli::set_up_heap_for_large_blocks(named_command(argc, argv) != "batch");
  ikfix::io::set_max_joints(ikfix::cli::kDefaultMaxJoints);           // --max-joints changes it
  ikfix::io::set_memory_budget(ikfix::cli::default_memory_budget());  // --max-memory changes it
  // Logs go to stderr so stdout stays clean for machine-readable output (inspect --json).
  auto logger = spdlog::stderr_color_mt("ikfix");
  logger->set_pattern("%^%l%$: %v");
  spdlog::set_default_logger(logger);

  CLI::App app{
      "ikfix: fix animation clips' feet onto terrain (BVH, FBX, glTF in; the same format patched "
      "out; JSON reports)",
      "ikfix"};
  app.set_version_flag("--version", std::string("ikfix ") + IKFIX_VERSION);
  app.require_subcommand(1);
  bool quiet = false, verbose = false;
  app.add_flag("-q,--quiet", quiet, "Only errors");
  app.add_flag("-v,--verbose", verbose, "More detail");
  app.parse_complete_callback([&] {
    if (quiet) spdlog::set_level(spdlog::level::err);
    if (verbose) spdlog::set_level(spdlog::level::debug);
  });

  int exit_code = ikfix::cli::kExitOk;
  const std::string_view named = named_command(argc, argv);
  if (!named.empty() && !is_command(named) && !asks_help_or_version(argc, argv)) {
    // CLI11 would say only that a command is required: name the word it did not know.
    spdlog::error("unknown command '{}': the commands are {} (see 'ikfix --help')", named,
                  command_list());
    return ikfix::cli::kExitBadInput;
  }
  add_commands(app, exit_code, named);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line naming the problem; usage errors are exit code 2 for every command.
    spdlog::error("{} (see 'ikfix --help')", e.what());
    return ikfix::cli::kExitBadInput;
  }
  return exit_code;
}
