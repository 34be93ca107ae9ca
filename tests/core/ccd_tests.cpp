#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/solvers/ccd.hpp"
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

Result solve(CcdJob job, std::span<const Vec3> start) {
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
  CcdJob job;
  job.target_ws = target;
  job.pole_dir_ws = pole;
  return solve(job, start);
}

void expect_sane(const Result& r, std::span<const Vec3> start, const Vec3& target,
                 const char* what) {
  ASSERT_TRUE(r.ok) << what;
  for (const Vec3& p : r.out) ASSERT_TRUE(is_finite(p)) << what;
  EXPECT_EQ(r.out[0], start[0]) << what << ": the root moved";
  const auto want = bone_lengths(start), got = bone_lengths(r.out);
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-9) << what << ", bone " << i;
  EXPECT_NEAR(r.residual, glm::length(r.out.back() - target), 1e-15) << what;
}

TEST(CcdValidate, RejectsBadInputs) {
  const auto start = hanging_chain(Vec3(0, 1, 0), {0.45, 0.42});
  std::vector<Vec3> out(3, Vec3(7.0)), short_out(2, Vec3(7.0));
  std::vector<Vec3> nan_start = start;
  nan_start[2].x = kNaN;
  const std::vector<Vec3> one = {Vec3(0.0)};
  const Vec3 nan_pole(0, 0, kNaN), pole(0, 0, 1);
  auto base = [&] {
    CcdJob job;
    job.start_ws = start;
    job.out_ws = out;
    job.target_ws = Vec3(0.1, 0.3, 0.1);
    job.pole_dir_ws = &pole;
    return job;
  };
  EXPECT_TRUE(base().validate());
  std::vector<std::pair<const char*, CcdJob>> cases;
  auto add = [&](const char* name, auto edit) {
    CcdJob job = base();
    edit(job);
    cases.emplace_back(name, job);
  };
  add("output size mismatch", [&](CcdJob& j) { j.out_ws = short_out; });
  add("single joint", [&](CcdJob& j) {
    j.start_ws = one;
    j.out_ws = std::span<Vec3>(out).first(1);
  });
  add("empty", [&](CcdJob& j) {
    j.start_ws = {};
    j.out_ws = {};
  });
  add("NaN start", [&](CcdJob& j) { j.start_ws = nan_start; });
  add("NaN target", [&](CcdJob& j) { j.target_ws = Vec3(kNaN); });
  add("infinite target",
      [&](CcdJob& j) { j.target_ws.y = -std::numeric_limits<double>::infinity(); });
  add("zero tolerance", [&](CcdJob& j) { j.tolerance = 0; });
  add("NaN tolerance", [&](CcdJob& j) { j.tolerance = kNaN; });
  add("zero iterations", [&](CcdJob& j) { j.max_iterations = 0; });
  add("NaN pole", [&](CcdJob& j) { j.pole_dir_ws = &nan_pole; });
  for (const auto& [name, job] : cases) {
    EXPECT_FALSE(job.validate()) << name;
    EXPECT_FALSE(job.run()) << name;
  }
  for (const Vec3& p : out) EXPECT_EQ(p, Vec3(7.0));
  for (const Vec3& p : short_out) EXPECT_EQ(p, Vec3(7.0));
}

TEST(CcdReachable, ConvergesOnEasyTargets) {
  // Easy: well inside the reach, away from full extension and from the root.
  std::mt19937 rng(321);
  std::uniform_real_distribution<double> frac(0.0, 1.0);
  for (const std::vector<double>& lengths :
       {std::vector<double>{0.45, 0.42}, std::vector<double>{0.45, 0.42, 0.15},
        std::vector<double>{0.2, 0.2, 0.2, 0.2, 0.2}}) {
    const Vec3 root(0.1, 1, -0.3);
    const auto start = hanging_chain(root, lengths);
    const double total = total_length(start);
    for (int i = 0; i < 300; ++i) {
      const Vec3 target = root + random_unit(rng) * (total * (0.3 + 0.6 * frac(rng)));
      // CCD creeps on longer chains: give them more sweeps (the default 64 suits a leg).
      CcdJob job;
      job.target_ws = target;
      job.max_iterations = start.size() == 3 ? 64 : 1000;
      const Result r = solve(job, start);
      expect_sane(r, start, target, "easy target");
      EXPECT_TRUE(r.reached) << start.size() << " joints, target " << i << " residual "
                             << r.residual;
    }
  }
}

TEST(CcdReachable, LengthsHoldOnEveryTargetEvenWithoutConvergence) {
  // Whatever CCD makes of a target (reachable, folded, out of reach), it only rotates.
  std::mt19937 rng(322);
  std::uniform_real_distribution<double> frac(0.0, 2.0);
  const std::vector<double> lengths = {0.45, 0.42, 0.15};
  const Vec3 root(0, 1, 0);
  const auto start = hanging_chain(root, lengths);
  for (int i = 0; i < 300; ++i) {
    const Vec3 target = root + random_unit(rng) * (1.02 * frac(rng));
    const Result r = solve(start, target);
    expect_sane(r, start, target, "any target");
  }
}

