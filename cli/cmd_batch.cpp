#include "cli/cmd_batch.hpp"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "cli/batch_inputs.hpp"
#include "cli/batch_report.hpp"
#include "cli/clip_config.hpp"
#include "cli/command_files.hpp"
#include "cli/command_guard.hpp"
#include "cli/exit_codes.hpp"
#include "cli/fail_on.hpp"
#include "cli/fix_job.hpp"
#include "cli/html_index.hpp"
#include "cli/junit.hpp"
#include "cli/progress.hpp"
#include "cli/retarget_job.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/mapped_file.hpp"
#include "io/memory_budget.hpp"
#include "io/output_set.hpp"
#include "io/report_json.hpp"
#include "io/temp_files.hpp"

namespace ikfix::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Per-clip state for --resume, under the output folder: <out-dir>/.ikfix-batch/<relative>.json.
constexpr const char* kStateDir = ".ikfix-batch";

struct BatchArgs {
  std::vector<std::string> inputs;
  std::string out_dir;
  std::string report;
  std::string junit;
  std::string html_dir;  // --html-dir: index.html, clips/*.html, assets/ (cli/html_index.hpp)
  std::string fail_on;
  std::string shard;
  int jobs = 0;
  bool resume = false;
  bool check_only = false;   // measure each clip as `ikfix check` does; write no clips
  std::string config;        // --config: clip settings JSON for every clip (a clip's sidecar wins)
  std::string format;        // --format: output extension (empty: each input's own)
  RetargetOptions retarget;  // --to CHARACTER: every clip retargeted onto it (see retarget_job.hpp)
  bool allow_errors = false;
  bool quiet = false;
  ClipOptions clip;
  TerrainOptions terrain;
  FixOptions fix;
  std::string settings_text;  // settings_text() of the command line
};

// ---- Ctrl-C. The one global besides the logger: a signal handler can reach nothing else. ----

std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

// The first signal asks the batch to stop taking clips; a second one removes the temp files of the
// clips still being written and ends the process at once, by that signal.
void on_stop_signal(int signo) {
  if (g_stop_signal.exchange(signo) == 0) return;
  io::remove_temp_files_now();
  signal(signo, SIG_DFL);
  raise(signo);
}

// Installs the SIGINT/SIGTERM handler for the life of a batch (see on_stop_signal).
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal.store(0);
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// ---- Settings ----

// --fail-on for a batch: the per-clip conditions of `run`, plus `errors[>N]` (more than N clips
// failed). Without `errors`, any failed clip fails the batch unless --allow-errors.
struct BatchConditions {
  std::vector<FailCondition> clip;
  long errors_limit = 0;  // -1: failed clips never fail the batch
};

BatchConditions parse_batch_fail_on(const std::string& text, bool allow_errors) {
  BatchConditions out;
  bool explicit_errors = false;
  std::string rest;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    start = comma + 1;
    if (item == "errors" || item.rfind("errors>", 0) == 0) {
      explicit_errors = true;
      out.errors_limit = 0;
      if (item.size() > 6) {
        const std::string number = item.substr(7);
        char* end = nullptr;
        const long v = std::strtol(number.c_str(), &end, 10);
        if (number.empty() || *end != '\0' || v < 0)
          throw std::invalid_argument("--fail-on: '" + item +
                                      "' needs a whole number of clips after '>'");
        out.errors_limit = v;
      }
    } else if (!item.empty()) {
      rest += (rest.empty() ? "" : ",") + item;
    }
  }
  try {
    out.clip = parse_fail_on(rest);
  } catch (const std::invalid_argument& e) {
    std::string message = e.what();
    if (const auto at = message.find("(known: "); at != std::string::npos)
      message.insert(at + 8, "errors[>N], ");
    else
      message += " (batch also knows errors[>N])";
    throw std::invalid_argument(message);
  }
  if (!explicit_errors) out.errors_limit = allow_errors ? -1 : 0;
  return out;
}

