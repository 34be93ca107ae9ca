#include "cli/fix_job.hpp"

#include <optional>
#include <stdexcept>

#include "core/fix/footfix.hpp"
#include "core/metrics.hpp"
#include "io/clip_io.hpp"
#include "io/report_json.hpp"

namespace ikfix::cli {

namespace fs = std::filesystem;

fs::path default_output(const fs::path& input) {
  return input.parent_path() / (input.stem().string() + ".ikfix" + input.extension().string());
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

namespace {

core::ClipMetrics measure(const io::LoadedClip& clip, const core::Clip& motion, const core::LegRig& rig,
                          const core::Terrain& terrain, const core::FixSettings& settings) {
  core::MetricsInput m;
  m.skeleton = &clip.skeleton;
  m.clip = &motion;
  m.space = clip.space;
  m.rig = rig;
  m.terrain = &terrain;
  m.contacts = settings.contacts;
  m.reference_leg_length = settings.reference_leg_length;
  m.min_knee_angle = settings.min_knee_angle;
  return core::measure_clip(m);
}

FixJobResult fix_or_check(const FixJob& job, bool check) {
  if (!check && !job.in_place && same_file(job.output, job.input))
    throw std::invalid_argument("output " + job.output.string() + " is the input; pass --in-place to overwrite it");
  io::LoadedClip clip = io::load_clip(job.input, to_load_options(job.clip));
  if (job.terrain_offset.size() == 3)
    clip.space.world_offset -= core::Vec3(job.terrain_offset[0], job.terrain_offset[1], job.terrain_offset[2]);
  const core::LegRig rig = find_legs(clip, job.clip);

  core::FixInput fix;
  fix.skeleton = &clip.skeleton;
  fix.clip = &clip.clip;
  fix.space = clip.space;
  fix.rig = rig;
  fix.terrain = job.terrain;
  fix.settings = to_settings(job.fix);
  const core::FixResult result = core::fix_clip(fix);

  if (!check) io::save_clip(job.output, clip, result.clip, result.changed_joints);

  std::optional<core::ClipMetrics> before, after;
  if (job.measure || check) before = measure(clip, clip.clip, rig, *job.terrain, fix.settings);
  if (job.measure && !check) after = measure(clip, result.clip, rig, *job.terrain, fix.settings);

  io::RunReportInput report_input;
  report_input.command = check ? "check" : "run";
  report_input.tool_version = IKFIX_VERSION;
  report_input.clip = &clip;
  report_input.rig = &rig;
  report_input.output_path = check ? std::string() : job.output.string();
  report_input.terrain_path = job.terrain_path;
  report_input.diagnostics = &result.diagnostics;
  report_input.metrics_before = before ? &*before : nullptr;
  report_input.metrics_after = after ? &*after : nullptr;
  FixJobResult out;
  out.report = io::make_run_report(report_input);
  out.warnings = clip.warnings;
  out.warnings.insert(out.warnings.end(), result.diagnostics.warnings.begin(), result.diagnostics.warnings.end());
  out.frames = result.diagnostics.frames;
  return out;
}

}  // namespace

FixJobResult run_fix_job(const FixJob& job) { return fix_or_check(job, false); }

FixJobResult run_check_job(const FixJob& job) { return fix_or_check(job, true); }

}  // namespace ikfix::cli
