#pragma once
// Steps 7-10, per frame: the pelvis shifted (body rise minus pelvis drop), both legs solved to
// their ankle targets (leg_solve.hpp), the foot turned and the toes bent, and the local
// rotations written back over the input motion; then the written frame is measured
// (output_measure.hpp) while it is in cache.
#include <span>
#include <vector>

#include "core/clip.hpp"
#include "core/fix/fix_settings.hpp"
#include "core/fix/leg_solve.hpp"
#include "core/fix/output_measure.hpp"
#include "core/fix/sample_legs.hpp"
#include "core/fix/toe_bend_step.hpp"

namespace ikfix::core {

struct WriteBackJob {
  const Skeleton* skeleton = nullptr;
  const LegSamples* samples = nullptr;  // the input motion's world transforms
  const LegRig* rig = nullptr;
  const FixSettings* settings = nullptr;
  Transform to_world;                       // clip -> world metres
  double leg_length = 0;                    // metres (the knee pole's distance)
  double knee_limit_angle = 0;              // radians (LegSamples::knee_limit_angle)
  std::span<const double> body;             // per frame: body rise, metres (step 4)
  std::span<const double> drop;             // per frame: pelvis drop, metres (step 6)
  const FootTrack* planned_feet = nullptr;  // [2]: the locked feet (their forward direction)
  std::span<const Vec3> ankle_target_ws[2];
  std::span<const Quat> foot_rotation[2];     // per leg and frame: the ankle's new world rotation
  const ToeBend* toe_bend = nullptr;          // [2]
  const OutputMeasureJob* measure = nullptr;  // null: only the solves (solve_frame) are asked
  const ParallelRunner* runner = nullptr;

  // Each leg's rest hip->ankle direction in the pelvis's frame (the hip cones of LegPose).
  void hip_cones(Vec3 (&hip_cone_rest)[2]) const;
  // Frame f's two leg solves, as run() makes them: the animated legs in `poses`, the solves'
  // arguments in `args` (the hip shifted by the body rise less the pelvis drop), their results
  // in `solved`. `knee_limit`: KneeLimit(knee_limit_angle).
  void solve_frame(int f, const Vec3 (&hip_cone_rest)[2], const KneeLimit& knee_limit,
                   LegPose (&poses)[2], LegSolveArgs (&args)[2], LegSolveResult (&solved)[2]) const;

  // Writes the fixed pelvis and legs over `motion` (which holds the input: each joint's input
  // rotation is read just before it is replaced). Flags every joint whose local transform
  // changed in `changed_joints` and every changed rotation in `changed_rotations` (frame-major);
  // records each frame's solve in `solves` and its measure in `measured` (two a frame).
  void run(Clip& motion, std::vector<char>& changed_joints, std::vector<char>& changed_rotations,
           SolveRecord& solves, std::vector<OutputMeasure>& measured) const;

 private:
  void write_range(int begin, int end, Clip& motion, const Vec3 (&hip_cone_rest)[2],
                   std::vector<char>& changed, std::vector<char>& changed_rotations,
                   SolveRecord& solves, std::vector<OutputMeasure>& measured) const;
};

}  // namespace ikfix::core
