#include "core/fix/ground_memo.hpp"

#include <cstring>

namespace ikfix::core {

std::span<const GroundHit> GroundMemo::query(const Terrain& terrain, std::span<const Vec3> points) {
  const std::size_t n = points.size();
  if (xz_.size() != n) {  // first query of this track: cast every point
    xz_.resize(n);
    hits_.resize(n);
    for (std::size_t i = 0; i < n; ++i) xz_[i] = {points[i].x, points[i].z};
    terrain.ground_at(xz_, hits_);
    last_cast_count_ = n;
    return hits_;
  }
  // Gather the points to cast, in frame order (neighbouring frames stay neighbours in Embree's
  // packets), then scatter the answers back.
  std::vector<std::array<double, 2>> cast_xz;
  std::vector<std::size_t> cast_index;
  for (std::size_t i = 0; i < n; ++i) {
    const std::array<double, 2> xz = {points[i].x, points[i].z};
    // Bitwise: -0.0 and 0.0 are equal as numbers but need not give bit-identical answers.
    if (std::memcmp(xz.data(), xz_[i].data(), sizeof xz) == 0) continue;
    xz_[i] = xz;
    cast_xz.push_back(xz);
    cast_index.push_back(i);
  }
  last_cast_count_ = cast_xz.size();
  if (!cast_xz.empty()) {
    std::vector<GroundHit> cast_hits(cast_xz.size());
    terrain.ground_at(cast_xz, cast_hits);
    for (std::size_t k = 0; k < cast_index.size(); ++k) hits_[cast_index[k]] = cast_hits[k];
  }
  return hits_;
}

}  // namespace ikfix::core
