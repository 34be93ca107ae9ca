#include "io/clip_facts.hpp"

#include <atomic>

#include "io/bvh/document.hpp"
#include "io/fbx/clip.hpp"

namespace ikfix::io {
namespace {

std::atomic<int> g_max_joints{0};

}  // namespace

std::vector<char> group_nodes(const LoadedClip& clip) {
  if (clip.format != "fbx" || !clip.document) return {};
  const auto& cd = *static_cast<const fbx::ClipDocument*>(clip.document.get());
  if (cd.joint_models.size() != static_cast<std::size_t>(clip.skeleton.joint_count())) return {};
  std::vector<char> out(cd.joint_models.size(), 0);
  for (std::size_t j = 0; j < out.size(); ++j) {
    const fbx::Model& m = cd.scene.models[cd.joint_models[j]];
    const bool bone = m.deforms || m.type == "LimbNode" || m.type == "Limb" || m.type == "Root";
    out[j] = bone ? 0 : 1;
  }
  return out;
}

std::string bvh_positions(const LoadedClip& clip) {
  if (clip.format != "bvh" || !clip.document) return {};
  const auto& doc = *static_cast<const bvh::Document*>(clip.document.get());
  return doc.positions == bvh::PositionConvention::channels_only ? "channels_only"
                                                                 : "offset_plus_channels";
}

void set_max_joints(int joints) { g_max_joints.store(joints > 0 ? joints : 0); }
int max_joints() { return g_max_joints.load(); }

}  // namespace ikfix::io
