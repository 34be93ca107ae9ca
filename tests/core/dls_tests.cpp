#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/solvers/chain.hpp"
#include "core/solvers/dls.hpp"
#include "solver_test_util.hpp"

namespace ikfix::core {
namespace {

using test_util::kNaN;
using test_util::random_unit;

std::vector<Vec3> hanging_chain(const Vec3& root, const std::vector<double>& lengths) {
  std::vector<Vec3> chain = {root};
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    const Vec3 dir = glm::normalize(Vec3(i % 2 ? -0.1 : 0.05, -1.0, i % 2 ? 0.2 : 0.1));
    chain.push_back(chain.back() + dir * lengths[i]);
  }
  return chain;
}

std::vector<double> bone_lengths(std::span<const Vec3> chain) {
  std::vector<double> out;
  for (std::size_t i = 0; i + 1 < chain.size(); ++i)
    out.push_back(glm::length(chain[i + 1] - chain[i]));
  return out;
}

double total_length(std::span<const Vec3> chain) {
  double s = 0;
  for (double l : bone_lengths(chain)) s += l;
  return s;
}

struct Result {
  bool ok = false;
  std::vector<Vec3> out;
  int iterations = -1;
  bool reached = false;
  double residual = -1;
};

Result solve(DlsJob job, std::span<const Vec3> start) {
  Result r;
  r.out.assign(start.size(), Vec3(kNaN));
  job.start_ws = start;
  job.out_ws = r.out;
  job.iterations = &r.iterations;
  job.reached = &r.reached;
  job.residual = &r.residual;
  r.ok = job.run();
  return r;
}

Result solve(std::span<const Vec3> start, const Vec3& target, const Vec3* pole = nullptr) {
  DlsJob job;
  job.target_ws = target;
  job.pole_dir_ws = pole;
  return solve(job, start);
}

void expect_sane(const Result& r, std::span<const Vec3> start, const Vec3& target, const char* what,
                 double tolerance = DlsJob{}.tolerance) {
  ASSERT_TRUE(r.ok) << what;
  for (const Vec3& p : r.out) ASSERT_TRUE(is_finite(p)) << what;
  EXPECT_EQ(r.out[0], start[0]) << what << ": the root moved";
  const auto want = bone_lengths(start), got = bone_lengths(r.out);
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-9) << what << ", bone " << i;
  EXPECT_NEAR(r.residual, glm::length(r.out.back() - target), 1e-15) << what;
  EXPECT_EQ(r.reached, r.residual <= tolerance) << what;
}

TEST(DlsValidate, RejectsBadInputs) {
  const auto start = hanging_chain(Vec3(0, 1, 0), {0.45, 0.42});
  std::vector<Vec3> out(3, Vec3(7.0)), short_out(2, Vec3(7.0));
  std::vector<Vec3> nan_start = start;
  nan_start[1].z = kNaN;
  const std::vector<Vec3> one = {Vec3(0.0)};
  const Vec3 nan_pole(kNaN, 0, 0), pole(0, 0, 1);
  auto base = [&] {
    DlsJob job;
    job.start_ws = start;
    job.out_ws = out;
    job.target_ws = Vec3(0.1, 0.3, 0.1);
    job.pole_dir_ws = &pole;
    return job;
  };
  EXPECT_TRUE(base().validate());
  std::vector<std::pair<const char*, DlsJob>> cases;
  auto add = [&](const char* name, auto edit) {
    DlsJob job = base();
    edit(job);
    cases.emplace_back(name, job);
  };
  const double inf = std::numeric_limits<double>::infinity();
  add("output size mismatch", [&](DlsJob& j) { j.out_ws = short_out; });
  add("single joint", [&](DlsJob& j) {
    j.start_ws = one;
    j.out_ws = std::span<Vec3>(out).first(1);
  });
  add("empty", [&](DlsJob& j) {
    j.start_ws = {};
    j.out_ws = {};
  });
  add("NaN start", [&](DlsJob& j) { j.start_ws = nan_start; });
  add("NaN target", [&](DlsJob& j) { j.target_ws = Vec3(kNaN); });
  add("infinite target", [&](DlsJob& j) { j.target_ws.x = inf; });
  add("zero tolerance", [&](DlsJob& j) { j.tolerance = 0; });
  add("zero iterations", [&](DlsJob& j) { j.max_iterations = 0; });
  add("NaN pole", [&](DlsJob& j) { j.pole_dir_ws = &nan_pole; });
  add("zero damping", [&](DlsJob& j) { j.min_damping = 0; });
  add("initial below min", [&](DlsJob& j) { j.initial_damping = 0.5 * j.min_damping; });
  add("max below initial", [&](DlsJob& j) { j.max_damping = 0.5 * j.initial_damping; });
  add("infinite damping", [&](DlsJob& j) { j.max_damping = inf; });
  add("NaN damping", [&](DlsJob& j) { j.initial_damping = kNaN; });
  add("zero step", [&](DlsJob& j) { j.max_step = 0; });
  add("NaN step angle", [&](DlsJob& j) { j.max_step_angle = kNaN; });
  for (const auto& [name, job] : cases) {
    EXPECT_FALSE(job.validate()) << name;
    EXPECT_FALSE(job.run()) << name;
  }
  for (const Vec3& p : out) EXPECT_EQ(p, Vec3(7.0));
  for (const Vec3& p : short_out) EXPECT_EQ(p, Vec3(7.0));
}

