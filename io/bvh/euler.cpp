#include "io/bvh/euler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ikfix::io::bvh {
namespace {

using core::Quat;

constexpr double kHalfRadPerDeg = core::kPi / 360.0;
constexpr double kDegPerRad = 180.0 / core::kPi;
constexpr double kRadPerDeg = core::kPi / 180.0;
constexpr double kTwoPi = 2.0 * core::kPi;

// Below this |cos(middle angle)| (middle angle within ~0.006 degrees of +-90) the outer angles
// are nearly coupled (gimbal lock) and a second, reference-driven candidate is considered.
// Above it the closed-form outer angles are accurate to ~1e-16 / |cos| rad < 1e-11 rad.
constexpr double kNearGimbalCos = 1e-4;
// Below this distance (squared degrees) from the references, the first closed-form branch is
// closer than the second for sure (see euler_from_quat_deg). Under 90^2 with a wide margin.
constexpr double kFirstBranchSurely = 8000.0;
// Two decompositions whose rotations differ by less than this (radians) count as the same.
constexpr double kSameRotation = 1e-12;

Quat axis_rotation_rad(int axis, double radians) {
  const double s = std::sin(radians * 0.5);
  const double c = std::cos(radians * 0.5);
  return Quat(c, axis == 0 ? s : 0.0, axis == 1 ? s : 0.0, axis == 2 ? s : 0.0);
}

double component(const Quat& q, int axis) { return axis == 0 ? q.x : (axis == 1 ? q.y : q.z); }

// Angle (rad) of the rotation about `axis` that `q` is (or is closest to, when q is nearly one).
double angle_about(const Quat& q, int axis) { return 2.0 * std::atan2(component(q, axis), q.w); }

// Row-major rotation matrix of unit quaternion q: r[row][col].
struct Matrix {
  double r[3][3];
};

Matrix to_matrix(const Quat& q) {
  const double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  const double xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  const double wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  Matrix m;
  m.r[0][0] = 1.0 - 2.0 * (yy + zz);
  m.r[0][1] = 2.0 * (xy - wz);
  m.r[0][2] = 2.0 * (xz + wy);
  m.r[1][0] = 2.0 * (xy + wz);
  m.r[1][1] = 1.0 - 2.0 * (xx + zz);
  m.r[1][2] = 2.0 * (yz - wx);
  m.r[2][0] = 2.0 * (xz - wy);
  m.r[2][1] = 2.0 * (yz + wx);
  m.r[2][2] = 1.0 - 2.0 * (xx + yy);
  return m;
}

// std::round (halves away from zero), without the libm call: the writer rounds here for one of
// the two Euler branches of every edited joint and frame.
inline double round_half_away(double x) {
  if (!(std::abs(x) < 4503599627370496.0)) return x;  // 2^52 or more (an integer), inf or NaN
  const double t = static_cast<double>(static_cast<long long>(x));  // truncated: exact
  const double fraction = x - t;                                    // exact
  if (fraction >= 0.5) return t + 1.0;
  if (fraction <= -0.5) return t - 1.0;
  return std::copysign(t, x);  // keeps std::round's sign on a zero result (-0.3 -> -0.0)
}

struct Candidate {
  std::array<double, 3> deg;
  double distance;
};

Candidate make_candidate(double a_rad, double b_rad, double c_rad,
                         const std::array<double, 3>& reference_deg) {
  Candidate c;
  const double rad[3] = {a_rad, b_rad, c_rad};
  c.distance = 0.0;
  for (int n = 0; n < 3; ++n) {
    c.deg[n] = nearest_equivalent_deg(rad[n] * kDegPerRad, reference_deg[n]);
    const double d = c.deg[n] - reference_deg[n];
    c.distance += d * d;
  }
  return c;
}

}  // namespace

namespace {
// approx_atan2, inlined into approx_euler_from_quat_deg's three calls.
[[gnu::always_inline]] inline double atan2_near(double y, double x) {
  // atan(k / 8), k = 0..8, correctly rounded.
  static constexpr double kAtanEighths[9] = {0.0,
                                             0.12435499454676144,
                                             0.24497866312686414,
                                             0.35877067027057225,
                                             0.4636476090008061,
                                             0.5585993153435624,
                                             0.6435011087932844,
                                             0.7188299996216245,
                                             0.7853981633974483};
  const double ax = std::abs(x), ay = std::abs(y);
  const bool steep = ay > ax;
  const double t = steep ? ax / ay : ay / ax;  // [0, 1], NaN for 0 / 0
  if (!(t <= 1.0)) return std::numeric_limits<double>::quiet_NaN();
  // atan(t) = atan(c) + atan(u) for the nearest eighth c, u = (t - c) / (1 + t c), |u| <= 1/16:
  // the series cut after u^11 leaves less than u^13 / 13 < 2e-17; the roundings (t, u, the
  // sums, the turns below) stay under ~1e-15 rad.
  const int k = static_cast<int>(t * 8.0 + 0.5);
  const double c = k * 0.125;
  const double u = (t - c) / (1.0 + t * c);
  const double u2 = u * u;
  const double series =
      u + u * u2 *
              (-1.0 / 3.0 +
               u2 * (1.0 / 5.0 + u2 * (-1.0 / 7.0 + u2 * (1.0 / 9.0 + u2 * (-1.0 / 11.0)))));
  double r = kAtanEighths[k] + series;  // atan(min / max), [0, pi/4]
  if (steep) r = 0.5 * core::kPi - r;
  if (x < 0.0) r = core::kPi - r;
  return std::copysign(r, y);
}
}  // namespace

