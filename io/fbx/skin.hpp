#pragma once
// The skinned meshes of an FBX file as a core::Skin for the skeleton of a ClipDocument.
//
// Read: every Geometry ("Mesh") with a Deformer "Skin", its Clusters' Indexes and Weights (per
// control point of `Vertices`) and `Transform`, and the mesh Model's geometric transform
// (GeometricTranslation, GeometricRotation in XYZ order, GeometricScaling). A cluster's
// `Transform` is the mesh's bind-time frame in its bone's frame (TransformLink^-1 times the
// mesh's global matrix, as Maya, 3ds Max and Blender write it), so a control point v is, in the
// bone's frame at bind time, Transform * Geometric * v (file units and axes). A bone Model that is
// not a joint of the skeleton (a folded "*_end" leaf) passes its influence to its nearest
// ancestor joint through the static transforms in between. Control points no cluster weighs are
// not part of the skin (nothing poses them).
#include <memory>

#include "core/skin.hpp"
#include "io/fbx/clip.hpp"

namespace ikfix::io::fbx {

// Null when the file has no skin cluster with weights (a skeleton-only file costs one scan of the
// Models). Throws InputError naming the file and the cluster on bad skin data: a control point
// index out of range, Indexes and Weights of different lengths, a non-finite or negative weight,
// a missing or non-finite Transform or Vertices.
std::shared_ptr<const core::Skin> read_skin(const ClipDocument& cd);

}  // namespace ikfix::io::fbx
