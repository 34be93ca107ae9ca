#include "core/fix/pivot_timing.hpp"

#include <algorithm>
#include <cmath>

namespace ikfix::core {

void retime_pivot_switches(std::vector<signed char>& pivots, const std::vector<Vec3>& heel,
                           const std::vector<Vec3>& toe, const std::vector<char> (&on_ground)[2],
                           TouchdownSwitch touchdown_rule) {
  const int n = static_cast<int>(pivots.size());
  if (static_cast<int>(on_ground[0].size()) != n || static_cast<int>(on_ground[1].size()) != n ||
      static_cast<int>(heel.size()) != n || static_cast<int>(toe.size()) != n)
    return;
  auto both_down = [&](int f) { return on_ground[0][f] && on_ground[1][f]; };
  // Horizontal change of the heel->toe vector from frame f - 1 to f (metres).
  auto turn = [&](int f) {
    const Vec3 d = (toe[f] - heel[f]) - (toe[f - 1] - heel[f - 1]);
    return std::hypot(d.x, d.z);
  };
  for (int s0 = 1; s0 < n; ++s0) {
    const int from = pivots[s0 - 1], to = pivots[s0];
    if (from < 0 || to < 0 || from == to) continue;
    int a = s0 - 1;  // first frame of the old pivot's run
    while (a > 0 && pivots[a - 1] == from) --a;
    int b = s0;  // last frame of the new pivot's run
    while (b + 1 < n && pivots[b + 1] == to) ++b;
    // With the switch at s, check sees the old pivot move by turn(s) over (s - 1, s) and the new
    // one by turn(s - 1) over (s - 2, s - 1); on frame s - 1 it takes the smaller.
    auto cost = [&](int s) { return s - 2 >= a ? std::min(turn(s), turn(s - 1)) : turn(s); };
    // Where the new pivot first touches down on s - 1, check measures it there one-sided, over
    // (s - 1, s), while it is already held: that switch shows no sliding at all. It is taken when
    // the foot turns no more across it (the hold's jump in the ankle's path, turn(s)) than across
    // the switch chosen by cost (always taking it adds foot jerk).
    auto touches_down = [&](int f) {
      return on_ground[to][f] && (f == 0 || !on_ground[to][f - 1]);
    };
    int best = s0, touchdown = -1;
    double best_cost = cost(s0);
    auto consider = [&](int s) {
      if (cost(s) < best_cost) best = s, best_cost = cost(s);
      if (touchdown_rule != TouchdownSwitch::Never && touches_down(s - 1) &&
          (touchdown < 0 || turn(s) < turn(touchdown)))
        touchdown = s;
    };
    consider(s0);
    for (int s = s0 - 1; s > a && both_down(s - 1) && both_down(s); --s) consider(s);
    for (int s = s0 + 1; s <= b && both_down(s - 1) && both_down(s); ++s) consider(s);
    if (touchdown >= 0 &&
        (touchdown_rule == TouchdownSwitch::Always || turn(touchdown) <= turn(best)))
      best = touchdown;
    for (int f = a; f < best; ++f) pivots[f] = static_cast<signed char>(from);
    for (int f = best; f <= b; ++f) pivots[f] = static_cast<signed char>(to);
    s0 = best;
  }
}

}  // namespace ikfix::core