double approx_atan2(double y, double x) { return atan2_near(y, x); }

bool approx_euler_from_quat_deg(const core::Quat& q_in, const std::array<int, 3>& axes,
                                const std::array<double, 3>& reference_deg,
                                std::array<double, 3>& out_deg) {
  // Every test below keeps a margin far above the angles' error, so that the exact function's
  // own test (on its own angles) takes the same way; else false.
  const Quat q = glm::length(q_in) == 1.0 ? q_in : glm::normalize(q_in);
  const int i = axes[0], j = axes[1], k = axes[2];
  if (i == j || j == k || i == k) return false;
  const double s = ((j - i + 3) % 3 == 1) ? 1.0 : -1.0;
  // The five entries of to_matrix(q) the angles need, each from its own formula: m[a][b] =
  // 2 (q_a q_b -+ w q_c) off the diagonal, 1 - 2 (q_b^2 + q_c^2) on it.
  const double v[3] = {q.x, q.y, q.z};
  const double qi = v[i], qj = v[j], qk = v[k];
  const double s_ik = 2.0 * (s * qi * qk + q.w * qj);   // s * m[i][k]
  const double s_ij = 2.0 * (s * qi * qj - q.w * qk);   // s * m[i][j]
  const double s_jk = 2.0 * (s * qj * qk - q.w * qi);   // s * m[j][k]
  const double m_ii = 1.0 - 2.0 * (qj * qj + qk * qk);  // m[i][i]
  const double m_kk = 1.0 - 2.0 * (qi * qi + qj * qj);  // m[k][k]
  const double sin_b = std::clamp(s_ik, -1.0, 1.0);
  // std::hypot's to ~2 ulp.
  const double cos_b = std::sqrt(m_ii * m_ii + s_ij * s_ij);
  if (!(cos_b > kNearGimbalCos * (1.0 + 1e-9))) return false;
  const double rad[3] = {atan2_near(-s_jk, m_kk), atan2_near(sin_b, cos_b),
                         atan2_near(-s_ij, m_ii)};
  double distance = 0.0;
  for (int n = 0; n < 3; ++n) {
    out_deg[n] = rad[n] * kDegPerRad;
    const double gap = reference_deg[n] - out_deg[n];
    distance += gap * gap;
  }
  // The first branch sure, as in euler_from_quat_deg: then every gap is under 90 degrees, where
  // nearest_equivalent_deg keeps the angle. (NaN angles fail here too.)
  return distance < kFirstBranchSurely - 1.0;
}

namespace {
// Angle (rad) between q and the rotation the angles describe.
double rotation_error(const Quat& q, const std::array<int, 3>& axes,
                      const std::array<double, 3>& deg) {
  const Quat r = glm::conjugate(quat_from_euler_deg(axes, deg)) * q;
  return 2.0 * std::atan2(std::sqrt(r.x * r.x + r.y * r.y + r.z * r.z), std::abs(r.w));
}
}  // namespace

core::Quat axis_rotation_deg(int axis, double degrees) {
  const double half = degrees * kHalfRadPerDeg;
  const double s = std::sin(half);
  const double c = std::cos(half);
  return Quat(c, axis == 0 ? s : 0.0, axis == 1 ? s : 0.0, axis == 2 ? s : 0.0);
}

core::Quat quat_from_euler_deg(const std::array<int, 3>& axes, const std::array<double, 3>& deg) {
  return axis_rotation_deg(axes[0], deg[0]) * axis_rotation_deg(axes[1], deg[1]) *
         axis_rotation_deg(axes[2], deg[2]);
}

double nearest_equivalent_deg(double degrees, double reference) {
  // The common case, answered without the division and the libm round: well within half a
  // turn of the reference (the margin keeps it exact: the quotient below cannot round to 0.5).
  const double gap = reference - degrees;
  if (gap < 179.0 && gap > -179.0) return degrees;
  const double turns = round_half_away((reference - degrees) / 360.0);
  return turns == 0.0 ? degrees : degrees + 360.0 * turns;
}

