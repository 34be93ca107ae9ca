#include "cli/fix_job.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <future>
#include <optional>
#include <span>
#include <stdexcept>

#include "cli/html_page.hpp"
#include "core/clip_footprint.hpp"
#include "core/fix/footfix.hpp"
#include "core/metrics.hpp"
#include "io/clip_io.hpp"
#include "io/contacts_json.hpp"
#include "io/html/view_json.hpp"
#include "io/memory_budget.hpp"
#include "io/obj_read_ahead.hpp"
#include "io/report_json.hpp"
#include "io/terrain_io.hpp"

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

core::ClipMetrics measure(const io::LoadedClip& clip, const core::Clip& motion,
                          const core::LegRig& rig, const core::Terrain& terrain,
                          const core::FixSettings& settings,
                          std::optional<core::ViewPositions>* view_out,
                          std::vector<double>* lowest_above_out,
                          const core::ParallelRunner* runner) {
  // The metrics read every joint's translation (bone lengths, non-finite transforms); a joint
  // read for its translation only is one whose rotation they do not read (measure_clip checks).
  std::vector<char> rotation_not_read;
  for (char read : clip.joints_read) {
    if (read == io::kJointUnread)
      throw std::logic_error(clip.path.string() +
                             ": measured, but it was read for some joints only");
    rotation_not_read.push_back(read == io::kJointTranslationOnly);
  }
  core::MetricsInput m;
  m.rotation_not_read = rotation_not_read;
  m.skeleton = &clip.skeleton;
  m.clip = &motion;
  m.space = clip.space;
  m.rig = rig;
  m.terrain = &terrain;
  m.skin = clip.skin.get();
  m.contacts = settings.contacts;
  m.reference_leg_length = settings.reference_leg_length;
  m.min_knee_angle = settings.min_knee_angle;
  if (view_out) {
    const std::vector<int> tips = core::view_tip_owners(clip.skeleton, rig);
    *view_out = core::sized_view_positions(clip.skeleton, motion.frame_count, tips);
    m.with_world = [&skeleton = clip.skeleton, tips, &view = **view_out](
                       int frame, std::span<const core::Transform> world_ws) {
      core::put_view_row(skeleton, world_ws, tips, frame, view);
    };
  }
  m.lowest_above_out = lowest_above_out;
  m.runner = runner;
  return core::measure_clip(m);
}