TEST(DlsReachable, ConvergesOnTargetsInReach) {
  std::mt19937 rng(421);
  std::uniform_real_distribution<double> frac(0.0, 1.0);
  for (const std::vector<double>& lengths :
       {std::vector<double>{0.45, 0.42}, std::vector<double>{0.45, 0.42, 0.15},
        std::vector<double>{0.2, 0.2, 0.2, 0.2, 0.2}, std::vector<double>(10, 0.1)}) {
    const Vec3 root(0.1, 1, -0.3);
    const auto start = hanging_chain(root, lengths);
    const double total = total_length(start);
    for (int i = 0; i < 300; ++i) {
      // From well inside to the edge of reach (the leg solve's goals go up to 0.9995 of it).
      const double reach = i % 3 == 0 ? 0.999 + 0.0005 * frac(rng) : 0.2 + 0.75 * frac(rng);
      const Vec3 target = root + random_unit(rng) * (total * reach);
      // Long chains at the edge of reach need more steps than a leg's default bound.
      DlsJob job;
      job.target_ws = target;
      job.max_iterations = start.size() <= 4 ? 64 : 256;
      const Result r = solve(job, start);
      expect_sane(r, start, target, "target in reach");
      EXPECT_TRUE(r.reached) << start.size() << " joints, target " << i << " at " << reach
                             << ", residual " << r.residual << " after " << r.iterations;
    }
  }
}

// With a pole, a reached three-joint solve is the one placement with the end on the target and
// the knee in the pole's half-plane: the exact two-bone placement.
TEST(DlsReachable, ThreeJointsWithAPoleMeetTheExactPlacement) {
  std::mt19937 rng(422);
  std::uniform_real_distribution<double> frac(0.0, 1.0);
  const Vec3 hip(0, 1, 0);
  const auto start = hanging_chain(hip, {0.45, 0.42});
  for (int i = 0; i < 300; ++i) {
    const Vec3 pole = random_unit(rng);
    const Vec3 target = hip + random_unit(rng) * (0.1 + 0.76 * frac(rng));
    const Result r = solve(start, target, &pole);
    expect_sane(r, start, target, "pole");
    ASSERT_TRUE(r.reached) << i;
    std::vector<Vec3> exact = start;
    ASSERT_TRUE(place_two_bone(exact, target, 0.45, 0.42, pole));
    const Vec3 axis = glm::normalize(target - hip);
    if (glm::length(pole - axis * glm::dot(pole, axis)) < 0.05) continue;  // side ill-defined
    EXPECT_LT(glm::length(r.out[1] - exact[1]), 1e-4) << i;
  }
}

TEST(DlsIterations, TargetAlreadyReachedTakesNoStep) {
  const auto start = hanging_chain(Vec3(0, 1, 0), {0.45, 0.42});
  const Result r = solve(start, start.back());
  expect_sane(r, start, start.back(), "already there");
  EXPECT_EQ(r.iterations, 0);
  EXPECT_TRUE(r.reached);
  for (std::size_t i = 0; i < start.size(); ++i) EXPECT_EQ(r.out[i], start[i]);
}

