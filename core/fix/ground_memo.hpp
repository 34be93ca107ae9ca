#pragma once
// Ground under a track of points (one per frame) that remembers its last answers, so that
// querying the track again casts rays only for the points that moved horizontally. The fix
// queries the same feet several times: its contact passes re-plan with most feet where they
// were (only plants whose pivot changed move), and a heel's checked target keeps its planned
// (x, z) wherever no pivot hold shifts it (swing frames).
#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "core/math.hpp"
#include "core/parallel.hpp"
#include "core/terrain.hpp"
#include "core/unwritten_resize.hpp"

namespace ikfix::core {

// terrain.ground_at(xz, out), the points split over `runner`'s threads (null: this thread) in
// runs of whole packets, so every ray is cast in the same packet as in one call and the
// answers are the same bit for bit.
void ground_at_parallel(const Terrain& terrain, std::span<const std::array<double, 2>> xz,
                        std::span<GroundHit> out, const ParallelRunner* runner);

class GroundMemo {
 public:
  // Threads the queries may cast their rays on (null, the default: this thread only).
  void use_runner(const ParallelRunner* runner) { runner_ = runner; }
  // The terrain's answer under each point (world metres, Y up; only x and z matter), exactly
  // as Terrain::ground_at gives it: a point whose x and z are bit for bit those of the same
  // index in this memo's previous query, or else in `other`'s last query (a memo of another
  // track of the same length: a foot's planned and checked positions), reuses that answer.
  // Valid until the next query.
  std::span<const GroundHit> query(const Terrain& terrain, std::span<const Vec3> points,
                                   const GroundMemo* other = nullptr);
  // Rays cast by the last query (points new or moved), for tests.
  std::size_t last_cast_count() const { return last_cast_count_; }

 private:
  std::vector<std::array<double, 2>> xz_;
  UnwrittenResizeVector<GroundHit> hits_;
  // The points a query casts and their answers, kept between queries so that each query does
  // not allocate (and fault in) fresh pages for them.
  std::vector<std::array<double, 2>> cast_xz_;
  std::vector<std::size_t> cast_index_;
  UnwrittenResizeVector<GroundHit> cast_hits_;  // overwritten by the terrain
  std::size_t last_cast_count_ = 0;
  const ParallelRunner* runner_ = nullptr;
};

}  // namespace ikfix::core