// FNV-1a, 64 bits: enough to tell settings apart; not a security hash.
class Fnv1a {
 public:
  void add(std::string_view bytes) {
    add_bytes(bytes);
    end_field();
  }
  // The bytes of the file at `path` as one field, the same as add(io::read_file(path)), read a
  // block at a time: a level's terrain is hundreds of MB, never held whole. Throws InputError
  // naming the file when it cannot be read.
  void add_file(const fs::path& path) {
    constexpr std::size_t kBlockBytes = std::size_t{1} << 20;
    const io::MappedFile file(path);
    const std::size_t size = file.text().size();
    const auto block =
        std::make_unique<char[]>(std::min(kBlockBytes, std::max<std::size_t>(size, 1)));
    for (std::size_t at = 0; at < size;) {
      const std::size_t bytes = std::min(kBlockBytes, size - at);
      if (!file.copy(at, block.get(), bytes))
        throw io::InputError(path.string(), "cannot read: the file changed while read");
      add_bytes({block.get(), bytes});
      at += bytes;
    }
    end_field();
  }
  std::string hex() const {
    char buffer[24];
    std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash_));
    return buffer;
  }

 private:
  void add_bytes(std::string_view bytes) {
    for (const unsigned char c : bytes) {
      hash_ ^= c;
      hash_ *= 0x100000001b3ULL;
    }
  }
  void end_field() {
    hash_ ^= 0xff;  // field separator
    hash_ *= 0x100000001b3ULL;
  }

  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

// Everything that changes an output: the tool version, the terrain's bytes, and every option the
// user set except those that only say what to run and where (so a fix option added to
// add_fix_options/add_clip_options/add_terrain_options later is covered without a change here).
// Paths are left out: moving the library or the terrain keeps --resume working.
const char* const kRunOnlyOptions[] = {
    "inputs",    "--out-dir", "--jobs",          "--shard",      "--report",
    "--junit",   "--fail-on", "--allow-errors",  "--resume",     "--quiet",
    "--terrain", "--help",    "--verify-assimp", "--max-memory", "--assimp-timeout"};

std::string settings_text(const CLI::App& cmd) {
  std::string text;
  for (const CLI::Option* option : cmd.get_options()) {
    if (option->count() == 0) continue;
    const std::string name = option->get_name();
    if (std::find(std::begin(kRunOnlyOptions), std::end(kRunOnlyOptions), name) !=
        std::end(kRunOnlyOptions))
      continue;
    text += name;
    for (const auto& value : option->results()) text += " " + value;
    text += "\n";
  }
  return text;
}

std::string settings_hash(const BatchArgs& a) {
  Fnv1a h;
  h.add("ikfix " IKFIX_VERSION);
  h.add_file(a.terrain.path);
  h.add(a.settings_text);
  if (!a.config.empty()) h.add(io::read_file(a.config));  // --config's contents, not just its path
  if (!a.retarget.target.empty())
    h.add(io::read_file(a.retarget.target));  // the character, likewise
  if (!a.retarget.map.empty()) h.add(io::read_file(a.retarget.map));
  return "fnv1a64:" + h.hex();
}

// Creates the folder if needed; throws std::invalid_argument (exit 2) when it cannot be written.
void require_writable_folder(const fs::path& folder, const std::string& what) {
  std::error_code ec;
  const fs::path dir = folder.empty() ? fs::path(".") : folder;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir))
    throw std::invalid_argument(what + " " + dir.string() + ": cannot create the folder" +
                                (ec ? ": " + ec.message() : std::string()));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw std::invalid_argument(what + " " + dir.string() + ": not writable");
}

std::string one_line(const std::string& s) { return escape_controls(s); }

// ---- The batch ----

// What a worker leaves for one clip: its report entry (summary + compact report text; the JSON
// tree is dropped as soon as the clip is done), or nothing when it was not done.
struct Outcome {
  bool done = false;
  ClipEntry entry;
  bool resumed = false;
  double seconds = 0;
};

