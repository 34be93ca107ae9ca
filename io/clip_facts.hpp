#pragma once
// What a loaded clip's file says beyond its skeleton and motion, for the commands and the core
// (leg detection) to use without knowing the format; and the process's cap on joints.
#include <string>
#include <vector>

#include "io/clip_io.hpp"

namespace ikfix::io {

// Per joint of `clip.skeleton`: 1 for a group node, a joint that is only an ancestor of the
// bones and not a bone itself (an FBX Model that is no LimbNode, Limb or Root and deforms
// nothing, such as the CMU skeleton files' scaled, rotated root named after the take). Empty
// when the format marks no such nodes (BVH, glTF, Collada). For core::LegDetectionInput.
std::vector<char> group_nodes(const LoadedClip& clip);

// BVH only ("" otherwise): what the file's position channels hold, as found from the values:
// "offset_plus_channels" (the BVH convention) or "channels_only" (Blender's export: each
// joint's whole local translation). See bvh::PositionConvention.
std::string bvh_positions(const LoadedClip& clip);

// Every clip or character loaded after this call (load_clip, load_takes, load_character) with
// more joints than `joints` is refused: an InputError naming the file and both numbers, for
// BVH before any frame is read. 0 (the default): no limit. The CLI's --max-joints sets it.
void set_max_joints(int joints);
int max_joints();

}  // namespace ikfix::io
