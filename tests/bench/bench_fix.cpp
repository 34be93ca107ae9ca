// The per-clip foot fix (FK, rays, contacts, pelvis, two leg solves, write-back), I/O excluded:
// frames per second on one core for a 31-joint CMU skeleton over a 100k-triangle terrain.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "core/fix/footfix.hpp"
#include "core/fk.hpp"
#include "core/parallel.hpp"
#include "core/terrain_gen.hpp"
#include "io/bvh/bvh.hpp"
#include "io/clip_io.hpp"
#include "test_data.hpp"

namespace {

using namespace ikfix;

struct FixFixture {
  io::LoadedClip clip;
  core::LegRig rig;
  std::unique_ptr<core::Terrain> terrain;
};

const FixFixture* fixture(bool& ok) {
  static std::unique_ptr<FixFixture> f;
  static bool loaded = false;
  if (!loaded) {
    loaded = true;
    const auto path = ikfix::test::shared_data_dir() / "anim/bvh/cmu_01_01_forward_jumps.bvh";
    if (std::filesystem::exists(path)) {
      f = std::make_unique<FixFixture>();
      f->clip = io::load_clip(path);
      f->rig = *core::detect_legs_at_rest(f->clip.skeleton, f->clip.space.to_world()).rig;
      // ~100k triangles: bumps on a 0.09 m grid over 20 m.
      core::BumpsParams bumps;
      bumps.cell = 0.089;
      f->terrain = std::make_unique<core::Terrain>(core::make_bumps_terrain(bumps));
    }
  }
  ok = f != nullptr;
  return f.get();
}

// The fixture, or null with the benchmark marked skipped (no shared data here).
const FixFixture* fixture_or_skip(benchmark::State& state) {
  bool ok = false;
  const FixFixture* f = fixture(ok);
  if (!ok) state.SkipWithError("cmu_01_01_forward_jumps.bvh not found in ../shared/data");
  return f;
}

// The fixture's clip onto its terrain with the solver the benchmark argument names (the clip
// itself is left for the caller: fix_clip reads it, fix_clip_in_place does not).
core::FixInput fix_input(const FixFixture& f, const benchmark::State& state) {
  core::FixInput input;
  input.skeleton = &f.clip.skeleton;
  input.space = f.clip.space;
  input.rig = f.rig;
  input.terrain = f.terrain.get();
  input.settings.solver = static_cast<core::SolverKind>(state.range(0));
  return input;
}

void BM_FixClip(benchmark::State& state) {
  const FixFixture* f = fixture_or_skip(state);
  if (!f) return;
  core::FixInput input = fix_input(*f, state);
  input.clip = &f->clip.clip;
  for (auto _ : state) {
    auto result = core::fix_clip(input);
    benchmark::DoNotOptimize(result.clip.locals.data());
  }
  state.counters["frames/s"] =
      benchmark::Counter(static_cast<double>(f->clip.clip.frame_count) * state.iterations(),
                         benchmark::Counter::kIsRate);
  state.counters["triangles"] = static_cast<double>(f->terrain->mesh().triangles.size());
  state.SetLabel(core::solver_name(input.settings.solver));
}
BENCHMARK(BM_FixClip)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

// The fix written over a copy of the clip, restored (untimed) before each run; `runner` null:
// one core.
void run_fix_in_place(benchmark::State& state, const core::ParallelRunner* runner) {
  const FixFixture* f = fixture_or_skip(state);
  if (!f) return;
  core::FixInput input = fix_input(*f, state);
  input.runner = runner;
  core::Clip motion = f->clip.clip;
  for (auto _ : state) {
    state.PauseTiming();
    std::copy(f->clip.clip.locals.begin(), f->clip.clip.locals.end(), motion.locals.begin());
    state.ResumeTiming();
    auto result = core::fix_clip_in_place(input, motion);
    benchmark::DoNotOptimize(motion.locals.data());
  }
  state.counters["frames/s"] =
      benchmark::Counter(static_cast<double>(f->clip.clip.frame_count) * state.iterations(),
                         benchmark::Counter::kIsRate);
  if (runner) state.counters["threads"] = runner->threads();
  state.SetLabel(core::solver_name(input.settings.solver));
}

// The same fix written over the motion itself (what `ikfix run` does when nothing needs the
// unfixed motion afterwards): no copy of the clip. The motion is reset, untimed, before each run.
void BM_FixClipInPlace(benchmark::State& state) { run_fix_in_place(state, nullptr); }
BENCHMARK(BM_FixClipInPlace)->Arg(0)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond);

// BM_FixClipInPlace with the per-frame loops on a pool of 2 threads (FixInput::runner), timed
// on the wall clock (the benchmark thread's CPU time would leave out the worker's share), so
// its frames/s sit beside the one-core figures above.
void BM_FixClipInPlacePooled(benchmark::State& state) {
  const core::ThreadPool pool(2);
  run_fix_in_place(state, &pool);
}
BENCHMARK(BM_FixClipInPlacePooled)->Arg(0)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

// What `ikfix run` writes: the fixture's clip fixed (FABRIK, once, untimed), written back as BVH
// text (bvh::write, no file) with the fix's change flags. Arguments: threads (1: this thread;
// 2: a pool), and whether the key-by-key rotation flags are passed (1, as `run` does: untouched
// rotations keep their text without an Euler conversion) or not (0: every key re-encoded).
void BM_BvhWriteFixedClip(benchmark::State& state) {
  const FixFixture* f = fixture_or_skip(state);
  if (!f) return;
  struct Fixed {
    core::Clip motion;
    core::FixResult result;
    std::unique_ptr<bool[]> changed;
  };
  static const std::unique_ptr<Fixed> fixed = [&] {
    auto x = std::make_unique<Fixed>();
    core::FixInput input;
    input.skeleton = &f->clip.skeleton;
    input.space = f->clip.space;
    input.rig = f->rig;
    input.terrain = f->terrain.get();
    x->motion = f->clip.clip;
    x->result = core::fix_clip_in_place(input, x->motion);
    x->changed = std::make_unique<bool[]>(x->result.changed_joints.size());
    for (std::size_t j = 0; j < x->result.changed_joints.size(); ++j)
      x->changed[j] = x->result.changed_joints[j] != 0;
    return x;
  }();
  const auto& doc = *static_cast<const io::bvh::Document*>(f->clip.document.get());
  const std::unique_ptr<core::ThreadPool> pool =
      state.range(0) >= 2 ? std::make_unique<core::ThreadPool>(static_cast<int>(state.range(0)))
                          : nullptr;
  const std::span<const bool> changed(fixed->changed.get(), fixed->result.changed_joints.size());
  const std::span<const char> rotations =
      state.range(1) ? std::span<const char>(fixed->result.changed_rotations)
                     : std::span<const char>();
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string out = io::bvh::write(doc, fixed->motion, changed, pool.get(), rotations);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
}
BENCHMARK(BM_BvhWriteFixedClip)
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({2, 1})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
