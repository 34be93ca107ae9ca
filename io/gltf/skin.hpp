#pragma once
// The skinned meshes of a glTF document as a core::Skin for a take's skeleton.
//
// Read: every node with both `mesh` and `skin` (each mesh/skin pair once), each primitive's
// POSITION with its JOINTS_n / WEIGHTS_n sets (each POSITION/JOINTS_0 pair once), and the skin's
// `joints` and `inverseBindMatrices` (identity when absent). A vertex v is, in joint k's frame at
// bind time, inverseBindMatrices[k] * v. As glTF 2.0 requires, the skinned mesh node's own
// transform is not applied: only the joints pose a skinned mesh. A skin joint that is not a
// joint of the skeleton (a folded "*_end" leaf, a joint of another skin) passes its influence to
// its nearest ancestor joint through the static node transforms in between; without one the
// influence is left out. Morph targets are not applied.
#include <memory>
#include <span>

#include "core/skin.hpp"
#include "io/gltf/document.hpp"

namespace ikfix::io::gltf {

// `joint_nodes`: the node of each skeleton joint. Null when no node has a skinned mesh (a file
// without skins costs one scan of its nodes). Throws InputError naming the file, the mesh and the
// problem on bad skin data: an accessor out of its buffer or of the wrong type, attribute counts
// that differ, a joint index past the skin's joints, a negative weight, fewer inverse bind
// matrices than joints.
std::shared_ptr<const core::Skin> read_skin(const Document& doc, std::span<const int> joint_nodes);

}  // namespace ikfix::io::gltf
