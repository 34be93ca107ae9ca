#include "core/fix/ground_memo.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace ikfix::core {

void ground_at_parallel(const Terrain& terrain, std::span<const std::array<double, 2>> xz,
                        std::span<GroundHit> out, const ParallelRunner* runner) {
  // Split into runs of 16 points. Which points share a packet then depends on the split (and
  // ground_at packs only points unlike the one before them), but no answer depends on its packet
  // mates: a hit counts only well inside its triangle, and near an edge single nudged rays decide
  // (Terrain::Impl::query_packets). So the answers are the same whatever the thread count.
  constexpr std::size_t kBlock = 16;
  // Below this many blocks per thread (~1000 rays) another thread saves less than handing it
  // the work costs.
  constexpr int kMinBlocksPerRange = 64;
  const int blocks = static_cast<int>((xz.size() + kBlock - 1) / kBlock);
  parallel_ranges(runner, blocks, kMinBlocksPerRange, [&](int begin, int end) {
    const std::size_t first = begin * kBlock, last = std::min(xz.size(), end * kBlock);
    terrain.ground_at(xz.subspan(first, last - first), out.subspan(first, last - first));
  });
}

std::span<const GroundHit> GroundMemo::query(const Terrain& terrain, std::span<const Vec3> points,
                                             const GroundMemo* other) {
  const std::size_t n = points.size();
  if (other && (other == this || other->xz_.size() != n)) other = nullptr;
  if (xz_.size() != n && !other) {
    // First query of this track and nothing to borrow: every point is cast, in order, so cast
    // them straight into hits_ (the same packets as through the gather below, hence the same
    // answers) without filling hits_ first or scattering a copy back.
    xz_.resize(n);
    for (std::size_t i = 0; i < n; ++i) xz_[i] = {points[i].x, points[i].z};
    resize_unwritten(hits_, n);  // not initialised: every element is overwritten by the terrain
    ground_at_parallel(terrain, xz_, hits_, runner_);
    last_cast_count_ = n;
    return hits_;
  }
  if (xz_.size() != n) {  // first query of this track: nothing of its own to reuse
    xz_.assign(n, {std::numeric_limits<double>::quiet_NaN(), 0.0});  // matches no point's bits
    hits_.resize(n);
  }
  // Gather the points to cast, in frame order (neighbouring frames stay neighbours: a point well
  // inside the triangle of the one before it takes its answer without a search), then scatter
  // the answers back.
  std::vector<std::array<double, 2>>& cast_xz = cast_xz_;
  std::vector<std::size_t>& cast_index = cast_index_;
  cast_xz.clear();
  cast_index.clear();
  cast_xz.reserve(n);
  cast_index.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::array<double, 2> xz = {points[i].x, points[i].z};
    // Bitwise: -0.0 and 0.0 are equal as numbers but need not give bit-identical answers.
    if (std::memcmp(xz.data(), xz_[i].data(), sizeof xz) == 0) continue;
    xz_[i] = xz;
    if (other && std::memcmp(xz.data(), other->xz_[i].data(), sizeof xz) == 0) {
      hits_[i] = other->hits_[i];
      continue;
    }
    cast_xz.push_back(xz);
    cast_index.push_back(i);
  }
  last_cast_count_ = cast_xz.size();
  if (!cast_xz.empty()) {
    auto& cast_hits = cast_hits_;
    resize_unwritten(
        cast_hits,
        cast_xz.size());  // not initialised: every element is overwritten by the terrain's answer
    ground_at_parallel(terrain, cast_xz, cast_hits, runner_);
    for (std::size_t k = 0; k < cast_index.size(); ++k) hits_[cast_index[k]] = cast_hits[k];
  }
  return hits_;
}

}  // namespace ikfix::core
