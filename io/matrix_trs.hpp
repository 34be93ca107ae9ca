#pragma once
// 4x4 matrices (glTF `matrix`, FBX bind-pose matrices) <-> translation / rotation / scale.
#include <glm/glm.hpp>

#include "core/math.hpp"

namespace ikfix::io {

// Decomposes an affine matrix (column vectors, translation in m[3]) into TRS. A mirror is put on
// the X scale. Returns the largest shear left out (|cos| between the scaled axes; 0 for a clean
// TRS). A zero scale gives an identity rotation.
double decompose_trs(const glm::dmat4& m, core::Transform& out);

// The matrix of a TRS transform (scale, then rotation, then translation).
glm::dmat4 trs_matrix(const core::Transform& t);

}  // namespace ikfix::io
