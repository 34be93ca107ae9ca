#pragma once
// Ground under a track of foot points (one per frame), relative to the clip floor.
#include <span>
#include <vector>

#include "core/math.hpp"
#include "core/parallel.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

// Ground under one foot point for every frame.
struct GroundTrack {
  std::vector<double> height;  // terrain Y, metres (clip floor where off the terrain)
  std::vector<Vec3> normal;    // unit, world; up where off the terrain
  std::vector<char> hit;       // 1 where the terrain is below the point
};

// Into `g`, reusing its storage (the contact passes fill the same tracks pass after pass); with
// `only` (per point), just the points it marks (the others are as they were).
void fill_ground_track(std::span<const GroundHit> hits, double floor, GroundTrack& g,
                       std::span<const char> only = {});

GroundTrack ground_track(std::span<const GroundHit> hits, double floor);

// The terrain under each point (only x and z matter), cast on `runner`'s threads (null: this
// thread); the same answers whatever the runner.
GroundTrack query_ground(const Terrain& terrain, const std::vector<Vec3>& points, double floor,
                         const ParallelRunner* runner = nullptr);

}  // namespace ikfix::core
