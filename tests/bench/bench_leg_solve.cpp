// A frame's two leg solves, one after the other (solve_leg twice) against together
// (solve_leg_pair, which interleaves the legs' steps so the CPU overlaps their chains of square
// roots and divisions): time per frame, the same results either way. Synthetic legs: ~0.9 m,
// knees slightly bent, targets 0.7-0.9 m from the hip (near full reach, where FABRIK ends with
// its closing step), seeded.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "core/fix/leg_solve.hpp"

namespace {

using namespace ikfix::core;

constexpr int kFrames = 2752;  // as many as the fix benchmark's clip

struct Legs {
  std::vector<LegPose> poses;
  std::vector<LegSolveArgs> args;  // two a frame, left then right
};

const Legs& legs() {
  static const Legs made = [] {
    Legs l;
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    l.poses.resize(kFrames * 2);
    l.args.resize(kFrames * 2);
    for (int i = 0; i < kFrames * 2; ++i) {
      LegPose& p = l.poses[i];
      p.hip_ws = Vec3(i % 2 ? -0.1 : 0.1, 0.9 + 0.05 * u(rng), 0.05 * u(rng));
      p.knee_ws = p.hip_ws + Vec3(0.03 * u(rng), -0.45, 0.04 + 0.03 * u(rng));
      p.ankle_ws = p.knee_ws + Vec3(0.03 * u(rng), -0.44, -0.02 + 0.03 * u(rng));
      p.hip_rot_ws = glm::normalize(Quat(1, 0.1 * u(rng), 0.1 * u(rng), 0.1 * u(rng)));
      p.knee_rot_ws = glm::normalize(Quat(1, 0.2 * u(rng), 0.1 * u(rng), 0.1 * u(rng)));
      p.hip_cone_axis_ws = Vec3(0, -1, 0);
      const Vec3 dir = glm::normalize(Vec3(0.2 * u(rng), -1.0, 0.3 * u(rng)));
      l.args[i] =
          LegSolveArgs{&p, p.hip_ws + Vec3(0, 0.02 * u(rng), 0),
                       p.hip_ws + dir * (0.8 + 0.1 * u(rng)), knee_pole(p, Vec3(0, 0, 1), 0.9)};
    }
    return l;
  }();
  return made;
}

// range(0): the solver (0 FABRIK, 2 two-bone, 3 DLS); range(1): 0 solve_leg twice, 1
// solve_leg_pair.
void BM_SolveLegsOfAFrame(benchmark::State& state) {
  FixSettings s;
  s.solver = static_cast<SolverKind>(state.range(0));
  const bool pair = state.range(1) == 1;
  const KneeLimit limit(s.min_knee_angle);
  const Legs& l = legs();
  std::vector<LegSolveResult> out(kFrames * 2);
  for (auto _ : state) {
    for (int f = 0; f < kFrames; ++f) {
      if (pair) {
        solve_leg_pair(&l.args[2 * f], s, limit, &out[2 * f]);
      } else {
        for (int k = 2 * f; k < 2 * f + 2; ++k)
          out[k] = solve_leg(*l.args[k].animated, l.args[k].hip_ws, l.args[k].target_ws,
                             l.args[k].pole_ws, s, limit);
      }
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kFrames);
  state.SetLabel(pair ? "pair" : "one by one");
}
BENCHMARK(BM_SolveLegsOfAFrame)->ArgsProduct({{0, 2, 3}, {0, 1}})->Unit(benchmark::kMicrosecond);

}  // namespace
