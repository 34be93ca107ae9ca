#include "cli/retarget_job.hpp"

#include <algorithm>
#include <cctype>
#include <memory>
#include <stdexcept>

#include "cli/fix_job.hpp"
#include "cli/html_page.hpp"
#include "core/metrics.hpp"
#include "core/retarget/bone_map.hpp"
#include "core/retarget/retarget_pipeline.hpp"
#include "core/retarget/tail_legs.hpp"
#include "core/terrain_gen.hpp"
#include "core/units.hpp"
#include "io/bone_map_json.hpp"
#include "io/bvh/bvh.hpp"
#include "io/clip_io.hpp"
#include "io/error.hpp"
#include "io/report_json.hpp"
#include "io/retarget_json.hpp"

namespace ikfix::cli {
namespace {

namespace fs = std::filesystem;

std::string lower_extension(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

bool all_finite(const core::Clip& clip) {
  for (const core::Transform& t : clip.locals)
    if (!core::is_finite(t.translation) || !core::is_finite(t.rotation) ||
        !core::is_finite(t.scale))
      return false;
  return true;
}

// Joints that hold their rest transform on every frame need no curves where the file's own
// transforms are the rest pose (glTF node TRS, BVH offsets); an FBX character may have been
// saved in another pose than its bind pose, so there every joint is keyed.
std::vector<char> joints_to_write(const io::LoadedClip& character, const core::Clip& clip,
                                  std::vector<char> animated) {
  if (character.format == "fbx") return animated;
  const core::Skeleton& sk = character.skeleton;
  for (int j = 0; j < sk.joint_count(); ++j) {
    if (!animated[j]) continue;
    bool at_rest = true;
    for (int f = 0; f < clip.frame_count && at_rest; ++f) {
      const core::Transform& t = clip.at(f, j);
      at_rest = t.translation == sk.rest[j].translation && t.rotation == sk.rest[j].rotation &&
                t.scale == sk.rest[j].scale;
    }
    if (at_rest) animated[j] = 0;
  }
  return animated;
}

// The character's format adds a take; a .bvh output of a non-BVH character is a new BVH of its
// skeleton. Anything else would lose the character's data: refused.
void write_output(const fs::path& out, const io::LoadedClip& character, const core::Clip& clip,
                  const std::vector<char>& animated, const std::string& take_name) {
  const std::string ext = lower_extension(out);
  const std::string target_ext = lower_extension(character.path);
  if (ext == target_ext || (ext == ".glb" && target_ext == ".gltf") ||
      (ext == ".gltf" && target_ext == ".glb")) {
    io::save_new_take(out, character, clip, animated, take_name, false);
    return;
  }
  if (ext == ".bvh") {
    io::bvh::NewFileOptions options;
    options.source_name = character.path.string();
    options.up_rotation = character.space.to_world_rotation;
    options.root_at_first_branch = true;  // ROOT = the pelvis, as `run -o x.bvh` writes it
    io::bvh::save_new(out, character.skeleton, clip, options);
    return;
  }
  throw std::invalid_argument("output " + out.string() +
                              ": retarget writes the character's own format (" + target_ext +
                              ") or .bvh");
}

// The target character, with --target-unit / --target-up applied.
io::LoadedClip load_target(const RetargetJob& job) {
  io::ClipLoadOptions target_options;
  if (!job.retarget.target_unit.empty()) {
    const double m = core::metres_per_unit_from_name(job.retarget.target_unit);
    if (!(m > 0))
      throw std::invalid_argument("--target-unit: '" + job.retarget.target_unit +
                                  "' is not a unit");
    target_options.metres_per_unit = m;
  }
  if (!job.retarget.target_up.empty()) target_options.up_axis = job.retarget.target_up[0];
  return io::load_character(job.retarget.target, target_options);
}

// The bone map (automatic, or --map), refused when roles stay unmapped.
core::BoneMap make_bone_map(const RetargetJob& job, const io::LoadedClip& source,
                            const io::LoadedClip& target) {
  const std::string target_file = target.path.string();
  const core::RestPose source_rest = core::make_rest_pose(source.skeleton, source.space.to_world());
  const core::RestPose target_rest = core::make_rest_pose(target.skeleton, target.space.to_world());
  core::BoneMap map = job.retarget.map.empty()
                          ? core::auto_map(source_rest, target_rest)
                          : io::load_bone_map(job.retarget.map, source.skeleton, target.skeleton);
  if (!map.missing_roles.empty())
    throw io::InputError(job.retarget.map.empty() ? target_file : job.retarget.map,
                         "cannot map " + joined(map.missing_roles) + " between " +
                             job.input.string() + " and " + target_file +
                             "; write a map with 'ikfix map --save', complete it and pass --map");
  return map;
}

// The character's legs. 2-bone legs (the ankle is the shin's bone tail): the transfer, foot
// stage and report run on the character with virtual ankle joints there (`tails`); the output
// is cut back to its own joints.
struct TargetLegs {
  core::LegRig rig;
  std::optional<core::TailLegs> tails;
};

TargetLegs find_target_legs(const core::BoneMap& map, const io::LoadedClip& target) {
  std::optional<core::LegRig> found_legs = core::target_leg_rig(map, target.skeleton);
  std::optional<core::TailLegs> tails;
  if (!found_legs && (tails = core::target_tail_legs(map, target.skeleton)))
    found_legs = tails->rig;
  if (!found_legs)
    throw io::InputError(
        target.path.string(),
        "the character's legs have no ankle joints and no shin end sites to put them "
        "on; the foot stage needs hip, knee and ankle");
  return {*found_legs, std::move(tails)};
}

core::RetargetPipelineInput pipeline_input(const RetargetJob& job, const io::LoadedClip& source,
                                           const core::LegRig& source_legs,
                                           const io::LoadedClip& work,
                                           const core::LegRig& target_legs,
                                           const core::BoneMap& map, const core::FixSettings& fix) {
  core::RetargetPipelineInput in;
  in.transfer.source = &source.skeleton;
  in.transfer.source_clip = &source.clip;
  in.transfer.source_space = source.space;
  in.transfer.source_legs = source_legs;
  in.transfer.target = &work.skeleton;
  in.transfer.target_space = work.space;
  in.transfer.target_legs = target_legs;
  in.transfer.map = &map;
  in.transfer.settings.scale = job.retarget.scale;
  in.transfer.settings.arm_reach = job.retarget.arm_reach;
  in.transfer.settings.align_rest = !job.retarget.no_rest_align;
  in.terrain = job.terrain;
  in.fix = fix;
  in.fix_feet = !job.retarget.no_foot_fix;
  return in;
}

// Writes the new take (virtual ankle joints cut off) under --take-name or the input's stem.
void write_retargeted(const RetargetJob& job, const io::LoadedClip& target,
                      const core::RetargetPipelineResult& result,
                      const std::optional<core::TailLegs>& tails) {
  const std::string take =
      job.retarget.take_name.empty() ? job.input.stem().string() : job.retarget.take_name;
  if (tails) {
    const core::Clip clip = core::without_end_site_joints(result.clip, tails->joints);
    write_output(job.output, target, clip,
                 joints_to_write(target, clip,
                                 core::without_end_site_joints(result.animated, tails->joints)),
                 take);
  } else {
    write_output(job.output, target, result.clip,
                 joints_to_write(target, result.clip, result.animated), take);
  }
}

// The report's "source" section: format, take, joints, legs and unit of the source clip.
nlohmann::ordered_json source_json(const io::LoadedClip& source, const core::LegRig& source_legs) {
  return {
      {"format", source.format},
      {"take",
       {{"name", source.take_name}, {"index", source.take_index}, {"count", source.take_count}}},
      {"joints", source.skeleton.joint_count()},
      {"legs", io::legs_json(source.skeleton, source_legs)},
      {"unit",
       {{"name", source.unit_name},
        {"metres_per_unit", source.space.metres_per_unit},
        {"source", source.unit_source}}}};
}

// The ground the foot stage is measured on: the job's terrain, else a flat 400 m ground made
// into `flat` (which owns it).
const core::Terrain& ground_of(const RetargetJob& job, std::unique_ptr<core::Terrain>& flat) {
  if (job.terrain) return *job.terrain;
  core::FlatParams params;
  params.size = 400.0;
  flat = std::make_unique<core::Terrain>(core::make_flat_terrain(params));
  return *flat;
}

// The run report of the character's new take (metrics before and after the foot stage, on the
// terrain or a flat 400 m ground), without the retarget-specific sections.
nlohmann::ordered_json run_report_of(const RetargetJob& job, const io::LoadedClip& work,
                                     const core::LegRig& target_legs,
                                     const core::RetargetPipelineResult& result,
                                     const core::FixSettings& fix) {
  std::unique_ptr<core::Terrain> flat;
  const core::Terrain& ground = ground_of(job, flat);
  const core::ClipMetrics before = measure(work, result.transfer.clip, target_legs, ground, fix);
  const core::ClipMetrics after = measure(work, result.clip, target_legs, ground, fix);
  core::FixDiagnostics diagnostics = result.diagnostics;
  if (!result.feet_fixed) {
    diagnostics.frames = result.clip.frame_count;
    diagnostics.fps = result.clip.fps;
    diagnostics.solver = "none (--no-foot-fix)";
  }
  io::RunReportInput ri;
  ri.command = "retarget";
  ri.tool_version = IKFIX_VERSION;
  ri.clip = &work;
  ri.rig = &target_legs;
  ri.output_path = job.write_output ? job.output.string() : "";
  ri.terrain_path = job.terrain_path;
  ri.diagnostics = &diagnostics;
  ri.metrics_before = &before;
  ri.metrics_after = &after;
  return io::make_run_report(ri);
}

}  // namespace

void add_retarget_options(CLI::App& cmd, RetargetOptions& o, bool for_batch) {
  auto* to = cmd.add_option(
      "--to", o.target,
      for_batch
          ? "Retarget every clip onto this character (FBX, glTF/GLB or BVH) instead of fixing it"
          : "Target character (FBX, glTF/GLB or BVH; a rest-pose-only file is fine)");
  if (!for_batch) to->required();
  cmd.add_option("--map", o.map,
                 "Bone map file (from 'ikfix map --save', edited); default: automatic")
      ->needs(to);
  cmd.add_option("--target-unit", o.target_unit,
                 "Length unit of the character file (default: from the file / guessed)");
  cmd.add_option("--target-up", o.target_up,
                 "Up axis of the character file: y or z (default: from the file)")
      ->check(CLI::IsMember({"y", "z"}));
  cmd.add_option("--scale", o.scale,
                 "Horizontal root scale (default: target leg length / source leg length)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--arm-reach", o.arm_reach,
                 "0..1: how far the hands reach where the source's are, in arm lengths (default 1)")
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_flag("--no-foot-fix", o.no_foot_fix,
               "Transfer only: no foot lock, terrain or leg IK on the target");
  cmd.add_flag(
      "--no-rest-align", o.no_rest_align,
      "Do not align the character's rest bone directions to the source's (for comparison only)");
  if (!for_batch)
    cmd.add_option("--take-name", o.take_name,
                   "Name of the new take in the output (default: the source file's stem)");
}

fs::path default_retarget_output(const fs::path& source, const fs::path& target) {
  return source.parent_path() /
         (source.stem().string() + "_on_" + target.stem().string() + target.extension().string());
}

RetargetJobResult run_retarget_job(const RetargetJob& job) {
  if (job.clip.take == "all")
    throw std::invalid_argument(
        "--take all: retarget takes one take at a time; name it (or its index)");
  const io::LoadedClip source = io::load_clip(job.input, to_load_options(job.clip));
  const core::LegRig source_legs = find_legs(source, job.clip);
  const io::LoadedClip target = load_target(job);
  const std::string target_file = target.path.string();
  const core::BoneMap map = make_bone_map(job, source, target);
  const TargetLegs legs = find_target_legs(map, target);
  const std::optional<core::TailLegs>& tails = legs.tails;
  const io::LoadedClip work = tails ? with_tails(target, tails->joints) : target;

  const core::FixSettings fix = to_settings(job.fix);
  const core::RetargetPipelineResult result =
      core::retarget_and_fix(pipeline_input(job, source, source_legs, work, legs.rig, map, fix));
  if (!all_finite(result.clip))
    throw io::InputError(job.input.string(),
                         "retargeting produced non-finite values; nothing written");
  if (job.write_output) write_retargeted(job, target, result, tails);

  RetargetJobResult out;
  out.report = run_report_of(job, work, legs.rig, result, fix);
  out.report["input"] = job.input.string();
  out.report["target"] = target_file;
  out.report["source"] = source_json(source, source_legs);
  if (tails) report_tails(out.report, tails->joints);
  out.report["retarget"] = io::retarget_section_json(result, map, source.skeleton, work.skeleton);
  out.frames = result.clip.frame_count;
  for (const auto& w : source.warnings) out.warnings.push_back(w);
  for (const auto& w : target.warnings) out.warnings.push_back(target_file + ": " + w);
  for (const auto& w : result.transfer.warnings) out.warnings.push_back(w);
  for (const auto& w : result.diagnostics.warnings) out.warnings.push_back(w);
  if (!job.html.empty()) {
    std::unique_ptr<core::Terrain> flat;
    write_html_page(job.html, out.report,
                    view_of_retarget(source, work, result, legs.rig, ground_of(job, flat)),
                    job.input.filename().string() + " on " + target.path.filename().string());
  }
  return out;
}

}  // namespace ikfix::cli
