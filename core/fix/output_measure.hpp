#pragma once
// Output measurement: what was written, measured on each frame right after its write-back (FK
// of the output) — correction, residual, penetration, bone lengths — then reduced in frame
// order into the diagnostics (the same figures whatever the threads).
#include <span>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/fix/ground_track.hpp"
#include "core/fix/sample_legs.hpp"

namespace ikfix::core {

// One leg on one frame of the output.
struct OutputMeasure {
  double correction = 0;   // |output ankle - input ankle|, metres
  double shortfall = 0;    // |output ankle - ankle target|, metres
  double penetration = 0;  // planted: ankle or toe below its level over the ground, metres
  // Planted on ground steeper than the foot may tilt: how far the sole misses it, metres.
  double steep_gap = 0;
  double bone_change[2] = {-1, -1};  // thigh, shin: relative; -1 where the input bone has none
};

struct OutputMeasureJob {
  const LegSamples* samples = nullptr;  // the input (bone lengths before)
  const LegRig* rig = nullptr;
  bool align_feet = true;
  double max_foot_tilt = 0;  // radians
  std::span<const Vec3> input_ankle[2];
  std::span<const Vec3> ankle_target_ws[2];
  std::span<const char> planted[2];
  const GroundTrack (*ground)[2] = nullptr;  // per leg: under the planned heel and toe
  std::span<const double> planted_level[2];  // per leg: ankle, toe planted levels, world Y
  double floor = 0;                          // clip floor, world Y

  // Frame f's two legs into legs[0], legs[1]; `out_world`: the frame's output world transforms
  // of samples->subset (FK of what was written).
  void measure(int f, std::span<const Transform> out_world, OutputMeasure* legs) const;
  // Derived by prepared(): the squared tangent of slope below which ground is surely within
  // max_foot_tilt of level.
  double flat_enough_tan2 = 0;
};

// `job` ready to measure (derived constants made once).
OutputMeasureJob prepared(OutputMeasureJob job);

// Per-frame solver figures of the write-back, per leg.
struct SolveRecord {
  std::vector<int> iterations[2];
  std::vector<const char*> reasons[2];  // unreachable reason per frame ("" when reached)
};

// The measurements (frame-major, two legs a frame) reduced in frame order into `diag`: plants,
// iterations, corrections, unreachable ranges, residual, penetration, bone length change.
void reduce_output_measures(std::span<const OutputMeasure> measured, const SolveRecord& solves,
                            const std::vector<char> (&planted)[2], double unreachable_tolerance,
                            double weight, FixDiagnostics& diag);

}  // namespace ikfix::core
