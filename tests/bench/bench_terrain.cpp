// Terrain costs: construction for 10k / 100k / 1M triangles, and vertical queries (one by one,
// and a span at once) on a 100k-triangle bumps grid, random points and a walk.
#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "core/terrain.hpp"
#include "core/terrain_gen.hpp"

namespace {

using namespace ikfix::core;

// A 20 m bumps grid with about `triangles` triangles.
TerrainMesh bumps_with(double triangles) {
  BumpsParams p;
  p.size = 20.0;
  p.cell = p.size / std::round(std::sqrt(triangles / 2.0));
  return make_bumps_terrain(p);
}

const Terrain& query_terrain() {
  static const Terrain terrain(bumps_with(100000));  // 224^2 cells, 100352 triangles
  return terrain;
}

// Random points over the terrain, or a walk: two feet stepping along +z.
std::vector<std::array<double, 2>> points(bool walk) {
  std::vector<std::array<double, 2>> out(4096);
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-9.9, 9.9);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (walk) {
      const double t = static_cast<double>(i / 4) / 1024.0;  // heel/toe of left/right foot
      const double side = (i % 2 == 0 ? -0.1 : 0.1), ahead = (i % 4 < 2 ? 0.0 : 0.15);
      out[i] = {side, -9.0 + 18.0 * t + ahead};
    } else {
      out[i] = {u(rng), u(rng)};
    }
  }
  return out;
}

void BM_TerrainBuild(benchmark::State& state) {
  const TerrainMesh mesh = bumps_with(static_cast<double>(state.range(0)));
  for (auto _ : state) {
    state.PauseTiming();
    TerrainMesh copy = mesh;
    state.ResumeTiming();
    auto terrain = std::make_unique<Terrain>(std::move(copy));
    benchmark::DoNotOptimize(terrain.get());
    state.PauseTiming();
    terrain.reset();  // destruction outside the timing
    state.ResumeTiming();
  }
  state.counters["triangles"] = static_cast<double>(mesh.triangles.size());
}
BENCHMARK(BM_TerrainBuild)
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_TerrainQuerySingle(benchmark::State& state) {
  const Terrain& terrain = query_terrain();
  const auto xz = points(state.range(0) != 0);
  for (auto _ : state) {
    for (const auto& p : xz) benchmark::DoNotOptimize(terrain.ground_at(p[0], p[1]));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(xz.size()));
  state.SetLabel(state.range(0) ? "walk" : "random");
}
BENCHMARK(BM_TerrainQuerySingle)->Arg(0)->Arg(1);

void BM_TerrainQuerySpan(benchmark::State& state) {
  const Terrain& terrain = query_terrain();
  const auto xz = points(state.range(0) != 0);
  std::vector<GroundHit> out(xz.size());
  for (auto _ : state) {
    terrain.ground_at(xz, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(xz.size()));
  state.SetLabel(state.range(0) ? "walk" : "random");
}
BENCHMARK(BM_TerrainQuerySpan)->Arg(0)->Arg(1);

}  // namespace