class Batch {
 public:
  Batch(const BatchArgs& args, const BatchConditions& conditions, std::vector<BatchClip> clips,
        const core::Terrain& terrain, std::string hash, bool show_progress)
      : args_(args),
        conditions_(conditions),
        clips_(std::move(clips)),
        terrain_(terrain),
        hash_(std::move(hash)),
        outcomes_(clips_.size()),
        progress_(static_cast<long>(clips_.size()), total_bytes(clips_), show_progress) {}

  // Runs `jobs` workers over the clips, largest first (so the last clip to finish is a small one);
  // returns when all are done or, after a stop signal, when the running ones are.
  void run(int jobs) {
    schedule_.resize(clips_.size());
    for (std::size_t i = 0; i < schedule_.size(); ++i) schedule_[i] = i;
    std::stable_sort(schedule_.begin(), schedule_.end(),
                     [&](std::size_t a, std::size_t b) { return clips_[a].size > clips_[b].size; });
    std::vector<std::thread> workers;
    for (int j = 0; j < jobs; ++j) workers.emplace_back([this] { work(); });
    bool announced = false;
    {
      std::unique_lock lock(mutex_);
      while (running_workers_done_ < jobs) {
        done_cv_.wait_for(lock, std::chrono::milliseconds(100));
        lock.unlock();
        progress_.tick();
        if (!announced && g_stop_signal.load() != 0) {
          announced = true;
          progress_.log([] {
            spdlog::warn("interrupted: finishing the clips in progress, taking no new ones");
          });
        }
        lock.lock();
      }
    }
    for (auto& w : workers) w.join();
    progress_.finish();
  }

  // Moves the entries out (call once, after run); clips not done get a "not_done" entry.
  std::vector<ClipEntry> take_entries() {
    std::vector<ClipEntry> out;
    out.reserve(clips_.size());
    for (std::size_t i = 0; i < clips_.size(); ++i) {
      Outcome& o = outcomes_[i];
      out.push_back(o.done ? std::move(o.entry)
                           : clip_entry(clips_[i].input.string(), output_path(clips_[i]).string(),
                                        ClipStatus::NotDone, "", nullptr, {}));
    }
    return out;
  }

  double clip_seconds() const {
    double s = 0;
    for (const auto& o : outcomes_) s += o.seconds;
    return s;
  }
  long resumed() const {
    return static_cast<long>(std::count_if(outcomes_.begin(), outcomes_.end(),
                                           [](const Outcome& o) { return o.resumed; }));
  }

 private:
  static std::uintmax_t total_bytes(const std::vector<BatchClip>& clips) {
    std::uintmax_t n = 0;
    for (const auto& c : clips) n += c.size;
    return n;
  }

  fs::path output_path(const BatchClip& c) const {
    return (fs::path(args_.out_dir) / c.relative).lexically_normal();
  }
  fs::path state_path(const BatchClip& c) const {
    fs::path p = (fs::path(args_.out_dir) / kStateDir / c.relative).lexically_normal();
    p += ".json";
    return p;
  }

  void work() {
    while (g_stop_signal.load() == 0) {
      const std::size_t k = next_.fetch_add(1);
      if (k >= schedule_.size()) break;
      process(schedule_[k]);
    }
    std::lock_guard lock(mutex_);
    ++running_workers_done_;
    done_cv_.notify_all();
  }

