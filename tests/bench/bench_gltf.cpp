// glTF read vs read + patch + write on CesiumMan.glb (the goal: patching and writing cost
// at most 0.3x of reading). Skips (no benchmarks registered) when the shared data is absent.
// main() comes from bench_main.cpp.
#include <benchmark/benchmark.h>
#include <time.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "io/clip_io.hpp"

namespace {

namespace fs = std::filesystem;

fs::path cesium() { return fs::path(IKFIX_SHARED_DATA) / "anim/gltf/CesiumMan.glb"; }

// What `ikfix run` changes on CesiumMan: six leg joints' rotations and the pelvis translation.
void edit(const ikfix::io::LoadedClip& c, ikfix::core::Clip& clip, std::vector<char>& changed) {
  clip = c.clip;
  changed.assign(c.skeleton.joint_count(), 0);
  for (const char* name : {"leg_joint_L_1", "leg_joint_L_2", "leg_joint_L_3", "leg_joint_R_1",
                           "leg_joint_R_2", "leg_joint_R_3", "Skeleton_torso_joint_1"}) {
    const int j = c.skeleton.find(name);
    if (j < 0) continue;
    changed[j] = 1;
    for (int f = 0; f < clip.frame_count; ++f) {
      clip.at(f, j).rotation =
          clip.at(f, j).rotation * ikfix::core::axis_angle(ikfix::core::Vec3(1, 0, 0), 0.01 * f);
      clip.at(f, j).translation.y -= 0.001 * f;
    }
  }
}

void BM_GltfRead(benchmark::State& state) {
  if (!fs::exists(cesium())) {
    state.SkipWithError("shared data missing");
    return;
  }
  for (auto _ : state) {
    auto c = ikfix::io::load_clip(cesium());
    benchmark::DoNotOptimize(c.clip.locals.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(fs::file_size(cesium())));
}
BENCHMARK(BM_GltfRead)->Unit(benchmark::kMicrosecond);

double thread_cpu_us() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

// Read, then patch the edited joints and write the file atomically. Both phases are timed in
// the same iteration (thread CPU time), so the ratio holds on a busy machine too:
//   read_us, write_us: mean CPU time of load_clip and of save_clip
//   ratio: (read + patch + write) / read  -- the goal is <= 1.3
// Argument 0: a new output file each time (the file is removed outside the timed region);
// argument 1: replacing an existing output (on ext4 the rename then flushes the replaced data).
void BM_GltfReadPatchWrite(benchmark::State& state) {
  if (!fs::exists(cesium())) {
    state.SkipWithError("shared data missing");
    return;
  }
  const bool overwrite = state.range(0) == 1;
  const fs::path out = fs::temp_directory_path() / "ikfix_bench_cesium.glb";
  ikfix::core::Clip clip;
  std::vector<char> changed;
  double read_us = 0, write_us = 0;
  for (auto _ : state) {
    const double t0 = thread_cpu_us();
    auto c = ikfix::io::load_clip(cesium());
    const double t1 = thread_cpu_us();
    edit(c, clip, changed);
    if (!overwrite) fs::remove(out);
    const double t2 = thread_cpu_us();
    ikfix::io::save_clip(out, c, clip, changed);
    const double t3 = thread_cpu_us();
    read_us += t1 - t0;
    write_us += t3 - t2;
  }
  fs::remove(out);
  const double n = static_cast<double>(state.iterations());
  state.counters["read_us"] = read_us / n;
  state.counters["write_us"] = write_us / n;
  state.counters["ratio"] = (read_us + write_us) / read_us;
}
BENCHMARK(BM_GltfReadPatchWrite)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