std::array<double, 3> euler_from_quat_deg(const core::Quat& q_in, const std::array<int, 3>& axes,
                                          const std::array<double, 3>& reference_deg) {
  // glm::normalize multiplies by 1 / length: nothing to do (bit for bit) when the length is 1.
  const Quat q = glm::length(q_in) == 1.0 ? q_in : glm::normalize(q_in);
  const int i = axes[0], j = axes[1], k = axes[2];
  // +1 when (i, j, k) is a cyclic permutation of (X, Y, Z), -1 otherwise.
  const double s = ((j - i + 3) % 3 == 1) ? 1.0 : -1.0;
  const Matrix m = to_matrix(q);
  const double sin_b = std::clamp(s * m.r[i][k], -1.0, 1.0);
  const double cos_b = std::hypot(m.r[i][i], m.r[i][j]);  // |cos(b)|, accurate near +-90
  const double b1 = std::atan2(sin_b, cos_b);

  // The closed-form branches: (a, b, c) and (a + 180, 180 - b, c + 180). Away from gimbal lock
  // each angle is accurate to ~1e-16 / |cos b| rad.
  const double a1 = std::atan2(-s * m.r[j][k], m.r[k][k]);
  const double c1 = std::atan2(-s * m.r[i][j], m.r[i][i]);
  const double b2 = core::kPi - b1;
  if (cos_b > kNearGimbalCos) {
    const Candidate first = make_candidate(a1, b1, c1, reference_deg);
    // The second branch turns the first and last angles by 180 degrees, so each lies at least
    // 180 - |its first-branch gap| (less ~1e-12 of rounding) from its reference. With every gap
    // under 90 (first.distance < 90^2), the second's distance exceeds 2 * 90^2 and cannot win:
    // the usual case (an edit near the file's pose), which skips its wrap-arounds.
    if (first.distance < kFirstBranchSurely) return first.deg;
    const Candidate second = make_candidate(a1 + core::kPi, b2, c1 + core::kPi, reference_deg);
    return second.distance < first.distance ? second.deg : first.deg;
  }

  // Last angle from what remains once the first two are undone: keeps the triple consistent
  // where the first angle is ill-conditioned.
  auto last_angle = [&](double a, double b) {
    const Quat rest =
        glm::conjugate(axis_rotation_rad(j, b)) * glm::conjugate(axis_rotation_rad(i, a)) * q;
    return angle_about(rest, k);
  };
  const Candidate best = make_candidate(a1, b1, last_angle(a1, b1), reference_deg);
  const Candidate second =
      make_candidate(a1 + core::kPi, b2, last_angle(a1 + core::kPi, b2), reference_deg);

  // Near or at gimbal lock: R ~= R_j(b) * R_k(c + sigma * a), so mostly phi = c + sigma * a is
  // defined and the closed-form a is noise (error ~1e-16 / |cos b|). For both branches of b,
  // also try splitting the difference to the references evenly between a and c (least
  // squares). Keep the candidate closest to the references among those that reproduce q as
  // well as the best one does (within kSameRotation).
  const double sigma = s * (sin_b >= 0.0 ? 1.0 : -1.0);
  const double a_ref = reference_deg[0] * kRadPerDeg;
  const double c_ref = reference_deg[2] * kRadPerDeg;
  Candidate candidates[4] = {best, second, {}, {}};
  for (int n = 0; n < 2; ++n) {
    const double b = n == 0 ? b1 : b2;
    const double phi = angle_about(glm::conjugate(axis_rotation_rad(j, b)) * q, k);
    const double d = std::remainder(phi - (c_ref + sigma * a_ref), kTwoPi);
    const double a = a_ref + sigma * d * 0.5;
    candidates[2 + n] = make_candidate(a, b, last_angle(a, b), reference_deg);
  }
  double errors[4];
  double least_error = std::numeric_limits<double>::infinity();
  for (int n = 0; n < 4; ++n) {
    errors[n] = rotation_error(q, axes, candidates[n].deg);
    least_error = std::min(least_error, errors[n]);
  }
  int chosen = -1;
  for (int n = 0; n < 4; ++n)
    if (errors[n] <= least_error + kSameRotation &&
        (chosen < 0 || candidates[n].distance < candidates[chosen].distance))
      chosen = n;
  // A rotation that is not finite (NaN) has no error to compare: its angles are the closed
  // form's, NaN, which the writers refuse.
  return chosen < 0 ? best.deg : candidates[chosen].deg;
}

}  // namespace ikfix::io::bvh
