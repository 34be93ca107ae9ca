#include "core/fix/shin_sole_clearance.hpp"

#include <algorithm>
#include <array>

#include "core/fix/fix_parallel.hpp"
#include "core/fix/foot_clearance.hpp"
#include "core/fix/ground_memo.hpp"
#include "core/terrain_solid.hpp"

namespace ikfix::core {

bool ShinSoleClearanceJob::validate() const {
  if (!solves || !terrain || max_rise_per_frame <= 0 || rise_smoothing_frames < 0) return false;
  for (int l = 0; l < 2; ++l)
    if ((foot[l] != nullptr) != (model[l] != nullptr) || rise_lead_frames[l] < 0) return false;
  return true;
}

void ShinSoleClearanceJob::pose_soles(std::vector<Vec3> (&sole)[2],
                                      const std::size_t (&count)[2]) const {
  const int frames = static_cast<int>(solves->body.size());
  const WriteBackJob& wb = *solves;
  Vec3 hip_cone_rest[2];
  wb.hip_cones(hip_cone_rest);
  const KneeLimit knee_limit(wb.knee_limit_angle);
  for (int l = 0; l < 2; ++l) sole[l].resize(static_cast<std::size_t>(frames) * count[l]);
  parallel_ranges(runner, frames, kMinFramesPerRange, [&](int begin, int end) {
    std::vector<Vec3> posed;
    for (int f = begin; f < end; ++f) {
      LegPose poses[2];
      LegSolveArgs args[2];
      LegSolveResult solved[2];
      wb.solve_frame(f, hip_cone_rest, knee_limit, poses, args, solved);
      for (int l = 0; l < 2; ++l) {
        if (count[l] == 0) continue;
        const Leg& leg = wb.rig->legs[l];
        const Transform& hip_in = wb.samples->at(f, leg.hip);
        const Transform& knee_in = wb.samples->at(f, leg.knee);
        const SolvedLeg solved_leg{
            hip_in, Transform{args[l].hip_ws, solved[l].hip_rot_ws, hip_in.scale}, knee_in,
            Transform{solved[l].knee_ws, solved[l].knee_rot_ws, knee_in.scale},
            args[l].hip_ws - poses[l].hip_ws};
        PlannedFoot planned{args[l].target_ws, wb.foot_rotation[l][f], Vec3(1, 0, 0), 0.0,
                            &solved_leg};
        const ToeBend& bend = wb.toe_bend[l];
        if (!bend.angle.empty()) {
          planned.bend_axis_ws = bend.axis[f];
          planned.bend_angle = bend.angle[f];
        }
        foot[l]->pose(f, planned, posed);
        std::copy(posed.end() - static_cast<std::ptrdiff_t>(count[l]), posed.end(),
                  sole[l].begin() + static_cast<std::ptrdiff_t>(f * count[l]));
      }
    }
  });
}

void ShinSoleClearanceJob::lacks(std::vector<double> (&lack)[2]) const {
  const int frames = static_cast<int>(solves->body.size());
  std::vector<Vec3> sole[2];
  std::size_t count[2] = {0, 0};
  for (int l = 0; l < 2; ++l) count[l] = foot[l] ? model[l]->sole_vertices.size() : 0;
  pose_soles(sole, count);
  for (int l = 0; l < 2; ++l) {
    lack[l].assign(frames, 0.0);
    if (count[l] == 0) continue;
    std::vector<std::array<double, 2>> xz(sole[l].size());
    for (std::size_t i = 0; i < xz.size(); ++i) xz[i] = {sole[l][i].x, sole[l][i].z};
    std::vector<GroundHit> ground(xz.size());
    ground_at_parallel(*terrain, xz, ground, runner);
    std::vector<SolidDepth> depth(xz.size());
    solid_depth(*terrain, sole[l], ground, depth);
    for (int f = 0; f < frames; ++f)
      for (std::size_t k = 0; k < count[l]; ++k) {
        const SolidDepth& d = depth[f * count[l] + k];
        // A planted point much nearer another surface than the one above it is inside a riser
        // or a wall: raising the plant to the tread beyond would leave it floating (the
        // placement's, as in step 5c).
        if (!d.inside || (planted[l][f] && d.nearest_m < kRiserDepthFraction * d.vertical_m))
          continue;
        lack[l][f] = std::max(lack[l][f], d.vertical_m);
      }
  }
}

void ShinSoleClearanceJob::run(std::span<Vec3> ankle_target_ws[2], std::span<Vec3> toe_target_ws[2],
                               ShinSoleClearance (&out)[2]) const {
  if (!foot[0] && !foot[1]) return;
  const int frames = static_cast<int>(solves->body.size());
  std::vector<double> total[2] = {std::vector<double>(frames, 0.0),
                                  std::vector<double>(frames, 0.0)};
  for (int pass = 0; pass < kMaxShinSolePasses; ++pass) {
    std::vector<double> lack[2];
    lacks(lack);
    bool lacking = false;
    for (int l = 0; l < 2; ++l) {
      if (!foot[l]) continue;
      if (*std::max_element(lack[l].begin(), lack[l].end()) <= kShinSoleTolerance) continue;
      lacking = true;
      out[l].passes = pass + 1;
      const std::vector<double> rise = clearance_rise(lack[l], planted[l], rise_smoothing_frames,
                                                      max_rise_per_frame, rise_lead_frames[l]);
      for (int f = 0; f < frames; ++f) {
        ankle_target_ws[l][f].y += rise[f];
        toe_target_ws[l][f].y += rise[f];
        total[l][f] += rise[f];
      }
    }
    if (!lacking) break;
  }
  for (int l = 0; l < 2; ++l)
    for (int f = 0; f < frames; ++f) {
      if (!(total[l][f] > 0)) continue;
      ++out[l].lifted_frames;
      out[l].max_lift_m = std::max(out[l].max_lift_m, total[l][f]);
    }
}

}  // namespace ikfix::core
