#pragma once
// What the HTML report's viewer and plots show of one fixed clip, as plain data: world positions
// of every joint before and after the fix, the terrain under the clip, and per-frame series.
// Pure computation (no files): io/html_report writes it into the page.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/clip.hpp"
#include "core/legs.hpp"
#include "core/skeleton.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

// World positions (metres, Y up) of every joint and of the foot tips, frame-major:
// positions[frame * point_count + point], joints first (skeleton order), then the tips.
struct ViewPositions {
  int frame_count = 0;
  int point_count = 0;
  std::vector<Vec3> positions;
  const Vec3& at(int frame, int point) const {
    return positions[static_cast<std::size_t>(frame) * point_count + point];
  }
};

// One foot's per-frame values. Absent values (no ground below, not planted) are empty optionals.
struct FootSeries {
  // Lowest foot point above the ground right below it, metres: of every FootModel point when
  // the metrics give it (ReportViewInput::*_lowest_above_m), else of ankle, toe and toe tip.
  std::vector<std::optional<double>> lowest_before_m, lowest_after_m;
  // Horizontal speed of the planted pivot (the slower of ankle and toe), m/s, planted frames.
  std::vector<std::optional<double>> pivot_slide_before_mps, pivot_slide_after_mps;
  // Interior knee angle, degrees (180 = straight).
  std::vector<double> knee_before_deg, knee_after_deg;
  // Distance from the fixed ankle to the fix's target, metres, planted frames.
  std::vector<std::optional<double>> shortfall_m;
};

struct ViewSeries {
  std::vector<double> pelvis_change_m;  // pelvis world Y after minus before, metres
  FootSeries feet[2];                   // [0] left, [1] right
};

// The foot points a page marks, as point indices (tip: -1 when the toe has no end site).
struct ViewFoot {
  int ankle = -1;
  int toe = -1;
  int tip = -1;
};

// Another character's motion drawn beside the fixed one (retarget: the source clip).
struct ViewFigure {
  std::vector<std::string> joint_names;
  std::vector<int> parents;
  ViewPositions positions;  // joints only
};

struct ReportView {
  double fps = 30;
  std::vector<std::string> joint_names;
  std::vector<int> parents;  // per joint (view_parents); the tips' parents are their toe joints
  int pelvis = -1;
  ViewFoot feet[2];
  ViewPositions before, after;
  TerrainMesh terrain;  // world metres: the part under the clip's footprint, decimated if large
  ViewSeries series;
  std::optional<ViewFigure> source;  // retarget: the source clip (same frame count)
};

// Metres of terrain the view shows around the clip's joints (a run's footprint grows by it when
// the run makes a view: core::clip_footprint's view_margin_m).
inline constexpr double kViewTerrainMargin = 1.0;

struct ReportViewInput {
  const Skeleton* skeleton = nullptr;
  const Clip* before = nullptr;  // the input motion
  const Clip* after = nullptr;   // the fixed motion (same skeleton and frame count)
  ClipSpace space;
  LegRig rig;
  const Terrain* terrain = nullptr;
  // The fix's contacts and ankle targets ([leg][frame]); empty vectors: none (`check`).
  const std::vector<char>* planted[2] = {nullptr, nullptr};
  const std::vector<Vec3>* ankle_target_ws[2] = {nullptr, nullptr};
  // Optional: the points of `before` / `after` already found (put_view_row of the world
  // transforms core::MetricsInput::with_world hands over, with view_tip_owners), used instead
  // of FK again when they have the clip's frame count (any, when the clip is empty: its motion
  // was moved away to be fixed in place) and the view's points.
  std::optional<ViewPositions> before_positions, after_positions;
  // Optional: per leg and frame the lowest foot point's height above the terrain of `before` /
  // `after` (core::MetricsInput::lowest_above_out), used instead of querying the terrain again.
  const std::vector<double>* before_lowest_above_m = nullptr;
  const std::vector<double>* after_lowest_above_m = nullptr;
  // Retarget: the source character and clip, drawn with the target (null: none).
  const Skeleton* source_skeleton = nullptr;
  const Clip* source_clip = nullptr;
  ClipSpace source_space;
  double terrain_margin_m = kViewTerrainMargin;  // around the footprint
  std::size_t max_terrain_triangles = 40000;     // above that the crop is resampled on a grid
};

// The parent of each joint as the page draws bones: the skeleton's, except that the pelvis and
// its ancestors have none. The segments ending at them carry the root motion (an FBX or glTF
// pelvis walks away from the group node above it), so drawn they would be a metres-long bone.
std::vector<int> view_parents(const Skeleton& skeleton, int pelvis);

// World positions of every joint, then the end sites of `tip_owners` (in that order).
ViewPositions view_positions(const Skeleton& skeleton, const Clip& clip, const ClipSpace& space,
                             const std::vector<int>& tip_owners);
// Room for `frames` rows of the points above, all at the origin.
ViewPositions sized_view_positions(const Skeleton& skeleton, int frames,
                                   const std::vector<int>& tip_owners);
// Row `frame` of `out` (sized as above) from that frame's world transform of every joint.
void put_view_row(const Skeleton& skeleton, std::span<const Transform> world_ws,
                  const std::vector<int>& tip_owners, int frame, ViewPositions& out);

// The terrain under the points' horizontal bounds plus `margin_m`; when that keeps more than
// `max_triangles` triangles, a height grid sampled from the terrain instead (at most
// max_triangles triangles). Empty when no ground lies there.
TerrainMesh view_terrain(const Terrain& terrain, const ViewPositions& a, const ViewPositions& b,
                         double margin_m, std::size_t max_triangles);

// Interior angle at `knee` (degrees) of the hip-knee-ankle chain.
double knee_angle_deg(const Vec3& hip, const Vec3& knee, const Vec3& ankle);

// The joints whose end sites a view draws as toe tips: each leg's toe joint that has one.
std::vector<int> view_tip_owners(const Skeleton& skeleton, const LegRig& rig);

ReportView build_report_view(ReportViewInput input);

}  // namespace ikfix::core