// Damping adapts so a step that does not lower the error is dropped: with more steps allowed the
// error only shrinks, and the step count stays within the bound.
TEST(DlsIterations, ErrorNeverGrowsAndTheBoundHolds) {
  const auto start = hanging_chain(Vec3(0, 1, 0), {0.3, 0.3, 0.3, 0.3});
  const Vec3 pole(0, 0, 1);
  for (const Vec3& target : {Vec3(0.5, 0.9, 0.3), Vec3(0.0, 1.0, 0.05), Vec3(0.1, 2.05, 0.0)}) {
    double previous = std::numeric_limits<double>::infinity();
    for (int max_iterations = 1; max_iterations <= 40; ++max_iterations) {
      DlsJob job;
      job.target_ws = target;
      job.pole_dir_ws = &pole;
      job.max_iterations = max_iterations;
      job.tolerance = 1e-15;
      const Result r = solve(job, start);
      expect_sane(r, start, target, "bounded", job.tolerance);
      EXPECT_LE(r.iterations, max_iterations);
      EXPECT_LE(r.residual, previous) << max_iterations;
      previous = r.residual;
    }
  }
}

TEST(DlsUnreachable, StretchesStraightTowardTheTargetWithTheShortfall) {
  const Vec3 root(0, 1, 0);
  const auto start = hanging_chain(root, {0.45, 0.42});
  const double total = total_length(start);
  const Vec3 pole(0, 0, 1);
  std::mt19937 rng(6);
  for (int i = 0; i < 50; ++i) {
    const Vec3 dir = random_unit(rng);
    const double d = total * (i % 2 ? 1.5 : 1.0 + 1e-9);
    const Vec3 target = root + dir * d;
    const Result r = solve(start, target, &pole);
    expect_sane(r, start, target, "unreachable");
    EXPECT_EQ(r.reached, i % 2 == 0) << i;  // 1e-9 m short: within the tolerance
    EXPECT_NEAR(r.residual, d - total, 1e-12) << i;
    EXPECT_NEAR(glm::dot(glm::normalize(r.out[1] - root), dir), 1.0, 1e-12) << i;
  }
}

TEST(DlsUnreachable, TooCloseEndsAtALeastSquaresPose) {
  // Bones of 0.45 and 0.30 cannot bring the end nearer the root than 0.15.
  const Vec3 hip(0, 1, 0), pole(0, 0, 1);
  const auto start = hanging_chain(hip, {0.45, 0.30});
  const Vec3 target = hip + Vec3(0, -0.05, 0.01);
  const Result r = solve(start, target, &pole);
  expect_sane(r, start, target, "too close");
  EXPECT_FALSE(r.reached);
  const double nearest = 0.15 - glm::length(target - hip);
  EXPECT_GE(r.residual, nearest - 1e-12);
  EXPECT_LT(r.residual, nearest + 1e-3);  // folded toward the target
}

TEST(DlsPole, ThreeJointKneeEndsOnThePoleSide) {
  std::mt19937 rng(76);
  std::uniform_real_distribution<double> frac(0.0, 1.0);
  const Vec3 hip(0, 1, 0);
  const std::vector<Vec3> start = {hip, Vec3(0, 0.56, -0.1), Vec3(0, 0.14, 0)};  // bent backward
  int checked = 0;
  for (int i = 0; i < 300; ++i) {
    const Vec3 pole = random_unit(rng);
    const Vec3 target = hip + random_unit(rng) * (0.25 + 0.5 * frac(rng));
    const Result r = solve(start, target, &pole);
    expect_sane(r, start, target, "pole");
    const Vec3 axis = glm::normalize(r.out[2] - hip);
    const Vec3 pole_perp = pole - axis * glm::dot(pole, axis);
    if (glm::length(pole_perp) < 0.05) continue;
    const Vec3 knee = r.out[1] - hip;
    EXPECT_GE(glm::dot(knee - axis * glm::dot(knee, axis), pole_perp), 0.0) << i;
    ++checked;
  }
  EXPECT_GT(checked, 250);
}

TEST(DlsPole, PoleAlongTheAxisOrZeroDoesNotBreak) {
  const Vec3 hip(0, 1, 0);
  const auto start = hanging_chain(hip, {0.45, 0.42});
  const Vec3 target = hip + Vec3(0, -0.6, 0);
  for (const Vec3& pole : {Vec3(0, -1, 0), Vec3(0, 1, 0), Vec3(0.0)}) {
    const Result r = solve(start, target, &pole);
    expect_sane(r, start, target, "aligned pole");
    EXPECT_TRUE(r.reached);
  }
}

