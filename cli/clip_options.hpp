#pragma once
// Options shared by every command that reads a clip: units, up axis, legs.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/end_site_joints.hpp"
#include "core/legs.hpp"
#include "io/clip_io.hpp"

namespace ikfix::cli {

// --max-joints's default: far above any character (a full face and hand rig is a few hundred),
// low enough that a file of joints alone cannot make a read take minutes.
inline constexpr int kDefaultMaxJoints = 10000;

// --max-joints N (every command that reads a clip or a character): io::set_max_joints, whose
// value main() sets to kDefaultMaxJoints first.
void add_max_joints_option(CLI::App& cmd);

// --max-memory SIZE (every command that reads a clip, a character or a terrain):
// io::set_memory_budget, whose value main() sets to default_memory_budget() first. "0": no limit.
void add_max_memory_option(CLI::App& cmd);
// --assimp-timeout SECONDS (with --max-memory): io::assimp::set_import_timeout; an Assimp import's
// child process is killed after that long. "0": no limit.
CLI::Option* add_assimp_timeout_option(CLI::App& cmd);
// --max-memory's default: half the machine's physical memory (0, no limit, when unknown).
std::uint64_t default_memory_budget();

struct ClipOptions {
  std::string clip_unit;  // m|cm|mm|in|ft|cmu|<metres per unit>; empty: from the file or guessed
  std::string clip_up;    // y|z; empty: from the file
  std::string legs;       // 8 comma-separated joint names (toe may be empty)
  std::string
      take;  // take (FBX stack / glTF animation) name, 0-based index or "all"; empty: the first
  std::string
      contacts;  // contacts file (io/contacts_json.hpp) used instead of detection; empty: detect
};

// --contacts FILE for commands that fix one clip (run, check); batch takes it per clip from
// the clip's config.
void add_contacts_option(CLI::App& cmd, ClipOptions& options);

void add_clip_options(CLI::App& cmd, ClipOptions& options);

// Throws std::invalid_argument with a readable message on a bad value.
io::ClipLoadOptions to_load_options(const ClipOptions& options);

// Leg rig from --legs or detection; throws io::InputError naming the clip when none is found.
core::LegRig find_legs(const io::LoadedClip& clip, const ClipOptions& options);

// Legs of a clip whose legs may end in bone tails (2-bone legs: thigh and shin joints, the ankle
// only the shin's end site). `tails` is set when the rig's ankles are virtual joints at those end
// sites (core/end_site_joints.hpp); `rig` then indexes tails->skeleton.
struct FoundLegs {
  core::LegRig rig;
  std::optional<core::EndSiteJoints> tails;
};

// As find_legs; when that finds no legs, the same (detection or --legs, which may then name a
// virtual "<shin>_ankle") on the skeleton with a virtual joint at the end site of every leaf
// hanging down, kept only when the legs found end on virtual joints. Existing rigs are found
// exactly as find_legs finds them. Throws io::InputError with find_legs's message when neither
// finds legs.
FoundLegs find_legs_or_tails(const io::LoadedClip& clip, const ClipOptions& options);

// A copy of `clip` (sharing its document) whose skeleton and clip have the virtual joints: what
// the fix, the metrics and the report work on. Never written: strip with
// core::without_end_site_joints first.
io::LoadedClip with_tails(const io::LoadedClip& clip, const core::EndSiteJoints& tails);

// A run report made on with_tails's clip: "skeleton" counts the file's joints again and lists
// the virtual ones ("virtual_ankles").
void report_tails(nlohmann::ordered_json& report, const core::EndSiteJoints& tails);

}  // namespace ikfix::cli
