#include "core/fix/heel_lift_step.hpp"

#include <algorithm>
#include <vector>

#include "core/fix/fix_parallel.hpp"
#include "core/fix/heel_lift.hpp"

namespace ikfix::core {

bool HeelLiftJob::validate() const {
  const std::size_t frames = body.size();
  return samples && rig && pivots[0].size() == frames && pivots[1].size() == frames &&
         max_heel_lift > 0;
}

void HeelLiftJob::run(std::span<Vec3> (&ankle_target_ws)[2],
                      std::span<const Vec3> (&toe_target_ws)[2],
                      std::span<Quat> (&foot_rotation)[2], FixDiagnostics& diag) const {
  const int frames = static_cast<int>(body.size());
  std::vector<ReachProblem> problems[2];
  std::vector<double> allowed[2];
  for_each_leg(leg_runner, [&](int l) {  // each leg's problems and allowance are its own
    std::vector<char> held(frames);
    problems[l].resize(frames);
    for (int f = 0; f < frames; ++f) {
      problems[l][f] = {samples->at(f, rig->legs[l].hip).translation + Vec3(0, body[f], 0),
                        ankle_target_ws[l][f], toe_target_ws[l][f],
                        leg_reach(*samples, max_reach, leg_length, l, f)};
      held[f] = pivots[l][f] == 0 ? 1 : 0;
    }
    allowed[l] = heel_lift_allowance(held, smoothing_frames);
  });
  const HeelLiftPlan lift =
      plan_heel_lifts(problems, max_heel_lift, smoothing_frames, allowed, runner);
  // Frames are independent here; the count and the largest angle are the same however the
  // frames are split.
  struct Lifted {
    int frames = 0;
    double max_angle = 0;
  };
  const Lifted lifted = parallel_reduce_ordered(
      runner, frames, kMinLightFramesPerRange, Lifted{0, diag.max_heel_lift_rad},
      [&](int begin, int end, Lifted& range) {
        for (int l = 0; l < 2; ++l)
          for (int f = begin; f < end; ++f) {
            const HeelLift turn{lift.angle[l][f], lift.axis[l][f]};
            if (!(turn.angle > 0)) continue;
            ankle_target_ws[l][f] = lifted_ankle(ankle_target_ws[l][f], toe_target_ws[l][f], turn);
            foot_rotation[l][f] =
                glm::normalize(axis_angle(turn.axis, turn.angle) * foot_rotation[l][f]);
            ++range.frames;
            range.max_angle = std::max(range.max_angle, turn.angle);
          }
      },
      [](Lifted& total, const Lifted& range) {
        total.frames += range.frames;
        total.max_angle = std::max(total.max_angle, range.max_angle);
      });
  diag.heel_lift_frames += lifted.frames;
  diag.max_heel_lift_rad = std::max(diag.max_heel_lift_rad, lifted.max_angle);
}

}  // namespace ikfix::core
