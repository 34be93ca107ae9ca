#include "core/fix/swing_clearance.hpp"

#include <algorithm>
#include <vector>

#include "core/fix/ground_track.hpp"
#include "core/fix/smooth.hpp"

namespace ikfix::core {

bool SwingClearanceJob::validate() const {
  return under_heel.size() == planted.size() && under_toe.size() == planted.size() &&
         max_rise_per_frame > 0 && rise_lead_frames >= 0;
}

void SwingClearanceJob::run(std::span<Vec3> ankle_target_ws, std::span<Vec3> toe_target_ws) const {
  const int frames = static_cast<int>(planted.size());
  const GroundTrack under[2] = {ground_track(under_heel, floor), ground_track(under_toe, floor)};
  std::vector<double> lack(frames, 0.0);
  bool lacking = false;
  for (int f = 0; f < frames; ++f) {
    if (planted[f]) continue;
    // Below the surface itself, as `check` measures penetration (a swing foot may pass
    // closer to the ground than its planted sole height).
    const double ankle_lack = under[0].height[f] - ankle_target_ws[f].y;
    const double toe_lack = under[1].height[f] - toe_target_ws[f].y;
    lack[f] = std::max({0.0, ankle_lack, toe_lack});
    lacking = lacking || lack[f] > 0.0;
  }
  if (!lacking) return;
  const double sigma = smoothing_frames;
  std::vector<double> dilated(frames), envelope(frames), rise(frames, 0.0);
  dilate_max(lack, gaussian_radius(sigma), dilated);
  gaussian_smooth(dilated, sigma, envelope);
  for (int f = 0; f < frames; ++f)
    if (!planted[f]) rise[f] = std::max(lack[f], envelope[f]);
  // Planted frames are 0, so the rise could still jump at lift-off. Where the swing needs more
  // than the rise speed allows, the foot starts rising in the plant's last frames (up to
  // rise_lead_frames before lift-off), straight up (its horizontal lock holds), as a person
  // lifts a foot to step up.
  raise_to_rate_limit(rise, max_rise_per_frame, planted_except_last(planted, rise_lead_frames));
  for (int f = 0; f < frames; ++f) {
    ankle_target_ws[f].y += rise[f];
    toe_target_ws[f].y += rise[f];
  }
}

}  // namespace ikfix::core
