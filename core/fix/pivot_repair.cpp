#include "core/fix/pivot_repair.hpp"

#include <algorithm>

#include "core/fix/pivot_hold.hpp"

namespace ikfix::core {

std::vector<Vec3> repair_pivot_holds(std::vector<signed char>& pivots,
                                     const std::vector<Vec3>& heel, const std::vector<Vec3>& toe,
                                     int blend_frames, double drag_radius, double goal,
                                     int max_changes, const SlideMeasure& measure) {
  const int n = static_cast<int>(pivots.size());
  std::vector<Vec3> held_heel(n), held_toe(n);
  // The hold of `p` and check's worst sliding with it.
  auto evaluate = [&](const std::vector<signed char>& p, std::vector<Vec3>& hold) {
    hold = hold_pivots(p, heel, toe, blend_frames, drag_radius);
    for (int f = 0; f < n; ++f) {
      held_heel[f] = heel[f] + hold[f];
      held_toe[f] = toe[f] + hold[f];
    }
    return measure(held_heel, held_toe, p);
  };
  std::vector<Vec3> hold;
  const FootCheck planned = evaluate(pivots, hold);
  PlantSlideAt worst = planned.slide;
  for (int change = 0; change < max_changes && worst.speed > goal && worst.frame >= 0; ++change) {
    const int f0 = worst.frame;
    // Frames to hold a point on: the measured point's windows around the worst frame (the
    // first, {f+1}, with the point held from f on, is that of a point check sees down there for
    // the first time, measured one-sided), and each whole pivot run at f - 1, f or f + 1 (a
    // point left down alone for many frames, e.g. over a step edge, while the other is held;
    // a one-frame hold there can carry the other point over the edge, to be held there).
    std::vector<std::vector<int>> windows = {
        {f0 + 1}, {f0, f0 + 1}, {f0 - 1, f0, f0 + 1}, {f0}, {f0 - 1, f0}};
    int covered = -1;  // last frame of the runs added so far
    for (int g = std::max(0, f0 - 1); g <= std::min(n - 1, f0 + 1); ++g) {
      if (pivots[g] < 0 || g <= covered) continue;
      int a = g, b = g;
      while (a > 0 && pivots[a - 1] == pivots[g]) --a;
      while (b + 1 < n && pivots[b + 1] == pivots[g]) ++b;
      std::vector<int> run;
      for (int f = a; f <= b; ++f) run.push_back(f);
      windows.push_back(std::move(run));
      covered = b;
    }
    std::vector<signed char> best_pivots;
    std::vector<Vec3> best_hold, trial_hold;
    PlantSlideAt best = worst;
    for (const auto& window : windows)
      for (const int point : {worst.point, 1 - worst.point}) {
        std::vector<signed char> trial = pivots;
        bool changed = false;
        for (int f : window) {
          if (f < 0 || f >= n || trial[f] < 0 || trial[f] == point) continue;
          trial[f] = static_cast<signed char>(point);
          changed = true;
        }
        if (!changed) continue;
        const FootCheck seen = evaluate(trial, trial_hold);
        if (seen.slide.speed < best.speed && seen.penetration_m <= planned.penetration_m) {
          best = seen.slide;
          best_pivots = std::move(trial);
          best_hold = trial_hold;
        }
      }
    if (best_pivots.empty()) break;  // no window helps: keep what there is
    pivots = std::move(best_pivots);
    hold = std::move(best_hold);
    worst = best;
  }
  return hold;
}

}  // namespace ikfix::core
