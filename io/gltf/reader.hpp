#pragma once
// glTF 2.0 reader: .gltf (embedded data-URI or external buffers) and .glb -> Document, and one
// animation of a Document -> core Skeleton + Clip (a "take").
//
// Skeleton of a take: the joints of one skin - the skin whose joints (and their ancestors) the
// animation targets most, ties to the lower index - or, in a file without skins, every node in
// the subtrees of the animated nodes; plus all their ancestors up to the scene root, so that
// world transforms are right (e.g. CesiumMan's Z_UP and Armature nodes above its root joint).
// Joints are ordered parents first (depth first from the scene's root nodes, children in file
// order). Rest = each node's TRS (a `matrix` is decomposed; shear is dropped with a warning).
//
// Frames of a take: the union of the key times of every sampler that drives a skeleton joint.
// When those times lie on one uniform grid (every time a whole number of steps from the first,
// e.g. 1/24 s with sparse keys), the frames are that grid and the key times are used exactly;
// otherwise the clip is sampled at ReadOptions::sample_fps (default 30) from the first to the
// last key time, the last frame landing exactly on the last key. Joints without a channel keep
// their rest TRS on every frame. Units: glTF is metres and +Y up; a rest pose whose size looks
// like another unit gives a warning (the unit stays metres, as the file says).
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clip.hpp"
#include "core/skeleton.hpp"
#include "io/gltf/document.hpp"

namespace ikfix::io::gltf {

// Parses a whole file: `bytes` are its contents; `path` names it in errors and is the base for
// external buffer uris (read from disk). Throws InputError with the file and the cause.
Document parse(std::string bytes, const std::filesystem::path& path);
// Reads `path` (.gltf or .glb; the container is detected from the bytes) and parses it.
Document read_file(const std::filesystem::path& path);

// Index of the animation named `take`, else `take` read as a 0-based index. Throws InputError
// listing the animations when neither matches.
int find_animation(const Document& doc, std::string_view take);

struct ReadOptions {
  // Frame rate used when the key times are not on one uniform grid (> 0; default 30 fps).
  std::optional<double> sample_fps;
};

// What the writer needs to put a take back: the animation, the node of every joint and the
// time of every frame. Shared by every LoadedClip of the same document.
struct TakeLayout {
  std::shared_ptr<const Document> document;
  int animation = 0;                // -1 for the rest pose of a file read by extract_rest_take
  std::vector<int> joint_nodes;     // node index of each skeleton joint
  std::vector<double> frame_times;  // seconds, one per clip frame (as stored: float values)
};

struct Take {
  TakeLayout layout;
  std::string name;  // the animation's display name
  core::Skeleton skeleton;
  core::Clip clip;
  bool uniform_grid = false;  // frames are the file's own uniform key grid
  std::vector<std::string> warnings;
  std::string unit_note;  // non-empty when the rest pose suggests another unit than metres
};

// Extracts animation `animation` of `document`. Throws InputError on malformed samplers.
Take extract_take(std::shared_ptr<const Document> document, int animation,
                  const ReadOptions& options = {});

// The character of a file, animated or not: the joints of the skin with the most joints plus
// their ancestors (without skins, every node: a skeleton-only asset), ordered as extract_take
// orders them, and a one-frame clip of their rest TRS (layout.animation = -1, frame time 0).
// Throws InputError when the file has no node.
Take extract_rest_take(std::shared_ptr<const Document> document);

}  // namespace ikfix::io::gltf
