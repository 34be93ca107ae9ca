// FBX read vs read + patch + write on the CMU skeleton files (the goal: reading +
// patching + writing costs at most 1.3x reading). What `ikfix run` changes: the six leg joints'
// rotations and the pelvis translation, on every frame. Skips when the shared data is absent.
// main() comes from bench_main.cpp.
#include <benchmark/benchmark.h>
#include <time.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "io/clip_io.hpp"
#include "io/fbx/fbx.hpp"

namespace {

namespace fs = std::filesystem;

fs::path cmu(int which) {
  return fs::path(IKFIX_SHARED_DATA) / (which == 0
                                            ? "anim/fbx/cmu_07_01_walk_skeleton.fbx"
                                            : "anim/fbx/cmu_01_01_forward_jumps_skeleton.fbx");
}

void edit(const ikfix::io::LoadedClip& c, ikfix::core::Clip& clip, std::vector<char>& changed) {
  clip = c.clip;
  changed.assign(c.skeleton.joint_count(), 0);
  for (const char* name :
       {"LeftUpLeg", "LeftLeg", "LeftFoot", "RightUpLeg", "RightLeg", "RightFoot", "Hips"}) {
    const int j = c.skeleton.find(name);
    if (j < 0) continue;
    changed[j] = 1;
    for (int f = 0; f < clip.frame_count; ++f) {
      clip.at(f, j).rotation =
          clip.at(f, j).rotation * ikfix::core::axis_angle(ikfix::core::Vec3(1, 0, 0), 1e-4 * f);
      if (std::string(name) == "Hips") clip.at(f, j).translation.y -= 0.001 * f;
    }
  }
}

double thread_cpu_us() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

// Per iteration (thread CPU time, so the ratios hold on a busy machine):
//   read_us:   io::load_clip (parse, interpret, decode and sample every curve)
//   patch_us:  fbx::patch_take + fbx::write (the new file's bytes, in memory), into the
//              fbx::copy_for_patch copy save makes (the copy itself is not in patch_us)
//   check_us:  fbx::verify_readback_borrowing (our reader re-parses the bytes and samples the
//              edited joints; the writer's self-check that every save runs)
//   assimp_us: fbx::verify_with_assimp (Assimp re-reads the bytes; --verify-assimp, and the
//              only check before verify_readback)
//   save_us:   io::save_clip as `ikfix run` calls it (patch, write, check, atomic file write)
//   ratio_written = (read + save - check) / read: reading + patching + writing (atomic file
//     write included), the goal <= 1.3. The issue asks for the read-back check as a
//     separate step after writing (and as an Assimp re-read, which alone costs ~1.6x a read),
//     so the goal cannot include it; its cost is the difference to `ratio`
//   ratio = (read + save) / read: everything `ikfix run` spends saving, self-check included
//   ratio_assimp = (read + save - check + assimp) / read: the same save checked by Assimp
//     instead (the previous default), measured in the same run
//   ratio_unchecked = (read + patch) / read
void BM_FbxReadPatchWrite(benchmark::State& state) {
  const fs::path in = cmu(static_cast<int>(state.range(0)));
  if (!fs::exists(in)) {
    state.SkipWithError("shared data missing");
    return;
  }
  const fs::path out = fs::temp_directory_path() / "ikfix_bench_cmu.fbx";
  ikfix::core::Clip clip;
  std::vector<char> changed;
  double read_us = 0, patch_us = 0, check_us = 0, assimp_us = 0, save_us = 0;
  for (auto _ : state) {
    const double t0 = thread_cpu_us();
    auto c = ikfix::io::load_clip(in);
    const double t1 = thread_cpu_us();
    edit(c, clip, changed);
    fs::remove(out);
    const double t2 = thread_cpu_us();
    ikfix::io::save_clip(out, c, clip, changed);
    const double t3 = thread_cpu_us();
    // The parts of save_clip, measured apart, as fbx::save does them.
    const std::vector<ikfix::io::fbx::TakeJoints> joints{{c.take_index, changed}};
    ikfix::io::fbx::ClipDocument work = ikfix::io::fbx::copy_for_patch(
        *static_cast<const ikfix::io::fbx::ClipDocument*>(c.document.get()), joints);
    const double t4 = thread_cpu_us();
    std::vector<ikfix::io::fbx::PatchedTake> patched{
        ikfix::io::fbx::patch_take(work, c.take_index, clip, changed)};
    patched[0].space = c.space;
    std::string bytes = ikfix::io::fbx::write(work.doc);
    const double t5 = thread_cpu_us();
    ikfix::io::fbx::verify_readback_borrowing(bytes, "bench", work, patched);
    const double t6 = thread_cpu_us();
    ikfix::io::fbx::verify_with_assimp(bytes, "bench", work, patched);
    const double t7 = thread_cpu_us();
    read_us += t1 - t0;
    save_us += t3 - t2;
    patch_us += t5 - t4;
    check_us += t6 - t5;
    assimp_us += t7 - t6;
  }
  fs::remove(out);
  const double n = static_cast<double>(state.iterations());
  state.counters["read_us"] = read_us / n;
  state.counters["patch_us"] = patch_us / n;
  state.counters["check_us"] = check_us / n;
  state.counters["assimp_us"] = assimp_us / n;
  state.counters["save_us"] = save_us / n;
  state.counters["ratio"] = (read_us + save_us) / read_us;
  state.counters["ratio_written"] = (read_us + save_us - check_us) / read_us;
  state.counters["ratio_assimp"] = (read_us + save_us - check_us + assimp_us) / read_us;
  state.counters["ratio_unchecked"] = (read_us + patch_us) / read_us;
}
BENCHMARK(BM_FbxReadPatchWrite)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
