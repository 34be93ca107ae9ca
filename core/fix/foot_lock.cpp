#include "core/fix/foot_lock.hpp"

#include <algorithm>

#include "core/fix/contacts.hpp"
#include "core/fix/fix_math.hpp"

namespace ikfix::core {
namespace {

Vec3 flat(Vec3 v) { return Vec3(v.x, 0.0, v.z); }

// How far (metres, horizontal) a point's animation moved from frame `since` to frame `f`.
double horizontal_distance(const std::vector<Vec3>& track, int since, int f) {
  return glm::length(flat(track[f]) - flat(track[since]));
}

// The pivot after the run-away rule (foot_lock.hpp): `pivot` unless, since frame `since`, its
// animation has moved `run_away` or more while the other point moved less than half that and
// stands no lower than the held one and no higher than it plus `run_away`.
int point_that_stays(int pivot, int f, int since, const std::vector<Vec3>& heel,
                     const std::vector<Vec3>& toe, const std::vector<double>& heel_height,
                     const std::vector<double>& toe_height, double run_away) {
  if (pivot < 0 || run_away <= 0) return pivot;
  const std::vector<Vec3>* track[2] = {&heel, &toe};
  const std::vector<double>* height[2] = {&heel_height, &toe_height};
  const int other = 1 - pivot;
  const double held_moved = horizontal_distance(*track[pivot], since, f);
  const double other_moved = horizontal_distance(*track[other], since, f);
  // The held point is the lower one (as the height rule holds it), the other no more than
  // `run_away` above it; a held point already lifted above the other is the height rule's.
  const double held_height = (*height[pivot])[f], other_height = (*height[other])[f];
  const bool other_down = held_height <= other_height && other_height <= held_height + run_away;
  return held_moved >= run_away && other_moved < 0.5 * held_moved && other_down ? other : pivot;
}

// The foot lock's inputs that choose the pivot, and the hold of the plant being made.
struct PivotInputs {
  const std::vector<double>& heel_height;
  const std::vector<double>& toe_height;
  const std::vector<char> (&on_ground)[2];
  const std::vector<Vec3>& ankle;
  const std::vector<Vec3>& toe;
  int blend_frames;
  double switch_margin;
  double run_away;
};
struct Hold {
  int pivot = -1;      // 0 heel (ankle), 1 toe
  int hold_start = 0;  // the frame the held pivot's hold is taken from
  int ran_from = -1;   // the point that ran away from its hold in this plant
};

// The pivot of frame f of the plant that starts at frame a (foot_lock.hpp's rules); a hand-over
// because the held point ran away is noted in `hold.ran_from`.
int choose_pivot(const PivotInputs& in, Hold& hold, int a, int f) {
  const int pivot = hold.pivot;
  const std::vector<char>(&down)[2] = in.on_ground;
  int want = pivot;
  if (pivot < 0)
    want = in.heel_height[f] <= in.toe_height[f] ? 0 : 1;
  else if (pivot == 0 && in.heel_height[f] > in.toe_height[f] + in.switch_margin)
    want = 1;
  else if (pivot == 1 && in.toe_height[f] > in.heel_height[f] + in.switch_margin)
    want = 0;
  // While check sees both points down, the pivot stays; the hand-over frame is chosen by
  // retime_pivot_switches within that window.
  if (pivot >= 0 && want != pivot && !down[0].empty() && down[0][f] && down[1][f]) want = pivot;
  if (!down[0].empty() && !down[want][f] && down[1 - want][f]) want = 1 - want;
  // Switch only once the new pivot has been on the ground (as check sees it) for a frame
  // while the old one, still down, held: the new one is then held from that frame on, so
  // each point is still over every pair of frames check measures it on.
  if (pivot >= 0 && want != pivot && !down[0].empty() && !down[want][f - 1] && down[pivot][f])
    want = pivot;
  // Away from the held point when it runs away; not back to one that ran away in this plant
  // while it still moves that far within the window.
  const int since = std::max(a, f - in.blend_frames);
  if (want != pivot && want == hold.ran_from &&
      horizontal_distance(want == 0 ? in.ankle : in.toe, since, f) >= in.run_away)
    want = pivot;
  if (want == pivot) {
    want = point_that_stays(pivot, f, std::max(hold.hold_start, since), in.ankle, in.toe,
                            in.heel_height, in.toe_height, in.run_away);
    if (want != pivot) hold.ran_from = pivot;
  }
  return want;
}

}  // namespace

std::vector<Vec3> foot_lock(const std::vector<char>& planted,
                            const std::vector<double>& heel_height,
                            const std::vector<double>& toe_height,
                            const std::vector<char> (&on_ground)[2], const std::vector<Vec3>& ankle,
                            const std::vector<Vec3>& toe, double unlock_radius, int blend_frames,
                            double switch_margin, double run_away,
                            std::vector<signed char>& pivots) {
  const int n = static_cast<int>(planted.size());
  std::vector<Vec3> corr(n, Vec3(0));
  pivots.assign(n, -1);
  const PivotInputs in{heel_height, toe_height,   on_ground,     ankle,
                       toe,         blend_frames, switch_margin, run_away};
  const auto plants = contact_intervals(planted);
  for (std::size_t i = 0; i < plants.size(); ++i) {
    const int a = plants[i].first, b = plants[i].last;
    Hold hold{-1, a, -1};
    Vec3 lock(0);
    for (int f = a; f <= b; ++f) {
      const Vec3 previous = f > a ? corr[f - 1] : corr[std::max(0, a - 1)] * (a > 0 ? 1.0 : 0.0);
      const int want = choose_pivot(in, hold, a, f);
      if (want != hold.pivot) {
        // Re-lock on the new pivot where it was on the frame before (target, not animation):
        // it does not move on the switch frame.
        const std::vector<Vec3>& track = want == 0 ? ankle : toe;
        const int from = f > a ? f - 1 : f;
        lock = flat(track[from]) + previous;
        hold.hold_start = from;
        hold.pivot = want;
      }
      const Vec3 anim = flat(hold.pivot == 0 ? ankle[f] : toe[f]);
      Vec3 c = lock - anim;
      const double len = glm::length(c);
      if (len > unlock_radius) {  // the animation walked away: drag the lock along
        c *= unlock_radius / len;
        lock = anim + c;
      }
      corr[f] = c;
      pivots[f] = static_cast<signed char>(hold.pivot);
    }
    // Fade out after the plant, done before the next plant starts.
    const int next = i + 1 < plants.size() ? plants[i + 1].first : n;
    const int span = std::min(blend_frames, next - b - 1);
    for (int f = b + 1; f < next; ++f) {
      const double t = span > 0 ? std::min(1.0, static_cast<double>(f - b) / (span + 1)) : 1.0;
      corr[f] = corr[b] * (1.0 - smootherstep(t));
    }
  }
  return corr;
}

}  // namespace ikfix::core