  // The previous run's report when --resume may skip this clip: its output is newer than its
  // input and was written with the same settings to the same place.
  bool try_resume(const BatchClip& c, const fs::path& output, Json& report) const {
    std::error_code ec;
    const auto out_time = fs::last_write_time(output, ec);
    if (ec) return false;
    const auto in_time = fs::last_write_time(c.input, ec);
    if (ec || !(out_time > in_time)) return false;
    const auto sidecar = sidecar_config_path(c.input);
    if (fs::exists(sidecar, ec) && !(out_time > fs::last_write_time(sidecar, ec))) return false;
    try {  // an edited contacts file (named by the clip's config) must be fixed again
      const ClipSettings settings = settings_for_clip(c.input, args_.clip, args_.config);
      if (!settings.clip.contacts.empty() &&
          !(out_time > fs::last_write_time(settings.clip.contacts, ec)))
        return false;
    } catch (const std::exception&) {
      return false;
    }
    const auto out_size = fs::file_size(output, ec);
    if (ec) return false;
    try {
      Json state = Json::parse(io::read_file(state_path(c)));
      if (state.value("settings_hash", "") != hash_ ||
          state.value("input", "") != c.input.string() ||
          state.value("output_bytes", std::uintmax_t{0}) != out_size || !state.contains("report") ||
          state["report"].value("output", "") != output.string())
        return false;
      report = std::move(state["report"]);
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }

  // Runs `process_clip` (a fix) with its outputs as one transaction: in place only when it
  // succeeded and all of them could be put there.
  template <class ProcessClip>
  static void process_clip_outputs(ProcessClip& process_clip, ClipStatus& status,
                                   std::string& error) {
    io::OutputTransaction outputs;
    process_clip(false);
    if (status != ClipStatus::Ok) return;
    try {
      outputs.commit();
    } catch (const std::exception& e) {
      status = ClipStatus::Error;
      error = one_line(e.what());
    }
  }

  void process(std::size_t i) {
    const BatchClip& c = clips_[i];
    Outcome& o = outcomes_[i];
    const auto started = Clock::now();
    const fs::path output = output_path(c);
    const fs::path state = state_path(c);
    ClipStatus status = ClipStatus::Error;
    std::string error;
    Json report;
    std::vector<std::string> warnings;
    // One clip through run_fix_job or run_check_job; a failure is recorded, never thrown.
    auto process_clip = [&](bool check) {
      try {
        FixJob job;
        job.input = c.input;
        if (!check) job.output = output;
        job.terrain = &terrain_;
        job.terrain_path = args_.terrain.path;
        const ClipSettings settings = settings_for_clip(c.input, args_.clip, args_.config);
        job.clip = settings.clip;
        job.terrain_offset = settings.terrain_offset;
        job.fix = args_.fix;
        job.measure =
            true;  // the full report, as `run --report` writes it (--fail-on and --resume read it)
        if (!args_.html_dir.empty()) {
          job.html = fs::path(args_.html_dir) / html_page_name(c.input.string());
          job.html_assets_url = kHtmlPageAssetsUrl;
        }
        if (!args_.retarget.target.empty()) {
          RetargetJob rj;
          rj.input = c.input;
          rj.output = output;
          rj.terrain = &terrain_;
          rj.terrain_path = args_.terrain.path;
          rj.clip = settings.clip;
          rj.retarget = args_.retarget;
          rj.fix = args_.fix;
          RetargetJobResult result = run_retarget_job(rj);
          report = std::move(result.report);
          warnings = std::move(result.warnings);
          status = ClipStatus::Ok;
          return;
        }
        FixJobResult result = check ? run_check_job(job) : run_fix_job(job);
        report = std::move(result.report);
        warnings = std::move(result.warnings);
        status = ClipStatus::Ok;
      } catch (const std::exception& e) {
        error = one_line(e.what());
        if (error.find(c.input.string()) == std::string::npos)
          error = c.input.string() + ": " + error;
      }
    };
    if (args_.check_only) {
      process_clip(true);
    } else if (args_.resume && try_resume(c, output, report)) {
      o.resumed = true;
      status = ClipStatus::Ok;
    } else {
      std::error_code ec;
      fs::remove(state, ec);  // a stale state must never vouch for a new output
      process_clip_outputs(process_clip, status, error);
      if (status == ClipStatus::Ok) {
        try {
          std::error_code size_ec;
          const Json saved = {{"settings_hash", hash_},
                              {"input", c.input.string()},
                              {"output_bytes", fs::file_size(output, size_ec)},
                              {"report", report}};
          io::write_file_atomic(state, saved.dump() + "\n");
        } catch (const std::exception& e) {
          warnings.push_back(std::string("cannot save the --resume state: ") + e.what());
        }
      }
    }
    const bool ok = status == ClipStatus::Ok;
    const std::vector<std::string> held =
        ok ? failed_conditions(conditions_.clip, report) : std::vector<std::string>{};
    const long frames = ok ? report["frames"].get<long>() : 0;
    const int unreachable = ok ? report["totals"]["unreachable_frames"].get<int>() : 0;
    o.entry = clip_entry(c.input.string(), args_.check_only ? std::string() : output.string(),
                         status, error, report, held);
    o.done = true;
    o.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    progress_.clip_finished(frames, c.size, !ok);
    if (ok && held.empty() && !spdlog::should_log(spdlog::level::debug))
      return;  // nothing to print
    progress_.log([&] {
      const std::string name = c.input.string();
      if (!ok) {
        spdlog::error("{}", error);
        return;
      }
      for (const auto& w : warnings) spdlog::debug("{}: {}", name, w);
      for (const auto& h : held) spdlog::warn("{}: --fail-on condition held: {}", name, h);
      spdlog::debug("{} -> {}: {} frames, {} unreachable{}, {:.0f} ms", name, output.string(),
                    frames, unreachable, o.resumed ? " (resumed: unchanged)" : "", o.seconds * 1e3);
    });
  }

  const BatchArgs& args_;
  const BatchConditions& conditions_;
  const std::vector<BatchClip> clips_;
  const core::Terrain& terrain_;
  const std::string hash_;
  std::vector<Outcome>
      outcomes_;  // by index in clips_; each written by the one worker that took it
  std::vector<std::size_t> schedule_;
  std::atomic<std::size_t> next_{0};
  BatchProgress progress_;
  std::mutex mutex_;
  std::condition_variable done_cv_;
  int running_workers_done_ = 0;
};

// Every file the batch writes (clips, --report, --junit) against every file it reads (the whole
// library, sidecar configs, terrain, --config, --to, --map) and each other: exit 2 on a clash.
void check_batch_files(const BatchArgs& args, const std::vector<BatchClip>& library,
                       const std::vector<BatchClip>& clips) {
  io::OutputSet files;
  for (const BatchClip& c : library) {
    ClipCommandInputs clip;
    clip.clip = c.input;
    add_clip_command_inputs(files, clip);
  }
  add_clip_command_inputs(files, {"", args.config, args.clip.contacts, args.terrain.path,
                                  args.retarget.target, args.retarget.map});
  std::error_code ec;
  if (!args.check_only)
    for (const BatchClip& c : clips)
      if (fs::is_regular_file(c.input, ec))  // a folder or dangling link named *.bvh just fails
        files.add_output((fs::path(args.out_dir) / c.relative).lexically_normal(),
                         "the output of " + c.input.string());
  files.add_output(args.report, "--report");
  files.add_output(args.junit, "--junit");
  if (!args.html_dir.empty())
    files.add_output(fs::path(args.html_dir) / "index.html", "--html-dir");
}

// --resume: the temp files an interrupted batch left under --out-dir and beside its reports.
void remove_stale_temps(const BatchArgs& args) {
  int removed = args.out_dir.empty() ? 0 : io::remove_stale_temp_files(args.out_dir, true);
  for (const std::string& path : {args.report, args.junit})
    if (!path.empty()) {
      const fs::path parent = fs::path(path).parent_path();
      removed += io::remove_stale_temp_files(parent.empty() ? fs::path(".") : parent, false);
    }
  if (removed > 0) spdlog::info("batch: removed {} temp file(s) an interrupted run left", removed);
}

double round_ms(double seconds) { return std::round(seconds * 1e3) / 1e3; }

// Bad usage found before any clip is read: --jobs, --clip-unit, --config (a bad one is bad
// usage, not an error in every clip), and options that contradict --check-only.
void check_batch_usage(const BatchArgs& args) {
  if (args.jobs < 0) throw std::invalid_argument("--jobs: must be 0 (all cores) or more");
  (void)to_load_options(args.clip);
  if (!args.config.empty()) {
    ClipOptions probe = args.clip;
    std::vector<double> offset;
    apply_clip_config(args.config, probe, offset);
  }
  if (args.check_only && args.resume)
    throw std::invalid_argument("--resume has nothing to resume with --check-only");
  if (!args.check_only && args.out_dir.empty())
    throw std::invalid_argument("--out-dir is required (or --check-only)");
}

// The library the inputs name, with the output format of --format, or else of the --to
// character (or --format bvh: a BVH of its skeleton).
std::vector<BatchClip> batch_library(const BatchArgs& args) {
  std::vector<BatchClip> library = expand_batch_inputs(args.inputs, args.out_dir);
  if (library.empty()) throw std::invalid_argument("no clips found in the inputs given");
  if (!args.format.empty()) {
    if (args.check_only)
      throw std::invalid_argument("--format has nothing to write with --check-only");
    set_output_format(library, args.format);
  }
  if (!args.retarget.target.empty()) {
    if (args.check_only) throw std::invalid_argument("--to has nothing to write with --check-only");
    if (!std::filesystem::exists(args.retarget.target))
      throw io::InputError(args.retarget.target, "no such file");
    if (args.format.empty()) {
      std::string ext = fs::path(args.retarget.target).extension().string();
      std::transform(ext.begin(), ext.end(), ext.begin(),
                     [](unsigned char ch) { return std::tolower(ch); });
      set_output_format(library, ext.empty() ? ext : ext.substr(1));
    }
  }
  return library;
}

// Refuses outputs that would overwrite an input (of the whole `library`, not only the shard's
// `clips`) or each other, and folders that cannot be written; with --resume, removes stale temps.
void check_batch_outputs(const BatchArgs& args, const std::vector<BatchClip>& library,
                         const std::vector<BatchClip>& clips) {
  for (const auto& c : clips)
    if (!args.check_only && same_file((fs::path(args.out_dir) / c.relative), c.input))
      throw std::invalid_argument("--out-dir " + args.out_dir + " would overwrite the input " +
                                  c.input.string() + "; choose another folder");
  check_batch_files(args, library, clips);
  if (args.resume) remove_stale_temps(args);
  if (!args.check_only) require_writable_folder(args.out_dir, "--out-dir");
  if (!args.report.empty())
    require_writable_folder(fs::path(args.report).parent_path(), "--report");
  if (!args.junit.empty()) require_writable_folder(fs::path(args.junit).parent_path(), "--junit");
}

// --jobs (0: all cores), at most one per clip.
int batch_jobs(const BatchArgs& args, std::size_t clips) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max(1, std::min(args.jobs > 0 ? args.jobs : static_cast<int>(cores),
                              static_cast<int>(std::max<std::size_t>(clips, 1))));
}