TEST(CcdIterations, TargetAlreadyReachedTakesNoSweep) {
  const auto start = hanging_chain(Vec3(0, 1, 0), {0.45, 0.42});
  const Result r = solve(start, start.back());
  expect_sane(r, start, start.back(), "already there");
  EXPECT_EQ(r.iterations, 0);
  EXPECT_TRUE(r.reached);
  for (std::size_t i = 0; i < start.size(); ++i) EXPECT_EQ(r.out[i], start[i]);
}

TEST(CcdIterations, RespectsMaxIterations) {
  const auto start = hanging_chain(Vec3(0, 1, 0), {0.3, 0.3, 0.3, 0.3});
  const Vec3 target(0.5, 0.9, 0.3);
  for (int max_iterations : {1, 2, 5}) {
    CcdJob job;
    job.target_ws = target;
    job.max_iterations = max_iterations;
    job.tolerance = 1e-15;
    const Result r = solve(job, start);
    expect_sane(r, start, target, "max iterations");
    EXPECT_LE(r.iterations, max_iterations);
  }
}

TEST(CcdUnreachable, PointsTheChainAtTheTarget) {
  const std::vector<double> lengths = {0.45, 0.42};
  const Vec3 root(0, 1, 0);
  const auto start = hanging_chain(root, lengths);
  const double total = total_length(start);
  std::mt19937 rng(5);
  for (int i = 0; i < 50; ++i) {
    const Vec3 dir = random_unit(rng);
    const double d = total * 1.5;
    const Vec3 target = root + dir * d;
    const Result r = solve(start, target);
    expect_sane(r, start, target, "unreachable");
    EXPECT_FALSE(r.reached);
    // Nearly straight toward the target: the shortfall is close to d - total.
    EXPECT_NEAR(r.residual, d - total, 1e-6) << i;
  }
}

TEST(CcdPole, ThreeJointKneeEndsOnThePoleSide) {
  std::mt19937 rng(66);
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

TEST(CcdPole, PoleAlignedWithTheTargetDoesNotBreak) {
  const Vec3 hip(0, 1, 0);
  const auto start = hanging_chain(hip, {0.45, 0.42});
  const Vec3 target = hip + Vec3(0, -0.6, 0);
  for (const Vec3& pole : {Vec3(0, -1, 0), Vec3(0, 1, 0), Vec3(0.0)}) {
    const Result r = solve(start, target, &pole);
    expect_sane(r, start, target, "aligned pole");
  }
}

// BUG: CcdJob claims "bone lengths preserved (rotations only)", but with 4+ joints and a pole
// apply_bend_plane (core/solvers/ccd.cpp:30 -> core/solvers/chain.cpp:16-21) moves the middle
// joints independently and changes the bones between them.
TEST(CcdPole, FourJointChainWithPoleKeepsBoneLengths) {
  std::mt19937 rng(67);
  std::uniform_real_distribution<double> frac(0.0, 1.0);
  const Vec3 hip(0, 1, 0), pole(0, 0, 1);
  const auto start = hanging_chain(hip, {0.45, 0.42, 0.15});
  for (int i = 0; i < 50; ++i) {
    const Vec3 target = hip + random_unit(rng) * (0.3 + 0.6 * frac(rng));
    const Result r = solve(start, target, &pole);
    expect_sane(r, start, target, "4 joints with pole");
  }
}

TEST(CcdDegenerate, TargetOnRootAndCoincidentJoints) {
  const Vec3 hip(0, 1, 0);
  const auto start = hanging_chain(hip, {0.45, 0.42});
  const Result on_root = solve(start, hip);
  expect_sane(on_root, start, hip, "target on the root");
  const Vec3 pole(0, 0, 1);
  const Result on_root_pole = solve(start, hip, &pole);
  expect_sane(on_root_pole, start, hip, "target on the root, pole");
  // All joints on one point: nothing to rotate.
  const std::vector<Vec3> point = {hip, hip, hip};
  const Vec3 target(0.2, 0.3, 0.1);
  const Result r = solve(point, target);
  expect_sane(r, point, target, "zero-length chain");
  EXPECT_FALSE(r.reached);
  for (const Vec3& p : r.out) EXPECT_EQ(p, hip);
  // Folded: ankle on the hip.
  const std::vector<Vec3> folded = {hip, hip + Vec3(0, -0.45, 0), hip};
  const Vec3 t2 = hip + Vec3(0.1, -0.5, 0.2);
  const Result f = solve(folded, t2);
  expect_sane(f, folded, t2, "folded chain");
  // Target on the knee.
  const Result k = solve(start, start[1]);
  expect_sane(k, start, start[1], "target on the knee");
}

}  // namespace
}  // namespace ikfix::core
