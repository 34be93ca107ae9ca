#pragma once
// Foot lock, after the passes: a leg whose plan check would still see sliding above the goal
// (its plans alternated, e.g. over a heel whose speed sits at the contact threshold) has the
// sliding point held over the frames check measures it on, where that lowers the leg's worst
// sliding (pivot_repair.hpp has the search). A toe held so may carry its heel over a step edge,
// below the upper tread: there the foot turns up about the toe just enough.
#include <span>
#include <vector>

#include "core/fix/contacts.hpp"
#include "core/fix/ground_memo.hpp"
#include "core/math.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

// Heel rise of a toe-held foot per frame (radians, into `angle`): the smallest turn about the
// toe that puts the heel (ankle) at `heel_level` above the clip floor over the ground under it
// (`floor` where off the terrain), dilated and smoothed (sigma in frames) so it does not pop,
// kept fading after lift-off, and none where the heel is the held pivot (the turn would move
// it). Returns whether any frame needs a rise.
bool heel_rise_about_toe(std::span<const Vec3> heel, std::span<const Vec3> toe,
                         std::span<const signed char> pivots, std::span<const GroundHit> under_heel,
                         double floor, double heel_level, double max_heel_lift, double sigma,
                         std::vector<double>& angle);

struct PivotRepairJob {
  const Terrain* terrain = nullptr;
  // The passes' memos of this leg (checked heel, planned heel, checked toe): the repair's checks
  // cast rays only for points that moved.
  GroundMemo* checked_heel_memo = nullptr;
  const GroundMemo* planned_heel_memo = nullptr;
  GroundMemo* checked_toe_memo = nullptr;
  const ContactSettings* contact_settings = nullptr;  // scaled to the leg
  double fps = 0;
  double floor = 0;               // clip floor, world Y
  double planted_heel_level = 0;  // the ankle's planted level, world Y
  double max_heel_lift = 0;       // radians
  double smoothing_frames = 0;    // sigma of the heel rise, frames
  int blend_frames = 1;
  double unlock_radius = 0;      // metres
  double retry_slide_above = 0;  // m/s: the goal
  int max_repairs = 16;          // holds changed at most per leg

  // Repairs the holds of one leg: `ankle_target_ws` and `toe_target_ws` carry `pivot_hold`,
  // which is replaced, and `pivots` (per frame: 0 heel, 1 toe, -1 none) may change where a point
  // is held instead; a toe-held heel over a step edge turns `foot_rotation` up about the toe.
  void run(std::vector<signed char>& pivots, std::vector<Vec3>& ankle_target_ws,
           std::vector<Vec3>& toe_target_ws, std::vector<Vec3>& pivot_hold,
           std::vector<Quat>& foot_rotation) const;
};

}  // namespace ikfix::core
