#include "core/fix/pivot_repair_step.hpp"

#include <algorithm>

#include "core/fix/foot_contacts.hpp"
#include "core/fix/heel_lift.hpp"
#include "core/fix/pivot_repair.hpp"
#include "core/fix/smooth.hpp"
#include "core/metrics.hpp"

namespace ikfix::core {

bool heel_rise_about_toe(std::span<const Vec3> heel, std::span<const Vec3> toe,
                         std::span<const signed char> pivots, std::span<const GroundHit> under_heel,
                         double floor, double heel_level, double max_heel_lift, double sigma,
                         std::vector<double>& angle) {
  const int frames = static_cast<int>(heel.size());
  std::vector<double> raw(frames, 0.0), dilated(frames);
  bool any = false;
  for (int f = 0; f < frames; ++f) {
    if (pivots[f] != 1) continue;
    const double level = (under_heel[f].hit ? under_heel[f].height : floor) + (heel_level - floor);
    raw[f] = heel_lift_to_height(heel[f], toe[f], level, max_heel_lift);
    any = any || raw[f] > 0;
  }
  angle.assign(frames, 0.0);
  if (!any) return false;
  dilate_max(raw, gaussian_radius(sigma), dilated);
  gaussian_smooth(dilated, sigma, angle);
  for (int f = 0; f < frames; ++f)
    angle[f] = pivots[f] == 0 ? 0.0 : std::clamp(angle[f], 0.0, max_heel_lift);
  return true;
}

void PivotRepairJob::run(std::vector<signed char>& pivots, std::vector<Vec3>& ankle_target_ws,
                         std::vector<Vec3>& toe_target_ws, std::vector<Vec3>& pivot_hold,
                         std::vector<Quat>& foot_rotation) const {
  const int frames = static_cast<int>(ankle_target_ws.size());
  auto heel_rise = [&](const std::vector<Vec3>& heel, const std::vector<Vec3>& toe,
                       std::span<const signed char> rise_pivots,
                       std::span<const GroundHit> under_heel, std::vector<double>& angle) {
    return heel_rise_about_toe(heel, toe, rise_pivots, under_heel, floor, planted_heel_level,
                               max_heel_lift, smoothing_frames, angle);
  };
  std::vector<Vec3> heel(frames), toe(frames);
  for (int f = 0; f < frames; ++f) {
    heel[f] = ankle_target_ws[f] - pivot_hold[f];
    toe[f] = toe_target_ws[f] - pivot_hold[f];
  }
  GroundMemo risen_heel_memo;
  std::vector<double> rise;
  std::vector<Vec3> risen(frames);
  const SlideMeasure measure = [&](const std::vector<Vec3>& h, const std::vector<Vec3>& t,
                                   const std::vector<signed char>& tried_pivots) {
    const auto heel_ground = checked_heel_memo->query(*terrain, h, planned_heel_memo);
    const auto toe_ground = checked_toe_memo->query(*terrain, t);
    const std::vector<Vec3>* checked_heel = &h;
    std::span<const GroundHit> checked_heel_ground = heel_ground;
    if (heel_rise(h, t, tried_pivots, heel_ground, rise)) {
      for (int f = 0; f < frames; ++f)
        risen[f] = lifted_ankle(h[f], t[f], HeelLift{rise[f], heel_lift_axis(h[f], t[f])});
      checked_heel = &risen;
      checked_heel_ground = risen_heel_memo.query(*terrain, risen, checked_heel_memo);
    }
    const FootContacts seen = foot_contacts_on_ground(*checked_heel, t, checked_heel_ground,
                                                      toe_ground, fps, *contact_settings);
    FootCheck check{worst_plant_slide_at(*checked_heel, t, seen.planted, seen.point_planted, fps),
                    0.0};
    // On frames check sees planted: step 5a lifts a swing foot out of the ground.
    for (int p = 0; p < 2; ++p)
      for (int f = 0; f < frames; ++f)
        if (seen.planted[f]) check.penetration_m = std::max(check.penetration_m, -seen.above[p][f]);
    return check;
  };
  pivot_hold = repair_pivot_holds(pivots, heel, toe, blend_frames, unlock_radius, retry_slide_above,
                                  max_repairs, measure);
  for (int f = 0; f < frames; ++f) {
    ankle_target_ws[f] = heel[f] + pivot_hold[f];
    toe_target_ws[f] = toe[f] + pivot_hold[f];
  }
  const auto heel_ground = checked_heel_memo->query(*terrain, ankle_target_ws, planned_heel_memo);
  if (heel_rise(ankle_target_ws, toe_target_ws, pivots, heel_ground, rise))
    for (int f = 0; f < frames; ++f) {
      if (!(rise[f] > 0)) continue;
      const HeelLift turn{rise[f], heel_lift_axis(ankle_target_ws[f], toe_target_ws[f])};
      ankle_target_ws[f] = lifted_ankle(ankle_target_ws[f], toe_target_ws[f], turn);
      foot_rotation[f] = glm::normalize(axis_angle(turn.axis, turn.angle) * foot_rotation[f]);
    }
}

}  // namespace ikfix::core
