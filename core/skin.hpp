#pragma once
// A character's skinned mesh, reduced to what measuring the feet needs: each vertex with its
// joint influences, posed by linear blend skinning with the file's own bind matrices.
#include <array>
#include <span>
#include <vector>

#include "core/math.hpp"

namespace ikfix::core {

// One skinned vertex. Up to four influences (the heaviest four when the file has more, their
// weights renormalised to sum to 1); unused slots have joint -1 and weight 0.
// `local[i]` is the vertex at bind time expressed in the local frame of joint[i] (the file's
// inverse bind matrix and mesh transform already applied, clip units and axes), so that, with
// `world` the FK world transforms of a frame (metres, Y up),
//     position_ws = sum_i weight[i] * transform_point(world[joint[i]], local[i]).
// Storing the vertex per influence keeps the posing exact for characters whose meshes each have
// their own bind matrices (one Skin holds every skinned mesh of the file).
struct SkinnedVertex {
  std::array<int, 4> joint{-1, -1, -1, -1};
  std::array<double, 4> weight{0, 0, 0, 0};
  std::array<Vec3, 4> local{};
};

struct Skin {
  std::vector<SkinnedVertex> vertices;  // every skinned vertex of every skinned mesh
};

// World position (metres, Y up) of vertex `v` on a frame whose world transforms are `world` (one
// per joint of the skeleton the skin was read for).
inline Vec3 skinned_position(const SkinnedVertex& v, std::span<const Transform> world) {
  Vec3 p(0.0);
  for (int i = 0; i < 4; ++i)
    if (v.joint[i] >= 0 && v.weight[i] != 0.0)
      p += v.weight[i] * transform_point(world[v.joint[i]], v.local[i]);
  return p;
}

}  // namespace ikfix::core
