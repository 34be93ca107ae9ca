#include "cli/clip_options.hpp"

#include <sstream>
#include <stdexcept>

#include "core/fk.hpp"
#include "core/legs_in_file.hpp"
#include "core/units.hpp"
#include "io/assimp/import_process.hpp"
#include "io/clip_facts.hpp"
#include "io/error.hpp"
#include "io/gltf/uri_file.hpp"
#include "io/memory_budget.hpp"

namespace ikfix::cli {

void add_clip_options(CLI::App& cmd, ClipOptions& o) {
  cmd.add_option(
      "--clip-unit", o.clip_unit,
      "Length unit of the clip: m, cm, mm, in, ft, cmu (CMU mocap, 1/0.45 in) or metres per unit. "
      "Default: from the file, else guessed from the skeleton's height");
  cmd.add_option("--clip-up", o.clip_up,
                 "Up axis of the clip: y or z (default: from the file; BVH is y)")
      ->check(CLI::IsMember({"y", "z"}));
  cmd.add_option("--take", o.take,
                 "Take to use (FBX animation stack, glTF animation): its name, 0-based index, or "
                 "'all' (every take that "
                 "animates the skeleton, each fixed and reported); default: all takes when the "
                 "file has several");
  cmd.add_option("--legs", o.legs,
                 "Leg joints, overriding detection: LHIP,LKNEE,LANKLE,LTOE,RHIP,RKNEE,RANKLE,RTOE "
                 "(toes may be empty)");
  cmd.add_flag_callback(
      "--allow-outside-uris", [] { io::gltf::set_allow_outside_uris(true); },
      "glTF: also read buffer files outside the glTF file's folder (absolute paths, file: uris, "
      "..); refused by default");
  add_max_joints_option(cmd);
  add_max_memory_option(cmd);
  add_assimp_timeout_option(cmd);
}

std::uint64_t default_memory_budget() { return io::physical_memory_bytes() / 2; }

void add_max_memory_option(CLI::App& cmd) {
  cmd.add_option_function<std::string>(
         "--max-memory",
         [](const std::string& text) {
           io::set_memory_budget(text == "0" ? 0 : io::parse_byte_size(text).value_or(0));
         },
         "Refuse a clip or terrain whose read, fix and write would need more memory than this, "
         "estimated from its declared counts before reading them: bytes or K/M/G/T (512M, 4G); 0: "
         "no limit (default: half the physical memory)")
      ->check(
          [](const std::string& text) -> std::string {
            if (text == "0" || io::parse_byte_size(text)) return {};
            return "'" + text + "' is not a size (e.g. 512M, 4G, 0 for no limit)";
          },
          "SIZE");
}

CLI::Option* add_assimp_timeout_option(CLI::App& cmd) {
  return cmd
      .add_option_function<double>(
          "--assimp-timeout", [](double seconds) { io::assimp::set_import_timeout(seconds); },
          "Stop an import through Assimp (Collada clips, non-OBJ terrains, --verify-assimp) that "
          "takes longer than this many seconds, with an error; 0: no limit (default " +
              std::to_string(static_cast<int>(io::assimp::kDefaultImportTimeoutSeconds)) + ")")
      ->check(CLI::NonNegativeNumber);
}

void add_max_joints_option(CLI::App& cmd) {
  cmd.add_option_function<int>(
         "--max-joints", [](int n) { io::set_max_joints(n); },
         "Refuse a clip (or character) whose skeleton has more joints than this (default " +
             std::to_string(kDefaultMaxJoints) + ")")
      ->check(CLI::PositiveNumber);
}

void add_contacts_option(CLI::App& cmd, ClipOptions& o) {
  cmd.add_option(
      "--contacts", o.contacts,
      "Foot contacts from this JSON file instead of detecting them (write one to edit with "
      "--contacts-out; format in cli/REFERENCE.md)");
}

io::ClipLoadOptions to_load_options(const ClipOptions& o) {
  io::ClipLoadOptions load;
  if (!o.clip_unit.empty()) {
    const double m = core::metres_per_unit_from_name(o.clip_unit);
    if (!(m > 0))
      throw std::invalid_argument("--clip-unit: '" + o.clip_unit +
                                  "' is not a unit (m, cm, mm, in, ft, cmu or a positive number)");
    load.metres_per_unit = m;
  }
  if (!o.clip_up.empty()) load.up_axis = o.clip_up[0];
  if (!o.take.empty()) load.take = o.take;
  return load;
}

namespace {

core::LegDetection detect(const core::Skeleton& skeleton, const io::LoadedClip& clip,
                          const ClipOptions& o) {
  if (!o.legs.empty()) {
    std::array<std::string, 8> names;
    std::stringstream in(o.legs);
    std::string item;
    int count = 0;
    while (std::getline(in, item, ',')) {
      if (count == 8) throw std::invalid_argument("--legs takes 8 comma-separated joint names");
      names[count++] = item;
    }
    if (count < 7)
      throw std::invalid_argument("--legs takes 8 comma-separated joint names (got " +
                                  std::to_string(count) + ")");
    return core::legs_from_names(skeleton, names);
  }
  // The group flags of the file's joints; virtual joints appended after them are none.
  return core::detect_legs_at_rest(skeleton, clip.space.to_world(), io::group_nodes(clip));
}

}  // namespace

core::LegRig find_legs(const io::LoadedClip& clip, const ClipOptions& o) {
  core::LegDetection found = detect(clip.skeleton, clip, o);
  if (!found.rig) throw io::InputError(clip.path.string(), found.error);
  return *found.rig;
}

FoundLegs find_legs_or_tails(const io::LoadedClip& clip, const ClipOptions& o) {
  core::LegDetection found = detect(clip.skeleton, clip, o);
  if (found.rig) return {*found.rig, std::nullopt};
  std::vector<core::Transform> world(clip.skeleton.joint_count());
  core::forward_kinematics(clip.skeleton, clip.skeleton.rest, clip.space.to_world(), world);
  const std::vector<int> leaves = core::hanging_end_sites(clip.skeleton, world);
  if (!leaves.empty()) {
    const core::EndSiteJoints all = core::add_end_site_joints(clip.skeleton, leaves);
    const core::LegDetection with = detect(all.skeleton, clip, o);
    // Only legs that really end on bone tails: a rig of real joints that the virtual ones merely
    // made pass would be a different detection from find_legs's.
    if (with.rig && all.is_virtual(with.rig->legs[0].ankle) &&
        all.is_virtual(with.rig->legs[1].ankle)) {
      FoundLegs out{*with.rig, std::nullopt};
      out.tails = core::keep_leg_end_site_joints(all, out.rig);
      return out;
    }
  }
  throw io::InputError(clip.path.string(), found.error);
}

void report_tails(nlohmann::ordered_json& report, const core::EndSiteJoints& tails) {
  auto& skeleton = report["skeleton"];
  skeleton["joints"] = tails.original_count;
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  for (int j = tails.original_count; j < tails.skeleton.joint_count(); ++j)
    names.push_back(tails.skeleton.names[j]);
  skeleton["virtual_ankles"] = std::move(names);
}

io::LoadedClip with_tails(const io::LoadedClip& clip, const core::EndSiteJoints& tails) {
  io::LoadedClip out = clip;
  out.skeleton = tails.skeleton;
  out.clip = core::with_end_site_joints(clip.clip, tails);
  // The virtual joints hold their rest transform (read, as it were) in every frame.
  if (!out.joints_read.empty())
    out.joints_read.resize(tails.skeleton.joint_count(), io::kJointRead);
  return out;
}

}  // namespace ikfix::cli
