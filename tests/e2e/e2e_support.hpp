#pragma once
// Helpers for end-to-end tests: run the real ikfix binary, then measure what it wrote.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/fk.hpp"
#include "core/terrain.hpp"
#include "io/clip_io.hpp"
#include "io/file_util.hpp"
#include "io/terrain_io.hpp"
#include "test_data.hpp"
#include "test_scratch.hpp"

namespace ikfix::test {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `command` through the shell, stdout and stderr together.
inline CommandResult run_shell(const std::string& command_line) {
  const std::string command = command_line + " 2>&1";
  CommandResult result;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return result;
  std::array<char, 4096> buffer;
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0)
    result.output.append(buffer.data(), n);
  const int status = pclose(pipe.release());
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// Runs `ikfix ARGS` through the shell (arguments are quoted by the caller when needed).
inline CommandResult run_ikfix(const std::string& args) {
  return run_shell("'" + ikfix_binary().string() + "' " + args);
}

inline std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// A fresh temporary folder per test.
inline std::filesystem::path temp_dir(const std::string& name) { return scratch_dir(name); }

inline nlohmann::json read_json(const std::filesystem::path& p) {
  return nlohmann::json::parse(io::read_file(p));
}

inline std::filesystem::path bundled(const std::string& relative) {
  return source_dir() / "data" / relative;
}

// World positions (metres) of every joint for every frame of a clip file, as ikfix reads it.
struct PosedClip {
  io::LoadedClip loaded;
  std::vector<core::Vec3> positions;  // frame-major
  int joints = 0;
  const core::Vec3& at(int frame, int joint) const {
    return positions[static_cast<std::size_t>(frame) * joints + joint];
  }
};

inline PosedClip pose_clip(const std::filesystem::path& path,
                           const io::ClipLoadOptions& options = {}) {
  PosedClip posed{io::load_clip(path, options), {}, 0};
  const auto& s = posed.loaded.skeleton;
  posed.joints = s.joint_count();
  std::vector<core::Transform> world(posed.joints);
  for (int f = 0; f < posed.loaded.clip.frame_count; ++f) {
    core::forward_kinematics(s, posed.loaded.clip.frame(f), posed.loaded.space.to_world(), world);
    for (const auto& t : world) posed.positions.push_back(t.translation);
  }
  return posed;
}

}  // namespace ikfix::test
