#pragma once
// Skeletons shared by the forward-kinematics tests (fk and the metrics' own FK pass).
#include <optional>
#include <string>

#include "core/skeleton.hpp"

namespace ikfix::core::test_util {

// A branching skeleton of nine joints: root, a spine of two (a leaf at its end), and two legs of
// three off the root (leaves at the ends). Rest transforms are identities.
inline Skeleton branching_skeleton() {
  Skeleton s;
  const int parents[] = {-1, 0, 1, 0, 3, 4, 0, 6, 7};
  for (int j = 0; j < 9; ++j) {
    s.names.push_back("j" + std::to_string(j));
    s.parents.push_back(parents[j]);
    s.rest.push_back(Transform{});
    s.end_sites.push_back(std::nullopt);
  }
  return s;
}

}  // namespace ikfix::core::test_util
