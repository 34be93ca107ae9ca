#include "cli/cmd_inspect.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "cli/clip_options.hpp"
#include "cli/command_guard.hpp"
#include "cli/exit_codes.hpp"
#include "core/foot_model.hpp"
#include "io/clip_facts.hpp"
#include "io/error.hpp"
#include "io/report_json.hpp"

namespace ikfix::cli {
namespace {

struct InspectArgs {
  std::string input;
  ClipOptions clip;
  bool json = false;
};

// The skinned mesh (null without one): its vertex count and, when legs were found, how many sole
// vertices the foot model picks per leg.
nlohmann::ordered_json skin_json(const io::LoadedClip& clip, const FoundLegs* legs) {
  if (!clip.skin) return nullptr;
  nlohmann::ordered_json out;
  out["vertices"] = clip.skin->vertices.size();
  if (!legs) {
    out["sole_vertices"] = nullptr;
    return out;
  }
  // Virtual ankles (2-bone legs) are appended joints: the skin's joint indices stay valid.
  const core::Skeleton& skeleton = legs->tails ? legs->tails->skeleton : clip.skeleton;
  nlohmann::ordered_json sole;
  for (int side = 0; side < 2; ++side) {
    const core::FootModel foot = core::build_foot_model(skeleton, legs->rig.legs[side],
                                                        clip.space.to_world(), clip.skin.get());
    sole[core::kLegSideNames[side]] = foot.sole_vertices.size();
  }
  out["sole_vertices"] = sole;
  return out;
}

void print_skin(const nlohmann::ordered_json& skin) {
  if (skin.is_null()) {
    std::printf("skin: none\n");
    return;
  }
  std::printf("skin: %d skinned vertices", skin["vertices"].get<int>());
  const auto& sole = skin["sole_vertices"];
  if (!sole.is_null())
    std::printf("; sole vertices left %d, right %d", sole["left"].get<int>(),
                sole["right"].get<int>());
  std::printf("\n");
}

int inspect(const InspectArgs& args) {
  // --take all: every take that animates the skeleton (they share it); the first is shown in full.
  std::vector<io::LoadedClip> takes;
  if (args.clip.take == "all") takes = io::load_takes(args.input, to_load_options(args.clip));
  const io::LoadedClip clip =
      takes.empty() ? io::load_clip(args.input, to_load_options(args.clip)) : takes.front();
  nlohmann::ordered_json out;
  out["file"] = args.input;
  out["format"] = clip.format;
  out["take"] = {{"name", clip.take_name}, {"index", clip.take_index}, {"count", clip.take_count}};
  if (!takes.empty()) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& t : takes)
      list.push_back({{"name", t.take_name},
                      {"index", t.take_index},
                      {"frames", t.clip.frame_count},
                      {"fps", t.clip.fps}});
    out["takes"] = list;
  }
  out["joints"] = clip.skeleton.joint_count();
  out["frames"] = clip.clip.frame_count;
  out["fps"] = clip.clip.fps;
  out["duration_s"] = clip.clip.frame_count / clip.clip.fps;
  out["unit"] = {{"name", clip.unit_name},
                 {"metres_per_unit", clip.space.metres_per_unit},
                 {"source", clip.unit_source},
                 {"reason", clip.unit_reason}};
  out["up_axis"] = std::string(1, clip.up_axis);
  const std::string positions = io::bvh_positions(clip);
  if (!positions.empty()) out["bvh_positions"] = positions;
  std::string legs_error;
  std::optional<FoundLegs> legs;
  try {
    legs = find_legs_or_tails(clip, args.clip);
    // 2-bone legs: the ankles are virtual joints at the shins' tails (named "<shin>_ankle").
    out["legs"] = io::legs_json(legs->tails ? legs->tails->skeleton : clip.skeleton, legs->rig);
  } catch (const io::InputError& e) {
    legs_error = e.cause();
    out["legs"] = {{"error", legs_error}};
  }
  out["skin"] = skin_json(clip, legs ? &*legs : nullptr);
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  for (int j = 0; j < clip.skeleton.joint_count(); ++j) {
    const int p = clip.skeleton.parents[j];
    names.push_back({{"name", clip.skeleton.names[j]},
                     {"parent", p < 0 ? nlohmann::ordered_json(nullptr)
                                      : nlohmann::ordered_json(clip.skeleton.names[p])}});
  }
  out["skeleton"] = names;
  if (args.json) {
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  std::printf("%s: %s, %d joints, %d frames at %g fps (%.2f s)\n", args.input.c_str(),
              clip.format.c_str(), clip.skeleton.joint_count(), clip.clip.frame_count,
              clip.clip.fps, clip.clip.frame_count / clip.clip.fps);
  std::printf("unit: %s = %g m (%s)%s%s\n", clip.unit_name.c_str(), clip.space.metres_per_unit,
              clip.unit_source.c_str(), clip.unit_reason.empty() ? "" : ": ",
              clip.unit_reason.c_str());
  std::printf("up axis: %c\n", clip.up_axis);
  if (positions == "channels_only")
    std::printf("BVH position channels: each joint's whole translation (Blender's export)\n");
  else if (!positions.empty())
    std::printf("BVH position channels: added to the OFFSET\n");
  std::printf("take: %d '%s' of %d\n", clip.take_index, clip.take_name.c_str(), clip.take_count);
  for (const auto& t : takes)
    std::printf("  take %d '%s': %d frames at %g fps\n", t.take_index, t.take_name.c_str(),
                t.clip.frame_count, t.clip.fps);
  if (legs_error.empty()) {
    const auto& legs = out["legs"];
    std::printf("legs (%s): pelvis %s\n", legs["method"].get<std::string>().c_str(),
                legs["pelvis"].get<std::string>().c_str());
    for (const char* side : {"left", "right"}) {
      const auto& l = legs[side];
      std::printf("  %-5s %s > %s > %s > %s\n", side, l["hip"].get<std::string>().c_str(),
                  l["knee"].get<std::string>().c_str(), l["ankle"].get<std::string>().c_str(),
                  l["toe"].is_null() ? "(no toe)" : l["toe"].get<std::string>().c_str());
    }
  } else {
    std::printf("legs: none (%s)\n", legs_error.c_str());
  }
  print_skin(out["skin"]);
  std::printf("joints:");
  for (const auto& n : clip.skeleton.names) std::printf(" %s", n.c_str());
  std::printf("\n");
  return kExitOk;
}

}  // namespace

void add_inspect_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* cmd =
      app.add_subcommand("inspect", "Show a clip's skeleton, legs, frame rate, unit and up axis");
  cmd->add_option("clip", args->input, "Input clip")->required();
  add_clip_options(*cmd, args->clip);
  cmd->add_flag("--json", args->json, "Print JSON instead of text");
  cmd->callback(
      [args, &exit_code] { exit_code = run_guarded(args->input, [&] { return inspect(*args); }); });
}

}  // namespace ikfix::cli
