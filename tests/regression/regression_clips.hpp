#pragma once
// The clips the regression suites run: every humanoid clip with animation in ../shared/data/anim
// (its MANIFEST.md). Every BVH (named bare, as the regression table always had them), and the
// FBX and glTF ones by their folder. Left out: the two Maya HumanIK files (Assimp imports no
// animation from them: nothing to fix) and the non-humanoids (Fox, the sausages, the slime, the
// spider, the generic armatures).
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "test_data.hpp"

namespace ikfix::test {

// Sorted BVH names first, then the FBX and glTF list; empty when ../shared/data is missing.
inline std::vector<std::string> shared_regression_clips() {
  std::vector<std::string> out;
  const auto dir = shared_data_dir() / "anim/bvh";
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  if (out.empty()) return out;
  for (const char* other :
       {"fbx/cmu_01_01_forward_jumps_skeleton.fbx", "fbx/cmu_07_01_walk_skeleton.fbx",
        "fbx/cmu_09_11_run_skeleton.fbx", "fbx/cmu_55_01_dance_whirl_skeleton.fbx",
        "fbx/kenney_character_maya_7700.fbx", "fbx/barbarian_blender_7400.fbx",
        "gltf/CesiumMan.glb"})
    out.push_back(other);
  return out;
}

// A shared clip's file: bare names are BVH files.
inline std::filesystem::path shared_regression_clip_path(const std::string& clip) {
  return shared_data_dir() / "anim" / (clip.find('/') == std::string::npos ? "bvh/" + clip : clip);
}

}  // namespace ikfix::test
