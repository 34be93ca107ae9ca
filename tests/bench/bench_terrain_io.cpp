// Terrain file loading: data/terrain/bumps.obj (the bundled 20 m bumps mesh) through our OBJ
// reader (what `ikfix run --terrain x.obj` uses), against Assimp's importer on the same bytes
// (what every other mesh format goes through), in MB/s of file text.
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <benchmark/benchmark.h>

#include <assimp/Importer.hpp>
#include <filesystem>
#include <string>

#include "io/terrain_io.hpp"
#include "test_data.hpp"

namespace {

const std::filesystem::path& bumps_obj() {
  static const std::filesystem::path path = ikfix::test::source_dir() / "data/terrain/bumps.obj";
  return path;
}

void BM_TerrainLoadObj(benchmark::State& state) {
  if (!std::filesystem::exists(bumps_obj())) {
    state.SkipWithError("data/terrain/bumps.obj not found");
    return;
  }
  std::size_t triangles = 0;
  for (auto _ : state) {
    const auto mesh = ikfix::io::load_terrain_mesh(bumps_obj());
    triangles = mesh.triangles.size();
    benchmark::DoNotOptimize(mesh.vertices.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(std::filesystem::file_size(bumps_obj())) *
                          state.iterations());
  state.counters["triangles"] = static_cast<double>(triangles);
  state.SetLabel("ikfix OBJ reader");
}
BENCHMARK(BM_TerrainLoadObj)->Unit(benchmark::kMillisecond);

void BM_TerrainLoadObjAssimp(benchmark::State& state) {
  if (!std::filesystem::exists(bumps_obj())) {
    state.SkipWithError("data/terrain/bumps.obj not found");
    return;
  }
  std::size_t triangles = 0;
  for (auto _ : state) {
    Assimp::Importer importer;  // a fresh importer per load, as a run does
    const aiScene* scene = importer.ReadFile(
        bumps_obj().string(), aiProcess_Triangulate | aiProcess_ValidateDataStructure);
    if (!scene) {
      state.SkipWithError(importer.GetErrorString());
      return;
    }
    triangles = 0;
    for (unsigned m = 0; m < scene->mNumMeshes; ++m) triangles += scene->mMeshes[m]->mNumFaces;
    benchmark::DoNotOptimize(scene);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(std::filesystem::file_size(bumps_obj())) *
                          state.iterations());
  state.counters["triangles"] = static_cast<double>(triangles);
  state.SetLabel("Assimp import only");
}
BENCHMARK(BM_TerrainLoadObjAssimp)->Unit(benchmark::kMillisecond);

}  // namespace
