// Large terrains (issue 18): OBJ reading in MB/s of wall time (the parallel parse alone, the
// whole load with the vertex merge, and the load keeping a 6 m square only), the prepared file
// (.ikterrain) read whole and cropped to that square, Terrain construction (checks,
// classification, float vertices) and the first query over a 2 m patch (the cropped scene
// build), over generated 20 m bumps of 80 k and 2 M triangles (written once per process into a
// temp folder).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "core/terrain.hpp"
#include "core/terrain_gen.hpp"
#include "io/mapped_file.hpp"
#include "io/obj_parts.hpp"
#include "io/prepared_terrain.hpp"
#include "io/terrain_io.hpp"

namespace {

// A temp folder for this process, removed at exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string name = (std::filesystem::temp_directory_path() / "ikfix_bench_XXXXXX").string();
    if (!::mkdtemp(name.data())) throw std::runtime_error("cannot create a temp folder");
    path = name;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// The bumps OBJ with the given grid cell (metres): 2 * (20 / cell)^2 triangles.
const std::filesystem::path& bumps_obj(double cell) {
  static TempDir dir;
  static std::map<double, std::filesystem::path> paths;
  auto it = paths.find(cell);
  if (it != paths.end()) return it->second;
  ikfix::core::BumpsParams params;
  params.cell = cell;
  const auto path = dir.path / ("bumps_" + std::to_string(cell) + ".obj");
  ikfix::io::save_obj(path, ikfix::core::make_bumps_terrain(params));
  return paths.emplace(cell, path).first->second;
}

double cell_of(const benchmark::State& state) { return state.range(0) == 0 ? 0.1 : 0.02; }

void set_counters(benchmark::State& state, const std::filesystem::path& path) {
  state.SetBytesProcessed(static_cast<std::int64_t>(std::filesystem::file_size(path)) *
                          state.iterations());
}

void BM_LargeObjParse(benchmark::State& state) {
  const auto& path = bumps_obj(cell_of(state));
  const ikfix::io::MappedFile file(path);
  const ikfix::core::ThreadPool pool(static_cast<int>(state.range(1)));
  for (auto _ : state) {
    auto parts = ikfix::io::parse_obj_parts(file.text(), &pool);
    benchmark::DoNotOptimize(parts);
  }
  set_counters(state, path);
}
BENCHMARK(BM_LargeObjParse)
    ->ArgsProduct({{0, 1}, {1, 2}})
    ->ArgNames({"2M", "threads"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_LargeObjLoad(benchmark::State& state) {
  const auto& path = bumps_obj(cell_of(state));
  for (auto _ : state) {
    auto mesh = ikfix::io::load_terrain_mesh(path);
    benchmark::DoNotOptimize(mesh.vertices.data());
  }
  set_counters(state, path);
}
BENCHMARK(BM_LargeObjLoad)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("2M")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// A clip's footprint on the 20 m square: 6 m x 6 m off its centre.
const ikfix::core::XzBox kFootprint{-1.0, -4.0, 5.0, 2.0};

void BM_LargeObjCropRead(benchmark::State& state) {
  const auto& path = bumps_obj(cell_of(state));
  std::size_t kept = 0;
  for (auto _ : state) {
    auto read = ikfix::io::load_terrain_part(path, 1.0, 'y', kFootprint);
    kept = read.mesh.triangles.size();
    benchmark::DoNotOptimize(read.mesh.vertices.data());
  }
  set_counters(state, path);
  state.counters["kept"] = static_cast<double>(kept);
}
BENCHMARK(BM_LargeObjCropRead)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("2M")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The prepared file of the bumps (written once per cell).
const std::filesystem::path& bumps_prepared(double cell) {
  static std::map<double, std::filesystem::path> paths;
  auto it = paths.find(cell);
  if (it != paths.end()) return it->second;
  auto path = bumps_obj(cell);
  path.replace_extension(".ikterrain");
  ikfix::io::save_prepared_terrain(path, ikfix::io::load_terrain_mesh(bumps_obj(cell)));
  return paths.emplace(cell, path).first->second;
}

void BM_LargePreparedRead(benchmark::State& state) {
  const auto& path = bumps_prepared(cell_of(state));
  const bool crop = state.range(1) == 1;
  for (auto _ : state) {
    auto read = ikfix::io::load_prepared_terrain(
        path, crop ? std::optional<ikfix::core::XzBox>(kFootprint) : std::nullopt);
    benchmark::DoNotOptimize(read.mesh.vertices.data());
  }
  set_counters(state, path);
}
BENCHMARK(BM_LargePreparedRead)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"2M", "crop"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_LargeTerrainBuild(benchmark::State& state) {
  const auto mesh = ikfix::io::load_terrain_mesh(bumps_obj(cell_of(state)));
  for (auto _ : state) {
    ikfix::core::Terrain terrain(mesh);
    benchmark::DoNotOptimize(terrain.ground_triangle_count());
  }
  state.counters["triangles"] = static_cast<double>(mesh.triangles.size());
}
BENCHMARK(BM_LargeTerrainBuild)->Arg(0)->Arg(1)->ArgName("2M")->Unit(benchmark::kMillisecond);

// First query of a fresh terrain: 400 points over a 2 m square (a clip's feet), which builds the
// scene over that square plus its margin.
void BM_LargeTerrainFirstQuery(benchmark::State& state) {
  const auto mesh = ikfix::io::load_terrain_mesh(bumps_obj(cell_of(state)));
  std::vector<std::array<double, 2>> xz;
  for (int i = 0; i < 20; ++i)
    for (int j = 0; j < 20; ++j) xz.push_back({1.0 + 0.1 * i + 0.003, -2.0 + 0.1 * j + 0.007});
  std::vector<ikfix::core::GroundHit> hits(xz.size());
  for (auto _ : state) {
    state.PauseTiming();
    auto terrain = std::make_unique<ikfix::core::Terrain>(mesh);
    state.ResumeTiming();
    terrain->ground_at(xz, hits);
    benchmark::DoNotOptimize(hits.data());
    state.PauseTiming();
    terrain.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_LargeTerrainFirstQuery)->Arg(0)->Arg(1)->ArgName("2M")->Unit(benchmark::kMillisecond);

}  // namespace
