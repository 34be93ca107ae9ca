#include "cli/cmd_map.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/clip_options.hpp"
#include "cli/command_guard.hpp"
#include "cli/exit_codes.hpp"
#include "core/retarget/bone_map.hpp"
#include "io/bone_map_json.hpp"
#include "io/clip_io.hpp"
#include "io/error.hpp"

namespace ikfix::cli {
namespace {

struct MapArgs {
  std::string source;
  std::string target;
  std::string save;
  bool json = false;
};

std::string joined_names(const std::vector<int>& joints, const core::Skeleton& s) {
  if (joints.empty()) return "(none)";
  std::string out;
  for (int j : joints) out += (out.empty() ? "" : ", ") + s.names[j];
  return out;
}

// Characters on screen (UTF-8 continuation bytes take no column), for aligned columns.
std::size_t columns(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// `s` padded with spaces to `width` columns.
std::string padded(const std::string& s, std::size_t width) {
  const std::size_t n = columns(s);
  return n >= width ? s : s + std::string(width - n, ' ');
}

void print_table(const MapArgs& args, const core::BoneMap& map, const core::Skeleton& src,
                 const core::Skeleton& tgt) {
  std::printf("%s (%d joints) -> %s (%d joints): %zu pairs\n", args.source.c_str(),
              src.joint_count(), args.target.c_str(), tgt.joint_count(), map.pairs.size());
  std::size_t ws = 6, wt = 6, wr = 4;
  auto target_of = [&](const core::BonePair& p) {
    return tgt.names[p.target] + (p.target_end_site ? " (end)" : "");
  };
  for (const auto& p : map.pairs) {
    ws = std::max(ws, columns(src.names[p.source]));
    wt = std::max(wt, columns(target_of(p)));
    wr = std::max(wr, columns(p.role));
  }
  std::printf("  %s  %s  %s  %-12s  %s\n", padded("source", ws).c_str(),
              padded("target", wt).c_str(), padded("role", wr).c_str(), "provenance", "confidence");
  for (const auto& p : map.pairs)
    std::printf("  %s  %s  %s  %-12s  %.2f\n", padded(src.names[p.source], ws).c_str(),
                padded(target_of(p), wt).c_str(), padded(p.role, wr).c_str(),
                core::provenance_name(p.provenance), p.confidence);
  std::printf("unmapped source: %s\n", joined_names(map.unmapped_source, src).c_str());
  std::printf("unmapped target: %s\n", joined_names(map.unmapped_target, tgt).c_str());
  std::printf("excluded target (control/IK/helper, never written): %s\n",
              joined_names(map.excluded_target, tgt).c_str());
}

int run_map(const MapArgs& args) {
  const io::LoadedClip source = io::load_clip(args.source);
  // The whole character, controls included (the map excludes them), with or without animation.
  const io::LoadedClip target = io::load_character(args.target);
  const core::RestPose src_rest = core::make_rest_pose(source.skeleton, source.space.to_world());
  const core::RestPose tgt_rest = core::make_rest_pose(target.skeleton, target.space.to_world());
  const core::BoneMap map = core::auto_map(src_rest, tgt_rest);
  if (!map.missing_roles.empty()) {
    std::string roles;
    for (const auto& r : map.missing_roles) roles += (roles.empty() ? "" : ", ") + r;
    throw io::InputError(args.target, "no usable bone map from " + args.source +
                                          ": required roles not found on both skeletons: " + roles +
                                          " (pair them in a map file: ikfix retarget --map)");
  }
  if (!args.save.empty()) {
    io::save_bone_map(args.save, map, source.skeleton, target.skeleton, args.source, args.target);
    spdlog::info("bone map saved to {}", args.save);
  }
  if (args.json) {
    std::printf("%s\n",
                io::bone_map_json(map, source.skeleton, target.skeleton, args.source, args.target)
                    .dump(2)
                    .c_str());
  } else {
    print_table(args, map, source.skeleton, target.skeleton);
  }
  return kExitOk;
}

}  // namespace

void add_map_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<MapArgs>();
  CLI::App* cmd = app.add_subcommand(
      "map", "Show (and save) the automatic bone map from a clip's skeleton to a target character");
  cmd->add_option("source", args->source, "Source clip (BVH, FBX, glTF)")->required();
  cmd->add_option("--to", args->target, "Target character (its skeleton and rest pose)")
      ->required();
  cmd->add_option("--save", args->save,
                  "Write the map as JSON (ikfix-bone-map-v1), to edit and pass to retarget --map");
  cmd->add_flag("--json", args->json, "Print the map as JSON instead of a table");
  add_max_joints_option(*cmd);
  add_max_memory_option(*cmd);
  add_assimp_timeout_option(*cmd);
  cmd->callback([args, &exit_code] {
    exit_code = run_guarded(args->source, [&] { return run_map(*args); });
  });
}

}  // namespace ikfix::cli