// The report's "run" block: what depends on the run (jobs, shard, timings).
Json run_json(int jobs, const Shard& shard, std::size_t library_clips, double wall,
              const Batch& batch, int stop_signal) {
  return {{"note",
           "this block depends on the run (jobs, shard, timings); everything else is the same for "
           "any --jobs and for merged shards"},
          {"jobs", jobs},
          {"shard", shard.count > 1 ? Json{{"index", shard.index},
                                           {"count", shard.count},
                                           {"library_clips", static_cast<long>(library_clips)}}
                                    : Json(nullptr)},
          {"wall_s", round_ms(wall)},
          {"clip_s", round_ms(batch.clip_seconds())},
          {"resumed", batch.resumed()},
          {"interrupted", stop_signal != 0}};
}

// The one-line summary of the batch's totals.
void log_totals(const BatchArgs& args, const BatchReport& report, const Batch& batch, double wall) {
  const Json& t = report.head["totals"];
  const Json& worst = t["worst"];
  spdlog::info(
      "batch: {} clip(s): {} fixed{}, {} failed, {} not done; {} frames; {} with "
      "unreachable frames ({} frames{}); {:.1f} s",
      t["clips"].get<long>(), t["ok"].get<long>(),
      args.resume ? fmt::format(" ({} unchanged, kept by --resume)", batch.resumed())
                  : std::string(),
      t["errors"].get<long>(), t["not_done"].get<long>(), t["frames"].get<long>(),
      t["clips_with_unreachable"].get<long>(), t["unreachable_frames"].get<long>(),
      worst.is_null()
          ? std::string()
          : fmt::format("; worst {} frame {}, {:.3f} m short", worst["input"].get<std::string>(),
                        worst["frame"].get<int>(), worst["shortfall_m"].get<double>()),
      wall);
}