namespace {

// One take fixed: the fixed clip (not yet written) and its report.
struct FixedTake {
  core::FixResult result;
  FixJobResult out;
  std::optional<core::ReportView> view;  // for the HTML report (FixJob::html)
  // io::positions_text(view->before), when made while the fix ran.
  std::optional<std::string> before_positions_text;
};

// The page's text of `positions`, made on a thread of its own while the job goes on, when the
// job may use more than one thread (else not made: an invalid future).
std::future<std::string> positions_text_meanwhile(const FixJob& job,
                                                  const std::optional<core::ViewPositions>& view) {
  if (!view || !job.runner || job.runner->threads() < 2) return {};
  return std::async(std::launch::async,
                    [&positions = *view] { return io::positions_text(positions); });
}

// The take's motion is fixed where it lies (moved into the result, `clip.clip` left empty) when
// the writer does not compare with the unfixed motion. Its measurement (the report's "before",
// check's metrics, the HTML page's joint positions) is then taken before the fix. That saves a
// copy of the whole clip: one decoded clip less at the peak.
FixedTake fix_take(const FixJob& job, bool check, io::LoadedClip& clip, const core::LegRig& rig) {
  core::FixInput fix;
  fix.skeleton = &clip.skeleton;
  fix.clip = &clip.clip;
  fix.space = clip.space;
  fix.rig = rig;
  fix.terrain = job.terrain;
  fix.settings = to_settings(job.fix);
  fix.runner = job.runner;
  fix.skin = clip.skin.get();
  if (!job.clip.contacts.empty())
    fix.settings.contacts_override = io::load_contacts(job.clip.contacts, clip.clip.frame_count);
  const double fps = clip.clip.fps;  // read before the motion may be moved out of `clip`
  FixedTake taken;
  auto mark = [&](const char* phase) {
    if (job.times) job.times->mark(phase);
  };
  const bool html = !job.html.empty();
  const bool in_place = !io::save_reads_loaded_motion(clip);
  std::optional<core::ClipMetrics> before, after;
  // The page's joint positions come from the measures' FK when they ran (the same numbers).
  std::optional<core::ViewPositions> view_before, view_after;
  std::vector<double> lowest_before, lowest_after;  // HTML only: each foot's lowest point
  if ((job.measure || check) && in_place) {
    before = measure(clip, clip.clip, rig, *job.terrain, fix.settings,
                     html ? &view_before : nullptr, html ? &lowest_before : nullptr, job.runner);
    mark("measure input");  // before the fix, which then works on the motion in place
  }
  // The page's text of the input's positions, made while the fix runs (joined before the
  // positions are handed to the view, and before they go out of scope on an exception).
  std::future<std::string> before_text = positions_text_meanwhile(job, view_before);
  const core::Vec3* before_encoded = view_before ? view_before->positions.data() : nullptr;
  if (in_place) {
    core::Clip motion = std::move(clip.clip);
    clip.clip = core::Clip{};
    taken.result = core::fix_clip_in_place(fix, motion);
    taken.result.clip = std::move(motion);
  } else {
    taken.result = core::fix_clip(fix);
  }
  mark("fix");
  const core::FixResult& result = taken.result;
  if (!job.contacts_out.empty())
    io::save_contacts(job.contacts_out, {result.planted[0], result.planted[1]}, fps);

  if ((job.measure || check) && !in_place)
    before = measure(clip, clip.clip, rig, *job.terrain, fix.settings,
                     html ? &view_before : nullptr, html ? &lowest_before : nullptr, job.runner);
  if (job.measure && !check)
    after = measure(clip, result.clip, rig, *job.terrain, fix.settings,
                    html ? &view_after : nullptr, html ? &lowest_after : nullptr, job.runner);
  if (after || (before && !in_place)) mark("measure");
  if (html) {
    if (before_text.valid()) taken.before_positions_text = before_text.get();
    taken.view =
        view_of_fix(clip, result, rig, *job.terrain,
                    {std::move(view_before), std::move(view_after), &lowest_before, &lowest_after});
    // The text is of the view's positions only when they are the ones it was made from (moved
    // into the view, not found again).
    if (taken.view->before.positions.data() != before_encoded) taken.before_positions_text.reset();
    mark("view");
  }

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
  FixJobResult& out = taken.out;
  out.report = io::make_run_report(report_input);
  out.warnings = clip.warnings;
  out.warnings.insert(out.warnings.end(), result.diagnostics.warnings.begin(),
                      result.diagnostics.warnings.end());
  out.frames = result.diagnostics.frames;
  return taken;
}

// Legs ending in bone tails: the fix runs on the clip with virtual ankle joints (the same fix,
// contacts, IK and report as any rig), then the result is cut back to the file's joints (the
// virtual ankles' own rotations have no bone to go to). The report counts the file's joints and
// names the virtual ones.
FixedTake fix_take_on_tails(const FixJob& job, bool check, io::LoadedClip& clip,
                            const FoundLegs& legs) {
  if (!legs.tails) return fix_take(job, check, clip, legs.rig);
  const core::EndSiteJoints& tails = *legs.tails;
  io::LoadedClip work = with_tails(clip, tails);
  FixedTake taken = fix_take(job, check, work, legs.rig);
  taken.result.clip = core::without_end_site_joints(taken.result.clip, tails);
  taken.result.changed_joints = core::without_end_site_joints(taken.result.changed_joints, tails);
  taken.result.changed_rotations.clear();  // indexed by the virtual joints too: write every key
  report_tails(taken.out.report, tails);
  return taken;
}

io::ClipLoadOptions load_options(const FixJob& job) {
  io::ClipLoadOptions options = to_load_options(job.clip);
  options.runner = job.runner;
  return options;
}

void place(io::LoadedClip& clip, const FixJob& job) {
  if (job.terrain_offset.size() == 3)
    clip.space.world_offset -=
        core::Vec3(job.terrain_offset[0], job.terrain_offset[1], job.terrain_offset[2]);
}

// Where the clips just read stand on the terrain (union of their footprints; world metres).
std::optional<core::XzBox> footprint_of(std::span<const io::LoadedClip> clips, const FixJob& job) {
  std::optional<core::XzBox> box;
  for (const io::LoadedClip& read : clips) {
    io::LoadedClip placed_space;  // the space only: where place() puts the clip
    placed_space.space = read.space;
    place(placed_space, job);
    std::vector<int> joints;
    for (std::size_t j = 0; j < read.joints_read.size(); ++j)
      if (read.joints_read[j] != io::kJointUnread) joints.push_back(static_cast<int>(j));
    const core::XzBox b =
        core::clip_footprint(read.skeleton, read.clip, placed_space.space, joints,
                             job.html.empty() ? 0.0 : core::kViewTerrainMargin, job.runner);
    if (b.min_x > b.max_x) return std::nullopt;  // no finite joint: read the whole terrain
    if (!box) box = b;
    box->min_x = std::min(box->min_x, b.min_x), box->max_x = std::max(box->max_x, b.max_x);
    box->min_z = std::min(box->min_z, b.min_z), box->max_z = std::max(box->max_z, b.max_z);
  }
  return box;
}

std::span<const io::LoadedClip> as_clips(const io::LoadedClip& clip) { return {&clip, 1}; }
std::span<const io::LoadedClip> as_clips(const std::vector<io::LoadedClip>& clips) { return clips; }

// A file of several takes read without --take: fix_or_check goes on to fix_all_takes, which
// reads every take; the terrain waits for their footprint.
bool every_take_follows(const io::LoadedClip& clip, const FixJob& job) {
  return job.clip.take.empty() && clip.take_count > 1;
}
bool every_take_follows(const std::vector<io::LoadedClip>&, const FixJob&) { return false; }

// The clip (or takes) read by `read`, then `job.terrain` set from `job.pending_terrain` when the
// terrain was still to be built, over the clips' footprint. A bad terrain is reported before a
// bad clip (the whole terrain is then read to find out).
template <class Read>
auto read_then_terrain(FixJob& job, Read read) {
  if (!job.pending_terrain.valid()) return read();
  try {
    auto read_back = read();
    if (every_take_follows(read_back, job)) return read_back;
    if (job.footprint) job.footprint->set_value(footprint_of(as_clips(read_back), job));
    job.terrain = job.pending_terrain.get();
    if (job.times) job.times->mark("terrain");
    return read_back;
  } catch (...) {
    if (job.footprint) {
      try {
        job.footprint->set_value(std::nullopt);
      } catch (const std::future_error&) {  // already set: the terrain itself failed
      }
    }
    job.pending_terrain.get();  // throws the terrain's error, if it has one
    throw;
  }
}

// --take all: every take that animates the skeleton, fixed with the same settings and written
// together. The report is the first take's (so single-take consumers keep working) plus "takes"
// (one report per take) and totals over all takes (so --fail-on covers every take).
FixJobResult fix_all_takes(FixJob job, bool check) {
  std::vector<io::LoadedClip> clips =
      read_then_terrain(job, [&] { return io::load_takes(job.input, load_options(job)); });
  if (clips.size() > 1 && (!job.clip.contacts.empty() || !job.contacts_out.empty()))
    throw std::invalid_argument(job.input.string() + ": has " + std::to_string(clips.size()) +
                                " takes; a contacts file is for one take, choose it with --take");
  for (io::LoadedClip& clip : clips) place(clip, job);
  const FoundLegs legs = find_legs_or_tails(clips.front(), job.clip);  // one skeleton for all takes
  std::vector<FixedTake> fixed;
  for (io::LoadedClip& clip : clips) fixed.push_back(fix_take_on_tails(job, check, clip, legs));
  if (!check) {
    std::vector<io::TakeEdit> edits;
    for (std::size_t i = 0; i < clips.size(); ++i)
      edits.push_back({&clips[i], &fixed[i].result.clip, fixed[i].result.changed_joints});
    io::save_takes(job.output, edits, job.runner);
  }
  if (!job.html.empty())  // the first take's page (the report's top level is that take's)
    write_html_page(job.html, fixed.front().out.report, *fixed.front().view,
                    job.input.filename().string(), job.html_assets_url);
  FixJobResult out = fixed.front().out;
  nlohmann::ordered_json takes = nlohmann::ordered_json::array();
  int unreachable = 0;
  const nlohmann::ordered_json* worst = nullptr;
  int worst_index = 0;
  out.warnings.clear();
  out.frames = 0;
  for (const FixedTake& t : fixed) {
    const auto& totals = t.out.report["totals"];
    unreachable += totals["unreachable_frames"].get<int>();
    if (!worst ||
        totals["max_shortfall_m"].get<double>() > (*worst)["max_shortfall_m"].get<double>()) {
      worst = &totals;
      worst_index = static_cast<int>(&t - fixed.data());
    }
    takes.push_back(t.out.report);
    const std::string prefix =
        clips.size() > 1 ? "take '" + t.out.report["take"]["name"].get<std::string>() + "': " : "";
    for (const std::string& w : t.out.warnings) out.warnings.push_back(prefix + w);
    out.frames += t.out.frames;
  }
  out.report["totals"]["unreachable_frames"] = unreachable;
  out.report["totals"]["max_shortfall_m"] = (*worst)["max_shortfall_m"];
  out.report["totals"]["worst"] = (*worst)["worst"];
  if (!out.report["totals"]["worst"].is_null())
    out.report["totals"]["worst"]["take"] =
        fixed[static_cast<std::size_t>(worst_index)].out.report["take"]["name"];
  out.report["takes"] = std::move(takes);
  return out;
}

// The joints of `clip`'s own skeleton the fix reads with `legs` (on bone tails: the real joints
// above the virtual ankles).
std::vector<int> joints_fix_reads(const io::LoadedClip& clip, const FoundLegs& legs) {
  if (!legs.tails) return core::joints_fix_reads(clip.skeleton, legs.rig);
  std::vector<int> joints;
  for (int j : core::joints_fix_reads(legs.tails->skeleton, legs.rig))
    if (j < legs.tails->original_count) joints.push_back(j);
  return joints;
}

// How much of the loaded motion a job reads.
enum class MotionRead {
  every_joint,
  fix_joints,  // the fix's own joints only
  // Every joint's translation, every rotation but those of the leaves the fix does not read:
  // the measures' FK needs a joint's rotation only for its children's (and the feet's) world
  // transforms, and they follow no joint outside the fix's.
  leaf_rotations_of_fix_only,
};

// The fix's own joints only without metrics (they read every joint's translation) and without
// check; the measures' leaves by their translation only without an HTML page (its view reads
// every joint's world transform: end sites hang from the leaves). Either needs an output that
// patches the input's format (a conversion writes every joint; save_clip refuses it otherwise).
MotionRead motion_read(const FixJob& job, bool check, const io::LoadedClip& clip) {
  if (!job.html.empty() || (!check && io::save_converts(job.output, clip)))
    return MotionRead::every_joint;
  return check || job.measure ? MotionRead::leaf_rotations_of_fix_only : MotionRead::fix_joints;
}

// Every joint of `skeleton` wholly but the leaves outside `fix_joints`, whose translation only.
io::JointsToRead with_leaves_by_translation(const core::Skeleton& skeleton,
                                            const std::vector<int>& fix_joints) {
  std::vector<char> keeps_rotation(skeleton.joint_count(), 0);
  for (int j : fix_joints) keeps_rotation[j] = 1;
  for (int j = 0; j < skeleton.joint_count(); ++j)
    if (skeleton.parents[j] >= 0) keeps_rotation[skeleton.parents[j]] = 1;
  io::JointsToRead out;
  for (int j = 0; j < skeleton.joint_count(); ++j)
    (keeps_rotation[j] ? out.whole : out.translation_only).push_back(j);
  return out;
}

FixJobResult fix_or_check(const FixJob& given, bool check) {
  if (!check && !given.in_place && same_file(given.output, given.input))
    throw std::invalid_argument("output " + given.output.string() +
                                " is the input; pass --in-place to overwrite it");
  if (!given.html.empty() &&
      (same_file(given.html, given.input) || (!check && same_file(given.html, given.output))))
    throw std::invalid_argument("--html " + given.html.string() +
                                " is the input or the output clip; choose another file");
  if (given.clip.take == "all") return fix_all_takes(given, check);
  FixJob job = given;  // its terrain may still be coming
  // The legs, found as soon as the skeleton is read so that only their motion is decoded (a BVH
  // reader's Euler -> quaternion conversion of the other two thirds of a mocap skeleton is
  // skipped). Where that cannot be done here (no legs: the error comes below as it always
  // did), every joint is read.
  std::optional<FoundLegs> found;
  io::ClipLoadOptions options = load_options(job);
  options.joints_to_read = [&](const io::LoadedClip& read) -> io::JointsToRead {
    const MotionRead reads = motion_read(job, check, read);
    if (reads == MotionRead::every_joint) return {};
    io::LoadedClip placed = read;  // no motion yet: the skeleton and the space
    place(placed, job);
    try {
      found = find_legs_or_tails(placed, job.clip);
    } catch (const std::exception&) {
      return {};
    }
    if (reads == MotionRead::fix_joints) return {joints_fix_reads(read, *found), {}};
    return with_leaves_by_translation(read.skeleton, joints_fix_reads(read, *found));
  };
  io::LoadedClip clip = read_then_terrain(job, [&] {
    io::LoadedClip read = io::load_clip(job.input, options);
    if (job.times) job.times->mark("read");
    return read;
  });
  // No --take and several takes in the file: every take that animates the skeleton is fixed
  // (issue 3's default), each reported under "takes".
  if (job.clip.take.empty() && clip.take_count > 1) return fix_all_takes(job, check);
  place(clip, job);
  const FoundLegs legs = found ? *found : find_legs_or_tails(clip, job.clip);
  FixedTake taken = fix_take_on_tails(job, check, clip, legs);
  // The page (it reads only the report and the view) is made and written to its temp file on a
  // thread of its own while the clip is written, when the job may use more than one; it is put
  // in place (or into the command's transaction) here.
  std::future<io::WrittenFile> page;
  const auto page_file = [&] {
    return write_html_temp(
        job.html,
        html_page_text(taken.out.report, *taken.view, job.input.filename().string(),
                       job.html_assets_url,
                       taken.before_positions_text ? &*taken.before_positions_text : nullptr));
  };
  if (!job.html.empty() && !check && job.runner && job.runner->threads() > 1)
    page = std::async(std::launch::async, page_file);
  if (!check) {
    io::save_clip(job.output, clip, taken.result.clip, taken.result.changed_joints, job.runner,
                  taken.result.changed_rotations);
    if (job.times) job.times->mark("write");
  }
  if (!job.html.empty()) {
    io::place_written(page.valid() ? page.get() : page_file());
    if (job.times) job.times->mark("html");
  }
  return std::move(taken.out);
}

}  // namespace

