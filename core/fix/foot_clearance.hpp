#pragma once
// Step 5c: the whole foot out of the terrain. The steps before guard the ankle and the ball;
// this one poses every foot point (heel, toe tip, sole vertices: foot_model.hpp) where the
// write-back will put it (output_foot.hpp) and asks the terrain straight down at each point's
// own x, z. A point inside a stair riser is under the tread there, so a vertical query finds
// it too. Where a toe point is under, the toes bend further up at the ball (within
// max_toe_bend); where any point is still under, the foot rises by what it lacks. Both are
// dilated and smoothed (the house pattern of swing_clearance and toe_bend), so nothing pops; a
// planted foot rises by one amount over its whole plant, so it never moves while planted, and
// never for a point inside a riser or a wall (max_planted_rise): that is the placement's.
#include <span>
#include <vector>

#include "core/fix/output_foot.hpp"
#include "core/fix/toe_bend_step.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

// Metres, for a leg of FixSettings::reference_leg_length: the most a planted foot is raised so
// that all of it is out of the terrain. A point deeper than this under the surface straight
// above it is not in a dip of the ground but inside a riser or a wall, under the tread beyond:
// raising the plant that far would leave it floating, so such points are left to the plant's
// placement.
inline constexpr double kMaxPlantedClearanceRise = 0.05;

// What the step did to one leg, for the report's diagnostics.
struct FootClearance {
  int bent_frames = 0;    // frames whose toes bend further than the toe bend step made them
  int lifted_frames = 0;  // frames whose foot was raised
  double max_lift_m = 0;  // the largest raise, metres
};

// The raise per frame (metres) that covers `need` (>= 0 per frame, metres): one amount over each
// plant of `planted` (its largest need), the swing's need under a dilated envelope smoothed with
// sigma `smoothing_frames`, brought down to each plant's raise by touchdown, ramped at
// `max_rise_per_frame` and started up to `lead_frames` before lift-off where needed.
std::vector<double> clearance_rise(std::span<const double> need, std::span<const char> planted,
                                   double smoothing_frames, double max_rise_per_frame,
                                   int lead_frames);

// Whether every point lies at or above the terrain's highest vertex (bounds_max().y) on a
// terrain held whole: each is then at or above ground_ceiling there too (every ground answer
// lies within the vertex heights: the terrain clamps a triangle's plane to its height range,
// and no query can throw TerrainPartTooSmall), so none is under the terrain, known without a
// lookup of the ceiling's cells. False for a terrain read in part (its ceiling is +infinity
// where a query would throw, which the caller must see).
bool all_above_mesh(const Terrain& terrain, std::span<const Vec3> points_ws);

struct FootClearanceJob {
  const OutputFoot* foot = nullptr;
  const Terrain* terrain = nullptr;
  double floor = 0;                     // clip floor, world Y (off the terrain)
  std::span<const char> planted;        // per frame
  std::span<const Quat> foot_rotation;  // per frame: the ankle's new world rotation
  // Whether the toes may bend: a toe joint hanging from the ankle with foot alignment on (the
  // write-back bends only such a toe).
  bool can_bend = false;
  double max_toe_bend = 0;           // radians
  double bend_smoothing_frames = 0;  // sigma of the extra bend's envelope, frames
  double rise_smoothing_frames = 0;  // sigma of the raise's envelope, frames
  double max_rise_per_frame = 0;     // metres: the fastest the raise may grow or shrink
  int rise_lead_frames = 0;          // frames before lift-off a raise may start in
  // Metres: on planted frames, points lacking more than this are not raised for (see
  // kMaxPlantedClearanceRise); swing frames are raised by whatever they lack.
  double max_planted_rise = 0;
  const ParallelRunner* runner = nullptr;

  bool validate() const;
  // Bends `toe_bend` further (filled in, axes included, when it was empty) where a toe point is
  // under the terrain, then raises both targets (world metres) where any point still is.
  FootClearance run(std::span<Vec3> ankle_target_ws, std::span<Vec3> toe_target_ws,
                    ToeBend& toe_bend) const;

 private:
  void lacks(std::span<const Vec3> ankle_target_ws, const ToeBend& toe_bend,
             std::span<const int> frames, std::vector<Vec3>& points,
             std::vector<double>& lack) const;
  int bend_more(const std::vector<Vec3>& points, const std::vector<double>& lack,
                ToeBend& toe_bend) const;
};

}  // namespace ikfix::core