// The exit code: 128 + signal when interrupted, else whether the batch passed its conditions.
int batch_exit_code(const BatchArgs& args, const BatchReport& report, int stop_signal) {
  const Json& t = report.head["totals"];
  if (stop_signal != 0) {
    spdlog::error("batch interrupted by {}: {} clip(s) not done{}",
                  stop_signal == SIGINT ? "SIGINT" : "SIGTERM", t["not_done"].get<long>(),
                  args.report.empty() ? "" : "; listed in " + args.report);
    return 128 + stop_signal;
  }
  if (t["clips_fail_on_held"].get<long>() > 0)
    spdlog::error("batch: --fail-on held for {} clip(s)", t["clips_fail_on_held"].get<long>());
  if (t["errors_held"].get<bool>())
    spdlog::error("batch: {} clip(s) failed{}", t["errors"].get<long>(),
                  args.allow_errors ? "" : " (pass --allow-errors to not fail the batch for them)");
  return batch_passed(report) ? kExitOk : kExitFailOn;
}

int batch(const BatchArgs& args) {
  const auto started = Clock::now();
  const BatchConditions conditions = parse_batch_fail_on(args.fail_on, args.allow_errors);
  const Shard shard = parse_shard(args.shard.empty() ? "1/1" : args.shard);
  check_batch_usage(args);
  const std::vector<BatchClip> library = batch_library(args);
  std::vector<BatchClip> clips = select_shard(library, shard);
  check_batch_outputs(args, library, clips);

  // The settings' hash reads the terrain's bytes again, on one core (~1 ns a byte): on a thread
  // of its own while the terrain is built, when it is a regular file (what else a path names, a
  // pipe, can be read once). The terrain's error, if any, is still the one given.
  std::error_code ec;
  std::future<std::string> pending_hash;
  if (fs::is_regular_file(args.terrain.path, ec))
    pending_hash = std::async(std::launch::async, [&args] { return settings_hash(args); });
  const core::Terrain* terrain = &load_terrain_for_process(args.terrain);
  const std::string hash = pending_hash.valid() ? pending_hash.get() : settings_hash(args);
  spdlog::debug(
      "batch: settings {} from the terrain's bytes and: {}", hash,
      args.settings_text.empty() ? std::string("(defaults)") : io::one_line(args.settings_text));
  const int jobs = batch_jobs(args, clips.size());
  io::set_clips_at_once(jobs);  // each clip in flight gets an equal share of --max-memory
  spdlog::info("batch: {} clip(s){} onto {} with {} job(s) -> {}", clips.size(),
               shard.count > 1
                   ? fmt::format(" (shard {}/{} of {})", shard.index, shard.count, library.size())
                   : "",
               args.terrain.path, jobs, args.out_dir);

  StopSignals signals;
  Batch batch(args, conditions, std::move(clips), *terrain, hash,
              spdlog::get_level() <= spdlog::level::info);
  batch.run(jobs);
  const int stop_signal = g_stop_signal.load();

  BatchHeader header;
  header.tool_version = IKFIX_VERSION;
  header.terrain = args.terrain.path;
  header.settings_hash = hash;
  header.fail_on = args.fail_on;
  header.errors_limit = conditions.errors_limit;
  const double wall = std::chrono::duration<double>(Clock::now() - started).count();
  // The run block reads the outcomes before take_entries() moves them out.
  const Json run = run_json(jobs, shard, library.size(), wall, batch, stop_signal);
  const BatchReport report = make_batch_report(header, batch.take_entries(), run);
  io::OutputTransaction outputs;  // the report and the JUnit file: both in place, or neither
  if (!args.report.empty()) save_batch_report(args.report, report);
  if (!args.junit.empty()) io::write_file_atomic(args.junit, junit_xml(report));
  if (!args.html_dir.empty()) write_html_index(args.html_dir, report);
  outputs.commit();
  log_totals(args, report, batch, wall);
  return batch_exit_code(args, report, stop_signal);
}

}  // namespace

