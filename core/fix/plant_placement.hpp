#pragma once
// Plant placement (before the plan passes): a planted foot whose footprint would sink into the
// terrain where the flat-floor input had none (the toe tip inside a riser or a wall ahead, the
// heel over a step behind) is placed where it fits: the whole plant moved horizontally along the
// foot's direction, backwards or forwards (up onto the step), by the least distance that clears
// every foot point, the same move on every frame of the plant (a plant never slides), eased in
// during the swing before it (a forward move only after the swing foot last stood beyond where
// the move puts it) and out during the swing after. A plant that fits nowhere within
// `max_move_m` is left where it is and its frames are reported blocked. A foot with no ball (no
// toe joint nor end site: a 2-bone leg whose foot mesh hangs on the shin) has no heel-to-toe
// line: its plant moves by the least fitting move of 16 directions around.
//
// Inside or outside is told by vertical queries (the terrain is a height field): on each planted
// frame each foot point (ankle, heel, ball, toe tip; the skin's sole vertices when given), held
// where the foot lock holds it, is raised as the plan will raise the foot (one height for the
// plant: the most its ankle or ball needs to stand on its planted level over the ground under
// it; the ground under the ankle is the ball's where the ankle is over a step above the ball's)
// and turned to the ground under the ankle; its depth under the ground at its (x, z) beyond what
// the input had under its own floor, at most as much as that ground stands above the ground
// under the ankle (what the terrain's steps add, not what the plan's lowering onto flat ground
// does), is its excess. A placement fits where no excess is above fit_m and the heel stands on
// the ground on some frame of the plant (a foot held only by its toes on a step edge does not),
// its height over the ground counted beyond what the plant's rise would be were the ground the
// clip floor (the plan sets each plant on its leg's planted level, terrain or not).
#include <span>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/fix/sample_legs.hpp"
#include "core/foot_model.hpp"
#include "core/math.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

struct PlacedPlant {
  int first = 0, last = 0;  // the plant's frames
  Vec3 move_ws{0.0};        // horizontal, metres (y = 0); zero when blocked
  bool backwards = true;    // against the foot's direction (else forwards, onto what blocks it)
  bool blocked = false;     // no placement within max_move_m fits
  double excess_m = 0;      // the deepest excess where the plant was (before the move), metres
};

struct PlantPlacement {
  std::vector<PlacedPlant> plants;  // only the plants that had to move or are blocked
  // Per frame: the move added to the input's foot points (empty when no plant moves).
  std::vector<Vec3> offset_ws;
  // Per frame: the excess of a blocked plant's frames, metres (empty when none is blocked).
  std::vector<double> blocked_excess_m;
};

struct PlantPlacementJob {
  const Terrain* terrain = nullptr;
  const LegSamples* samples = nullptr;  // the input's world transforms (its ankle and toe)
  const FootTrack* feet = nullptr;      // the leg's input ankle and ball (world metres)
  // Per frame: the foot lock's horizontal correction of the input's foot points (foot_lock.hpp,
  // as the plan's first pass makes it), so that a plant is tested where the lock holds it.
  std::span<const Vec3> lock_ws;
  const FootModel* foot = nullptr;        // the leg's foot: its points are queried
  std::span<const char> planted;          // per frame (the input contacts)
  double floor = 0;                       // the clip floor, world Y
  double ankle_level = 0, toe_level = 0;  // the planted levels of ankle and ball, world Y
  double max_foot_tilt = 0;   // radians: the plan turns a planted foot to the ground, at most
  double tolerance_m = 0.01;  // an excess above this makes a plant move
  double max_move_m = 0.3;    // farthest move searched, each way
  int ease_frames = 1;        // frames of the swing the move is eased over, at most
  double fit_m = 0.002;       // a placement fits where no excess is above this
  double margin_m = 0.01;     // clearance kept beyond the least fitting move
  // Per frame, the input's sole vertices (foot->sole_vertices, world metres), frame-major:
  // sole_ws[f * foot->sole_vertices.size() + k]. Empty: only the rigid points are queried.
  std::span<const Vec3> sole_ws;

  // Finds each plant's placement and the per-frame offsets. Never throws except what the terrain
  // queries throw.
  PlantPlacement run() const;
};

// Whether no plant on `terrain` can have an excess above `tolerance_m` (PlantPlacementJob::run
// would then move and block nothing), for a clip whose floor is `floor_y` (world Y), known
// without a query. A point's excess is at most its ground's height less the ground under the
// ankle; every ground answer lies within the mesh's vertex heights (bounds_min/max().y: the
// terrain clamps a triangle's plane to its height range) and a missed query counts as the floor, so
// the excess is at most the highest of these less the lowest: true when that is at most
// `tolerance_m` (level ground, its floor at most that far) and no query can throw (the terrain is
// held whole, no part read: TerrainPartTooSmall).
bool no_plant_can_move(const Terrain& terrain, double floor_y, double tolerance_m);

// Adds `placement`'s offsets to `feet` (the input's foot points the plan starts from).
void apply_plant_placement(const PlantPlacement& placement, FootTrack& feet);

// Reports the placement in `leg`: each moved plant in plant_moves, each blocked plant's frames
// (those not already unreachable for another reason) as unreachable with reason "blocked" and
// their excess as the shortfall. Call after the output measures were reduced into `leg`.
void report_plant_placement(const PlantPlacement& placement, LegDiagnostics& leg);

}  // namespace ikfix::core
