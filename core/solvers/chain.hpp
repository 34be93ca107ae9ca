#pragma once
// Shared pieces of the chain solvers: the bend-plane (pole) constraint and the exact
// two-bone placement every solver can finish with.
#include <span>

#include "core/math.hpp"

namespace ikfix::core {

// Rotates every middle joint of `chain_ws` about the axis root->end so that it lies in the
// half-plane spanned by that axis and `pole_dir_ws` (the side the knee should point to).
// Lengths are unchanged (a rotation about an axis through the root and the end moves each
// middle joint on a circle). A pole parallel to the axis leaves the chain as it is.
void apply_bend_plane(std::span<Vec3> chain_ws, const Vec3& pole_dir_ws);
// apply_bend_plane on two chains (a character's two legs; not the same chain), the same bits
// as two calls: for three-joint chains each step is taken for both before the next, so their
// square roots and divisions overlap in the CPU.
void apply_bend_plane_pair(std::span<Vec3> first_ws, const Vec3& first_pole_dir_ws,
                           std::span<Vec3> second_ws, const Vec3& second_pole_dir_ws);

// Places the middle joint of a 3-joint chain exactly: root fixed, end at `end_ws` (which must
// satisfy |lengths[0] - lengths[1]| <= |end - root| <= lengths[0] + lengths[1]), the middle joint
// on the `pole_dir_ws` side of the root->end axis. Uses a cancellation-free height (Heron) so a
// straight leg loses nothing. Returns false (chain untouched) when the end is out of range.
bool place_two_bone(std::span<Vec3> chain_ws, const Vec3& end_ws, double upper_length,
                    double lower_length, const Vec3& pole_dir_ws);

// The root->end line of a placement and the pole's part across it, for callers that need them
// before placing (a solver testing whether the placement is well defined): made once, then
// placed with, instead of place_two_bone making them again (two square roots and a division).
struct TwoBoneLine {
  double d = 0;            // |end - root|, metres
  Vec3 axis{0.0};          // (end - root) / d; zero when the end is (almost) on the root
  Vec3 side{0.0};          // the pole minus its part along axis (not unit)
  double side_length = 0;  // |side|
};
// `d` is |end - root| (glm::length) and `axis` unit_or(end - root, d, Vec3(0)), as the caller
// has them.
TwoBoneLine two_bone_line(double d, const Vec3& axis, const Vec3& pole_dir_ws);
// place_two_bone(chain_ws, end_ws, upper_length, lower_length, pole_dir_ws) with `line` made by
// two_bone_line from end_ws - chain_ws[0] and the same pole: the same bits.
bool place_two_bone(std::span<Vec3> chain_ws, const Vec3& end_ws, double upper_length,
                    double lower_length, const Vec3& pole_dir_ws, const TwoBoneLine& line);

}  // namespace ikfix::core
