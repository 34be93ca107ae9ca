// BVH text I/O throughput (MB/s of file text) on cmu_01_01_forward_jumps.bvh (2 MB, 31 joints,
// 2752 frames), or on a synthetic file of the same shape when the shared data is absent.
// The argument of each benchmark is the thread count (core::ThreadPool; 1: the serial path).
// main() comes from bench_main.cpp.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/parallel.hpp"
#include "io/bvh/bvh.hpp"
#include "io/file_util.hpp"

namespace {

namespace bvh = ikfix::io::bvh;

// A CMU-shaped file: root with 6 channels, 30 joints with 3, 4 decimals, 2752 frames.
std::string synthetic_bvh() {
  std::string text =
      "HIERARCHY\nROOT Hips\n{\n\tOFFSET 0.00000 0.00000 0.00000\n"
      "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n";
  const int chain = 30;
  for (int j = 0; j < chain; ++j) {
    const std::string tabs(static_cast<std::size_t>(j + 1), '\t');
    text += tabs + "JOINT J" + std::to_string(j) + "\n" + tabs + "{\n" + tabs +
            "\tOFFSET 0.00000 1.50000 0.00000\n" + tabs +
            "\tCHANNELS 3 Zrotation Yrotation Xrotation\n";
  }
  text += std::string(static_cast<std::size_t>(chain + 1), '\t') + "End Site\n{\nOFFSET 0 1 0\n}\n";
  for (int j = chain; j >= 0; --j) text += std::string(static_cast<std::size_t>(j), '\t') + "}\n";
  const int frames = 2752, values = 6 + 3 * chain;
  text += "MOTION\nFrames: " + std::to_string(frames) + "\nFrame Time: .0083333\n";
  char number[32];
  for (int f = 0; f < frames; ++f) {
    for (int c = 0; c < values; ++c) {
      std::snprintf(number, sizeof number, "%.4f ", 40.0 * std::sin(0.01 * f + 0.7 * c));
      text += number;
    }
    text += "\n";
  }
  return text;
}

struct Fixture {
  std::string text;
  std::string source;
  bvh::Document doc;
  ikfix::core::Clip clip;
  std::unique_ptr<bool[]> none, legs, all;
};

const Fixture& fixture() {
  static const std::unique_ptr<Fixture> f = [] {
    auto fx = std::make_unique<Fixture>();
    const auto path =
        std::filesystem::path(IKFIX_SHARED_DATA) / "anim/bvh/cmu_01_01_forward_jumps.bvh";
    if (std::filesystem::exists(path)) {
      fx->text = ikfix::io::read_file(path);
      fx->source = path.filename().string();
    } else {
      fx->text = synthetic_bvh();
      fx->source = "synthetic.bvh";
    }
    fx->doc = bvh::parse(fx->text, fx->source);
    fx->clip = bvh::clip(fx->doc);
    const int n = fx->doc.joint_count();
    fx->none.reset(new bool[n]());
    fx->legs.reset(new bool[n]());
    fx->all.reset(new bool[n]);
    for (int j = 0; j < n; ++j) {
      const std::string& name = fx->doc.joints[j].name;
      fx->all[j] = true;
      // What the foot fix rewrites: the root and the leg chains (plus the whole chain in the
      // synthetic file's first joints).
      fx->legs[j] = j == 0 || name.find("Leg") != std::string::npos ||
                    name.find("Foot") != std::string::npos ||
                    name.find("Toe") != std::string::npos ||
                    (fx->source == "synthetic.bvh" && j < 9);
    }
    return fx;
  }();
  return *f;
}

// The runner for `threads` (null for 1: the serial path), one pool per count for the process.
const ikfix::core::ParallelRunner* runner(int threads) {
  static std::unique_ptr<ikfix::core::ThreadPool> pools[9];
  if (threads < 2 || threads > 8) return nullptr;
  if (!pools[threads]) pools[threads] = std::make_unique<ikfix::core::ThreadPool>(threads);
  return pools[threads].get();
}

bvh::ParseOptions parse_options(int threads) {
  bvh::ParseOptions o;
  o.runner = runner(threads);
  return o;
}

std::span<const bool> flags(const std::unique_ptr<bool[]>& p) {
  return {p.get(), static_cast<std::size_t>(fixture().doc.joint_count())};
}

void BM_BvhParse(benchmark::State& state) {
  const Fixture& f = fixture();
  const bvh::ParseOptions options = parse_options(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    bvh::Document doc = bvh::parse(f.text, f.source, options);
    benchmark::DoNotOptimize(doc.values.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(f.text.size()));
  state.SetLabel(f.source);
}
BENCHMARK(BM_BvhParse)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Parse + Skeleton + Clip: everything a read costs once the bytes are in memory.
void BM_BvhParseToClip(benchmark::State& state) {
  const Fixture& f = fixture();
  const int threads = static_cast<int>(state.range(0));
  const bvh::ParseOptions options = parse_options(threads);
  for (auto _ : state) {
    bvh::Document doc = bvh::parse(f.text, f.source, options);
    ikfix::core::Skeleton skel = bvh::skeleton(doc);
    ikfix::core::Clip clip = bvh::clip(doc, runner(threads));
    benchmark::DoNotOptimize(clip.locals.data());
    benchmark::DoNotOptimize(skel.names.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(f.text.size()));
}
BENCHMARK(BM_BvhParseToClip)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Document -> Clip alone (Euler angles -> quaternions, one sincos per rotation channel).
void BM_BvhToClip(benchmark::State& state) {
  const Fixture& f = fixture();
  const auto* r = runner(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    ikfix::core::Clip clip = bvh::clip(f.doc, r);
    benchmark::DoNotOptimize(clip.locals.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(f.text.size()));
}
BENCHMARK(BM_BvhToClip)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Document -> Clip for the root and the legs only (bvh::clip_of_joints, what `ikfix run` reads
// for the fix); the other joints are written NaN.
void BM_BvhToClipLegs(benchmark::State& state) {
  const Fixture& f = fixture();
  const auto* r = runner(static_cast<int>(state.range(0)));
  std::vector<char> read(f.doc.joint_count());
  for (int j = 0; j < f.doc.joint_count(); ++j) read[j] = f.legs[j];
  for (auto _ : state) {
    ikfix::core::Clip clip = bvh::clip_of_joints(f.doc, read, r);
    benchmark::DoNotOptimize(clip.locals.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(f.text.size()));
}
BENCHMARK(BM_BvhToClipLegs)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void write_benchmark(benchmark::State& state, const std::unique_ptr<bool[]>& changed) {
  const Fixture& f = fixture();
  const auto* r = runner(static_cast<int>(state.range(0)));
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string out = bvh::write(f.doc, f.clip, flags(changed), r);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
}

void BM_BvhWriteUnchanged(benchmark::State& state) { write_benchmark(state, fixture().none); }
BENCHMARK(BM_BvhWriteUnchanged)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_BvhWriteRootAndLegs(benchmark::State& state) { write_benchmark(state, fixture().legs); }
BENCHMARK(BM_BvhWriteRootAndLegs)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_BvhWriteAllJoints(benchmark::State& state) { write_benchmark(state, fixture().all); }
BENCHMARK(BM_BvhWriteAllJoints)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The clip with the joints flagged in `changed` really edited (rotation nudged 0.5 degrees, the
// root moved too), so their values print differently from the file's.
ikfix::core::Clip edited_clip(const std::unique_ptr<bool[]>& changed) {
  const Fixture& f = fixture();
  ikfix::core::Clip edited = f.clip;
  const auto nudge = bvh::axis_rotation_deg(0, 0.5);
  for (int fr = 0; fr < edited.frame_count; ++fr) {
    for (int j = 0; j < edited.joint_count; ++j) {
      if (!changed[j]) continue;
      auto& t = edited.at(fr, j);
      t.rotation = t.rotation * nudge;
      // Joints without position channels must keep translation == OFFSET.
      if (j == 0) t.translation += ikfix::core::Vec3(0.01);
    }
  }
  return edited;
}

void edited_write_benchmark(benchmark::State& state, const std::unique_ptr<bool[]>& changed) {
  const Fixture& f = fixture();
  const ikfix::core::Clip edited = edited_clip(changed);
  const auto* r = runner(static_cast<int>(state.range(0)));
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string out = bvh::write(f.doc, edited, flags(changed), r);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
}

// As above, with every value really different from the file, so every one is printed.
void BM_BvhWriteAllJointsEdited(benchmark::State& state) {
  edited_write_benchmark(state, fixture().all);
}
BENCHMARK(BM_BvhWriteAllJointsEdited)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// What `ikfix run` writes: the root and the legs, edited.
void BM_BvhWriteRootAndLegsEdited(benchmark::State& state) {
  edited_write_benchmark(state, fixture().legs);
}
BENCHMARK(BM_BvhWriteRootAndLegsEdited)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