TEST(DlsPole, LongChainWithPoleKeepsBoneLengths) {
  std::mt19937 rng(77);
  std::uniform_real_distribution<double> frac(0.0, 1.0);
  const Vec3 hip(0, 1, 0), pole(0, 0, 1);
  const auto start = hanging_chain(hip, {0.45, 0.42, 0.15});
  for (int i = 0; i < 50; ++i) {
    const Vec3 target = hip + random_unit(rng) * (0.3 + 0.7 * frac(rng));
    const Result r = solve(start, target, &pole);
    expect_sane(r, start, target, "4 joints with pole");
  }
}

// A straight chain has no first-order motion along its own line: it is bent toward the pole
// first, so a target on the line (a leg straight down, the ground risen under it) is reached,
// with the knee on the pole's side.
TEST(DlsDegenerate, StraightChainTowardATargetOnItsLine) {
  const Vec3 hip(0, 1, 0), pole(0, 0, 1);
  const std::vector<Vec3> straight = {hip, hip + Vec3(0, -0.45, 0), hip + Vec3(0, -0.9, 0)};
  const Vec3 target = hip + Vec3(0, -0.7, 0);
  const Result r = solve(straight, target, &pole);
  expect_sane(r, straight, target, "straight");
  EXPECT_TRUE(r.reached) << r.residual;
  EXPECT_GT(r.out[1].z - hip.z, 0.1);
  const Result no_pole = solve(straight, target);
  expect_sane(no_pole, straight, target, "straight, no pole");
  EXPECT_TRUE(no_pole.reached) << no_pole.residual;
}

TEST(DlsDegenerate, TargetOnRootZeroLengthBonesAndFoldedChains) {
  const Vec3 hip(0, 1, 0), pole(0, 0, 1);
  const auto start = hanging_chain(hip, {0.45, 0.42});
  for (const Vec3* p : {static_cast<const Vec3*>(nullptr), &pole}) {
    const Result on_root = solve(start, hip, p);
    expect_sane(on_root, start, hip, "target on the root");
    EXPECT_FALSE(on_root.reached);  // the bones differ by 3 cm: the end cannot fold onto the hip
    EXPECT_LT(on_root.residual, 0.03 + 1e-3);
  }
  // All joints on one point: nothing can move, nothing is NaN.
  const std::vector<Vec3> point = {hip, hip, hip};
  const Vec3 target(0.2, 0.3, 0.1);
  const Result r = solve(point, target, &pole);
  expect_sane(r, point, target, "zero-length chain");
  EXPECT_FALSE(r.reached);
  for (const Vec3& q : r.out) EXPECT_EQ(q, hip);
  const Result on_point = solve(point, hip, &pole);
  expect_sane(on_point, point, hip, "zero-length chain, target on it");
  EXPECT_TRUE(on_point.reached);
  // One zero-length bone (knee on the hip): a one-bone chain in effect.
  const std::vector<Vec3> no_thigh = {hip, hip, hip + Vec3(0, -0.42, 0)};
  const Vec3 t1 = hip + glm::normalize(Vec3(0.3, -1, 0.2)) * 0.42;
  const Result n = solve(no_thigh, t1, &pole);
  expect_sane(n, no_thigh, t1, "zero-length thigh");
  EXPECT_TRUE(n.reached) << n.residual;
  // Folded: ankle on the hip.
  const std::vector<Vec3> folded = {hip, hip + Vec3(0, -0.45, 0), hip};
  const Vec3 t2 = hip + Vec3(0.1, -0.5, 0.2);
  const Result f = solve(folded, t2, &pole);
  expect_sane(f, folded, t2, "folded chain");
  EXPECT_TRUE(f.reached) << f.residual;
  // Target on the knee.
  const Result k = solve(start, start[1], &pole);
  expect_sane(k, start, start[1], "target on the knee");
}

TEST(DlsDeterminism, SameInputSameBits) {
  std::mt19937 rng(78);
  const Vec3 hip(0, 1, 0);
  const auto start = hanging_chain(hip, {0.45, 0.42, 0.15});
  for (int i = 0; i < 50; ++i) {
    const Vec3 pole = random_unit(rng);
    const Vec3 target = hip + random_unit(rng) * 0.8;
    const Result a = solve(start, target, &pole), b = solve(start, target, &pole);
    ASSERT_EQ(a.out.size(), b.out.size());
    EXPECT_EQ(std::memcmp(a.out.data(), b.out.data(), a.out.size() * sizeof(Vec3)), 0) << i;
    EXPECT_EQ(a.iterations, b.iterations) << i;
  }
}

}  // namespace
}  // namespace ikfix::core