void start_terrain(FixJob& job, const TerrainOptions& options, int threads) {
  // Reserved here, before the clip is read and checked against what is left (deterministic).
  io::reserve_terrain_memory(options.path);
  const core::ParallelRunner* runner = job.runner;  // the process's: idle while the terrain is read
  if (!io::terrain_worth_cropping(options.path)) {
    job.pending_terrain =
        std::async(std::launch::deferred, [options, threads, runner] {
          return &load_terrain_for_process(options, std::nullopt, threads, runner);
        }).share();
    return;
  }
  job.footprint = std::make_shared<std::promise<std::optional<core::XzBox>>>();
  std::shared_future<std::optional<core::XzBox>> footprint = job.footprint->get_future().share();
  job.whole_terrain = [options, threads, runner] {
    return &load_terrain_for_process(options, std::nullopt, threads, runner);
  };
  // A large OBJ file's first pass needs no footprint: begun now, beside the clip's read.
  std::shared_ptr<io::ObjReadAhead> ahead = io::ObjReadAhead::start(options.path, runner);
  job.pending_terrain =
      std::async(std::launch::deferred, [options, footprint, threads, runner, ahead] {
        return &load_terrain_for_process(options, footprint.get(), threads, runner, ahead.get());
      }).share();
}

namespace {

// fix_or_check on the part of the terrain under the clip, and on the whole terrain when a query
// reaches past that part (nothing is written before every query has run).
FixJobResult on_terrain_part_or_whole(const FixJob& job, bool check) {
  try {
    return fix_or_check(job, check);
  } catch (const core::TerrainPartTooSmall& e) {
    if (!job.whole_terrain) throw;
    spdlog::debug("{}: {}: reading the whole terrain", job.input.string(), e.what());
    FixJob whole = job;
    whole.terrain = job.whole_terrain();
    whole.pending_terrain = {};
    whole.footprint = nullptr;
    whole.whole_terrain = nullptr;
    return fix_or_check(whole, check);
  }
}

}  // namespace

FixJobResult run_fix_job(const FixJob& job) { return on_terrain_part_or_whole(job, false); }

FixJobResult run_check_job(const FixJob& job) { return on_terrain_part_or_whole(job, true); }

}  // namespace ikfix::cli
