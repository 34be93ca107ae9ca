#pragma once
// Euler angles as BVH uses them: a joint's rotation channels, read left to right, compose as
// R = R_a(angle_a) * R_b(angle_b) * R_c(angle_c) (column vectors, intrinsic order), in degrees.
#include <array>

#include "core/math.hpp"

namespace ikfix::io::bvh {

// Rotation of `degrees` about coordinate axis `axis` (0 = X, 1 = Y, 2 = Z).
core::Quat axis_rotation_deg(int axis, double degrees);

// R_{axes[0]}(deg[0]) * R_{axes[1]}(deg[1]) * R_{axes[2]}(deg[2]).
core::Quat quat_from_euler_deg(const std::array<int, 3>& axes, const std::array<double, 3>& deg);

// Inverse of quat_from_euler_deg for three distinct axes: the angles (degrees) whose product is
// `q` (normalised first), chosen among all equivalent triples - both Euler branches, each angle
// +-360*n - as the one closest (sum of squared differences) to `reference_deg`. At gimbal lock
// (middle angle +-90) only a sum or difference of the outer angles is defined; it is split so
// that both stay as close as possible to their references. `q` must be finite and non-zero.
std::array<double, 3> euler_from_quat_deg(const core::Quat& q, const std::array<int, 3>& axes,
                                          const std::array<double, 3>& reference_deg);

// Bound (degrees) on how far approx_euler_from_quat_deg's angles lie from
// euler_from_quat_deg's: its own error is below 1e-13 degrees; the rest is margin.
inline constexpr double kApproxEulerErrorDeg = 1e-9;

// euler_from_quat_deg's angles to within kApproxEulerErrorDeg, without libm: true in its
// common case (three rotation axes, the middle angle away from +-90, the first branch sure: the
// angles within 90 degrees of their references), false where one of its choices is too close
// to call (then only euler_from_quat_deg decides). For a writer that prints the angles rounded:
// where the rounding is certain within the bound (io::fixed_units_certain), the text is
// euler_from_quat_deg's.
bool approx_euler_from_quat_deg(const core::Quat& q, const std::array<int, 3>& axes,
                                const std::array<double, 3>& reference_deg,
                                std::array<double, 3>& out_deg);

// atan2(y, x) to within 1e-15 rad, without libm; NaN when both are zero (or either is NaN).
double approx_atan2(double y, double x);

// `degrees` + 360*n for the integer n that brings it closest to `reference`.
double nearest_equivalent_deg(double degrees, double reference);

}  // namespace ikfix::io::bvh
