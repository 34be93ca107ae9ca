#pragma once
// FBX scene -> core Skeleton + Clip per take, and the bookkeeping the patcher needs to map the
// core's joints and frames back to Models, curve nodes and key times.
//
// Joints are the Models that deform a skin (linked to a skin Cluster) - or, in files without
// skins, the Models of type LimbNode, Limb or Root - and all their ancestors (so a scaled,
// rotated group node above a skeleton - the CMU files' "07_01" - is a joint too and world
// transforms come out right). Rig controls and leaf "_end" bones of skinned files move no mesh
// and are left out. Each joint's local transform folds in its pivots, offsets and
// pre/post rotations; InheritType RrSs is what the core composes, RSrs is exact while the
// ancestors' scales stay uniform, Rrs (segment scale compensate) is folded into the local scale
// while the parent's scale is uniform. Anything else is refused with a message naming the
// joint.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/clip.hpp"
#include "core/skeleton.hpp"
#include "io/fbx/document.hpp"
#include "io/fbx/scene.hpp"

namespace ikfix::io::fbx {

// Frames of one take: frame f is at start + round(f * kTicksPerSecond / fps) ticks.
struct TakeTiming {
  std::int64_t start = 0;
  std::int64_t stop = 0;
  int frame_count = 0;
  double fps = 30.0;
  std::int64_t time_of(int frame) const;
};

// A whole FBX file as ikfix keeps it between reading and writing.
struct ClipDocument {
  Document doc;
  Scene scene;
  std::vector<int> joint_models;  // Scene::models index of each core joint
  std::vector<int> model_joints;  // core joint of each model, -1 if not a joint
  core::Skeleton skeleton;
  // Per take (filled by sample_take), per joint: why the core's transform of that joint is not
  // exactly the file's (empty when it is). The patcher refuses to edit such a joint or any joint
  // below one.
  std::map<int, std::vector<std::string>> inexact;
};

// Which Models become core joints.
enum class JointSet {
  // For fixing a clip: the skin's deforming bones (every bone when nothing is skinned) and
  // their ancestors (see the header comment).
  deforming,
  // For a target character (retargeting): every bone (LimbNode, Limb, Root) and every deforming
  // Model, with their ancestors, so control bones (HipsCtrl, LeftFootIK) are known too; leaf bones
  // named "*_end" become their parent's end site instead of joints (io/end_leaves.hpp).
  armature,
};

// Reads and interprets a file. Throws InputError (FBX 6.x, no skeleton, ...).
std::shared_ptr<ClipDocument> read_clip_document(const std::filesystem::path& path,
                                                 JointSet joint_set = JointSet::deforming);
std::shared_ptr<ClipDocument> parse_clip_document(std::string data, const std::string& source_name,
                                                  JointSet joint_set = JointSet::deforming);

// The take's frames (LocalStart..LocalStop of its AnimationStack at the file's frame rate; the
// key range when the stack has none).
TakeTiming take_timing(const ClipDocument& cd, int take);

// The layer of `take` that animates the skeleton. Throws InputError when the take blends
// several layers on skeleton joints (ikfix cannot write back into a layer blend), or when it
// animates no joint at all.
int take_layer(const ClipDocument& cd, int take);

// Samples `take` at every frame: local transforms of every joint. Joints whose transform the
// core cannot represent exactly (see the header comment) are listed in cd.inexact[take].
core::Clip sample_take(ClipDocument& cd, int take, const TakeTiming& timing);

// Curve node of (model, channel) in `layer`, or -1.
int curve_node_of(const Scene& scene, int model, Channel channel, int layer);

// The value of a Model's Lcl Translation / Rotation / Scaling in `layer` at `time` (ticks):
// its curves where it has them, else the curve node's defaults, else the static property.
core::Vec3 channel_value(ClipDocument& cd, int model, Channel channel, int layer,
                         std::int64_t time);

}  // namespace ikfix::io::fbx
