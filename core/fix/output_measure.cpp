#include "core/fix/output_measure.hpp"

#include <algorithm>
#include <cmath>

#include "core/fix/contacts.hpp"
#include "core/fix/fix_math.hpp"

namespace ikfix::core {

OutputMeasureJob prepared(OutputMeasureJob job) {
  // Ground surely within max_foot_tilt of level, told without an atan2 per planted frame: the
  // normal's tangent of slope (squared) below the limit's, with a relative margin far beyond
  // rounding (the same decision as the angle's; 0 when the limit is not in (0, 90) degrees).
  const double tilt_limit = job.max_foot_tilt + 1e-9;
  job.flat_enough_tan2 = tilt_limit > 0 && tilt_limit < kPi / 2
                             ? std::pow(std::tan(tilt_limit), 2) * (1.0 - 1e-6)
                             : 0.0;
  return job;
}

void OutputMeasureJob::measure(int f, std::span<const Transform> out_world,
                               OutputMeasure* legs) const {
  const JointSubset& subset = samples->subset;
  auto W = [&](int frame, int j) -> const Transform& { return samples->at(frame, j); };
  auto O = [&](int j) -> const Transform& { return out_world[subset.slot_of[j]]; };
  for (int l = 0; l < 2; ++l) {
    const Leg& leg = rig->legs[l];
    OutputMeasure& m = legs[l];
    const Vec3 ankle = O(leg.ankle).translation;
    m.correction = glm::length(ankle - input_ankle[l][f]);
    m.shortfall = glm::length(ankle - ankle_target_ws[l][f]);
    if (planted[l][f] && align_feet) {
      // The foot tilts at most max_foot_tilt: on steeper ground one end of the sole is off it
      // by about the foot's length times the sine of the rest.
      const Vec3& normal = ground[l][0].normal[f];
      const double sideways2 = normal.x * normal.x + normal.z * normal.z;
      const bool surely_flat_enough = flat_enough_tan2 > 0 && normal.y > 0 &&
                                      sideways2 < flat_enough_tan2 * (normal.y * normal.y);
      const double slope = surely_flat_enough ? 0.0 : angle_between(kUp, normal);
      if (slope > max_foot_tilt + 1e-9) {
        const Vec3 toe = leg.toe >= 0 ? O(leg.toe).translation : ankle;
        m.steep_gap = glm::length(toe - ankle) * std::sin(slope - max_foot_tilt);
      }
    }
    if (planted[l][f]) {
      const Vec3 toe = leg.toe >= 0 ? O(leg.toe).translation : ankle;
      const double ankle_floor = ground[l][0].height[f] + (planted_level[l][0] - floor);
      const double toe_floor = ground[l][1].height[f] + (planted_level[l][1] - floor);
      m.penetration = std::max({ankle_floor - ankle.y - 1e-9, toe_floor - toe.y - 1e-9, 0.0});
    }
    // Bone lengths of the leg, relative change against the input.
    const int chain[3] = {leg.hip, leg.knee, leg.ankle};
    for (int k = 0; k < 2; ++k) {
      const double before =
          glm::length(W(f, chain[k + 1]).translation - W(f, chain[k]).translation);
      const double after = glm::length(O(chain[k + 1]).translation - O(chain[k]).translation);
      if (before > 0) m.bone_change[k] = std::abs(after - before) / before;
    }
  }
}

void reduce_output_measures(std::span<const OutputMeasure> measured, const SolveRecord& solves,
                            const std::vector<char> (&planted)[2], double unreachable_tolerance,
                            double weight, FixDiagnostics& diag) {
  const int frames = static_cast<int>(planted[0].size());
  double iterations_sum[2] = {0.0, 0.0};
  for (int l = 0; l < 2; ++l)
    for (int f = 0; f < frames; ++f) {
      iterations_sum[l] += solves.iterations[l][f];
      diag.legs[l].max_iterations = std::max(diag.legs[l].max_iterations, solves.iterations[l][f]);
    }
  for (int l = 0; l < 2; ++l) {
    LegDiagnostics& ld = diag.legs[l];
    ld.mean_iterations = iterations_sum[l] / frames;
    const auto plants = contact_intervals(planted[l]);
    ld.contact_count = static_cast<int>(plants.size());
    for (const auto& p : plants) ld.plants.emplace_back(p.first, p.last);
    for (char p : planted[l]) ld.frames_in_contact += p;
  }
  for (int f = 0; f < frames; ++f) {
    for (int l = 0; l < 2; ++l) {
      LegDiagnostics& ld = diag.legs[l];
      const OutputMeasure& m = measured[static_cast<std::size_t>(f) * 2 + l];
      if (m.correction > ld.max_correction_m) {
        ld.max_correction_m = m.correction;
        ld.max_correction_frame = f;
      }
      // A frame the ankle reached may still be given up: a planted foot on ground too steep to
      // stand flat on (its shortfall then is the sole's gap).
      const bool reached = !(m.shortfall > unreachable_tolerance);
      const bool steep = reached && m.steep_gap > unreachable_tolerance;
      const double shortfall = steep ? m.steep_gap : m.shortfall;
      const char* reason = steep ? "too steep" : solves.reasons[l][f];
      if ((!reached || steep) && weight >= 1.0) {
        ++ld.unreachable_frames;
        if (ld.unreachable.empty() || ld.unreachable.back().last != f - 1 ||
            ld.unreachable.back().reason != reason)
          ld.unreachable.push_back({f, f, 0.0, f, reason});
        UnreachableRange& range = ld.unreachable.back();
        range.last = f;
        if (shortfall > range.max_shortfall_m) {
          range.max_shortfall_m = shortfall;
          range.worst_frame = f;
        }
        if (shortfall > ld.max_shortfall_m) {
          ld.max_shortfall_m = shortfall;
          ld.worst_frame = f;
        }
      } else {
        ld.max_residual_m = std::max(ld.max_residual_m, m.shortfall);
      }
      if (planted[l][f]) ld.max_penetration_m = std::max(ld.max_penetration_m, m.penetration);
      for (int k = 0; k < 2; ++k)
        if (m.bone_change[k] >= 0)
          diag.max_bone_length_change = std::max(diag.max_bone_length_change, m.bone_change[k]);
    }
  }
}

}  // namespace ikfix::core