void add_batch_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<BatchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "batch",
      "Fix a library of clips onto one terrain, in parallel, outputs mirrored under --out-dir");
  cmd->add_option("inputs", args->inputs,
                  "Folders (recursive), globs, @LIST files (one path a line) or clips")
      ->required();
  add_terrain_options(*cmd, args->terrain);
  cmd->add_option("--out-dir", args->out_dir,
                  "Folder for the fixed clips; the input tree is mirrored under it (required "
                  "unless --check-only)");
  cmd->add_option(
         "--format", args->format,
         "Write every output in this format (bvh from any input; an input whose format cannot be "
         "converted without loss fails with the reason)")
      ->check(CLI::IsMember({"bvh", "fbx", "gltf", "glb"}));
  cmd->add_option("--config", args->config,
                  "Clip settings JSON for every clip (legs, clip_unit, clip_up, take, "
                  "terrain_offset, contacts); "
                  "CLIP.ikfix.json beside a clip wins");
  cmd->add_flag(
      "--check-only", args->check_only,
      "Measure every clip as `ikfix check` does (report, --fail-on, JUnit) and write no clips");
  cmd->add_option("-j,--jobs", args->jobs, "Clips fixed at once (default 0: all cores)");
  cmd->add_option("--shard", args->shard,
                  "Take part I of N (1-based) of the sorted library, balanced by size");
  cmd->add_option("--report", args->report, "Write the batch report (JSON) here");
  cmd->add_option("--junit", args->junit, "Write JUnit XML here: one test case per clip");
  cmd->add_option("--html-dir", args->html_dir,
                  "Write an HTML report here: index.html (every clip, worst first) and one page "
                  "per clip");
  cmd->add_option("--fail-on", args->fail_on,
                  "Exit 1 when a condition of `run --fail-on` holds for a clip (e.g. "
                  "unreachable[>N], shortfall>M), "
                  "or errors[>N]: more than N clips failed (without it: any failed clip, unless "
                  "--allow-errors)");
  cmd->add_flag("--allow-errors", args->allow_errors,
                "Clips that fail (bad file, no legs) do not make the exit code 1");
  cmd->add_flag("--resume", args->resume,
                "Skip clips whose output is newer than the input and made with the same settings");
  cmd->add_flag("-q,--quiet", args->quiet, "Only errors (no progress)");
  add_clip_options(*cmd, args->clip);
  add_fix_options(*cmd, args->fix);
  add_verify_assimp_option(*cmd);
  add_retarget_options(*cmd, args->retarget, true);
  cmd->callback([args, cmd, &exit_code] {
    if (args->quiet) spdlog::set_level(spdlog::level::err);
    args->settings_text = settings_text(*cmd);
    exit_code = run_guarded("batch", [&] { return batch(*args); });
  });
}

}  // namespace ikfix::cli
