#pragma once
// One clip fixed onto an already built terrain: load, find legs, fix, write, report. Shared by
// `run` and `batch` (which calls it from several threads with one terrain).
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/clip_options.hpp"
#include "cli/fix_options.hpp"
#include "cli/phase_times.hpp"
#include "core/fix/fix_settings.hpp"
#include "core/metrics.hpp"
#include "core/parallel.hpp"
#include "core/terrain.hpp"
#include "core/view/report_view.hpp"
#include "io/clip_io.hpp"

namespace ikfix::cli {

struct FixJob {
  std::filesystem::path input;
  std::filesystem::path output;  // where the fixed clip goes (never the input unless in_place)
  bool in_place = false;
  const core::Terrain* terrain = nullptr;
  // Instead of `terrain`: one still being built on another thread (run and check build it while
  // the clip is read). Waited for once the clip is read; its error, if any, is reported first,
  // as when it was built before the clip was read.
  std::shared_future<const core::Terrain*> pending_terrain;
  // Set with the clip's footprint once it is read (start_terrain): pending_terrain then reads
  // only the part of a large terrain the clip stands on. Empty value: the whole terrain.
  std::shared_ptr<std::promise<std::optional<core::XzBox>>> footprint;
  // With `footprint`: the whole terrain, for a clip whose queries reach past the part read
  // (core::TerrainPartTooSmall: a foot deep under a steep slope); the job then runs again on it.
  std::function<const core::Terrain*()> whole_terrain;
  std::string terrain_path;  // for the report
  ClipOptions clip;
  FixOptions fix;
  // Where this clip stands on the shared terrain, metres (empty: as the terrain file says). The
  // clip is placed by the opposite offset, so one terrain built once serves every clip.
  std::vector<double> terrain_offset;
  bool measure = true;       // add before/after metrics (what `check` measures) to the report
  bool write_output = true;  // false: analyse only (`check`), nothing written
  // Where to write the contacts the fix used (detected, or as given), to edit and feed back
  // with --contacts; empty: not written.
  std::filesystem::path contacts_out;
  // Threads one clip's read, fix and write may use (null: the calling thread only). Outputs are
  // the same bit for bit. `batch` leaves it null: its --jobs already keep the cores busy.
  const core::ParallelRunner* runner = nullptr;
  // Where to write the HTML report (cli/html_page.hpp); empty: none. With `html_assets_url`
  // set, the page's scripts come from that folder (relative to the page) instead of inline.
  std::filesystem::path html;
  std::string html_assets_url;
  // Where to note the time each phase took (read, fix, measure, write); null: not noted.
  PhaseTimes* times = nullptr;
};

struct FixJobResult {
  nlohmann::ordered_json report;  // the run report (schema in README.md)
  std::vector<std::string> warnings;
  int frames = 0;
};

// Sets `job`'s terrain, from `options`, for a command that runs once per process (run, check):
// built once the clip is read, over the clip's footprint (core::clip_footprint; an OBJ file
// read on `threads` threads, --threads, or on `job.runner`'s, set before: a pool that lives as
// long as the process, idle while the terrain is read): `pending_terrain`, with `footprint`.
// The first pass of an OBJ file of 2 MB or more needs no footprint: it begins here, on a thread
// of its own, beside the clip's read (io::ObjReadAhead).
void start_terrain(FixJob& job, const TerrainOptions& options, int threads);

// Measures a clip as it is, and what a fix would have to give up, without writing anything:
// the `check` report (command "check", "metrics" of the clip as it is, unreachable frames).
FixJobResult run_check_job(const FixJob& job);

// Throws io::InputError / std::invalid_argument (bad input: exit 2) with a one-line message.
// Thread-safe: touches nothing global (no logging either; the caller logs the warnings).
FixJobResult run_fix_job(const FixJob& job);

// What `check` measures on `motion` (a clip of `clip`'s skeleton, in its space) over `terrain`,
// with the contact thresholds and knee limit of `settings`. `view_out` (optional) receives the
// points an HTML view draws of every frame (core::view_positions, core::view_tip_owners of
// `rig`), `lowest_above_out` (optional) what core::MetricsInput's field of that name describes;
// `runner`: the threads it may use (null: this one), the same metrics bit for bit.
core::ClipMetrics measure(const io::LoadedClip& clip, const core::Clip& motion,
                          const core::LegRig& rig, const core::Terrain& terrain,
                          const core::FixSettings& settings,
                          std::optional<core::ViewPositions>* view_out = nullptr,
                          std::vector<double>* lowest_above_out = nullptr,
                          const core::ParallelRunner* runner = nullptr);

// walk.bvh -> walk.ikfix.bvh beside the input.
std::filesystem::path default_output(const std::filesystem::path& input);

// True when both paths name the same file (existing or not).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace ikfix::cli
