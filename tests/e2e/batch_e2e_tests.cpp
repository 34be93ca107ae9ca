// `ikfix batch` and `ikfix report merge` end to end: the real binary on a small library made of
// copies of the bundled walk (and, where present, the shared clips). What is checked is what a
// studio's CI relies on: outputs identical to `ikfix run`, reports identical whatever --jobs or
// sharding, exit codes, JUnit, --resume and a clean stop on SIGINT.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "e2e_support.hpp"

extern char** environ;

namespace ikfix::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

const fs::path kWalk = bundled("clips/walk.bvh");
const fs::path kStairs = bundled("terrain/stairs.obj");

std::string read_text(const fs::path& p) { return io::read_file(p); }

Json read_ordered(const fs::path& p) { return Json::parse(io::read_file(p)); }

// The report without its run-dependent block, as text (key order kept).
std::string comparable(const fs::path& report) {
  Json r = read_ordered(report);
  EXPECT_TRUE(r.contains("run")) << report;
  r.erase("run");
  return r.dump(1);
}

// A small library: walk copies in nested folders (varied sizes by appending blank lines is not
// valid BVH, so sizes are equal) plus, optionally, a file that is not a clip.
fs::path make_library(const fs::path& dir, int copies, bool with_bad_clip) {
  const fs::path lib = dir / "lib";
  for (int i = 0; i < copies; ++i) {
    const fs::path sub = lib / (i % 2 == 0 ? "even" : "odd") / ("set" + std::to_string(i % 3));
    fs::create_directories(sub);
    fs::copy_file(kWalk, sub / ("walk_" + std::to_string(i) + ".bvh"));
  }
  if (with_bad_clip) {
    fs::create_directories(lib / "odd");
    std::ofstream(lib / "odd" / "broken.bvh") << "HIERARCHY\nROOT Hips\n{\n";
  }
  return lib;
}

std::string batch_args(const fs::path& inputs, const fs::path& out, const std::string& extra = "") {
  return "batch " + quoted(inputs) + " --terrain " + quoted(kStairs) + " --out-dir " + quoted(out) +
         " " + extra;
}

// Files below `dir`, relative to it, sorted. Safe to call while ikfix is writing there.
std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_regular_file(type_ec)) out.push_back(it->path().lexically_relative(dir));
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Batch, OutputsMatchRunAndReportsMatchWhateverTheJobs) {
  const auto dir = temp_dir("batch_jobs");
  const auto lib = make_library(dir, 6, true);
  const auto out = dir / "out";

  const auto r1 = run_ikfix(
      batch_args(lib, out, "--jobs 1 --allow-errors --report " + quoted(dir / "r1.json")));
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  fs::rename(out, dir / "out1");
  const auto r2 = run_ikfix(
      batch_args(lib, out, "--jobs 2 --allow-errors --report " + quoted(dir / "r2.json")));
  ASSERT_EQ(r2.exit_code, 0) << r2.output;

  EXPECT_EQ(comparable(dir / "r1.json"), comparable(dir / "r2.json"));
  // Written a clip at a time, yet exactly the JSON writer's layout.
  EXPECT_EQ(read_text(dir / "r2.json"), read_ordered(dir / "r2.json").dump(2) + "\n");
  const auto outputs = files_under(dir / "out1");
  EXPECT_EQ(outputs, files_under(out));
  for (const auto& f : outputs) EXPECT_EQ(read_text(dir / "out1" / f), read_text(out / f)) << f;

  // Mirrored tree, sorted entries, and each clip exactly what `ikfix run` writes.
  const Json report = read_ordered(dir / "r2.json");
  ASSERT_EQ(report["clips"].size(), 7u);
  EXPECT_EQ(report["totals"]["ok"], 6);
  EXPECT_EQ(report["totals"]["errors"], 1);
  std::vector<std::string> inputs;
  for (const auto& c : report["clips"]) inputs.push_back(c["input"].get<std::string>());
  EXPECT_TRUE(std::is_sorted(inputs.begin(), inputs.end()));
  const Json& first = report["clips"][0];
  ASSERT_EQ(first["status"], "ok");
  const fs::path input = first["input"].get<std::string>();
  const fs::path expected_out = out / input.lexically_relative(lib);
  EXPECT_EQ(first["output"].get<std::string>(), expected_out.string());
  const auto run = run_ikfix("run " + quoted(input) + " --terrain " + quoted(kStairs) + " -o " +
                             quoted(dir / "run.bvh") + " --report " + quoted(dir / "run.json"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(read_text(dir / "run.bvh"), read_text(expected_out));
  Json run_report = read_ordered(dir / "run.json");
  Json batch_clip_report = first["report"];
  run_report.erase("output");
  batch_clip_report.erase("output");
  EXPECT_EQ(run_report.dump(), batch_clip_report.dump());
}

TEST(Batch, ABadClipIsRecordedAndFailsTheBatchUnlessAllowed) {
  const auto dir = temp_dir("batch_bad_clip");
  const auto lib = make_library(dir, 3, true);
  const auto r =
      run_ikfix(batch_args(lib, dir / "out", "--jobs 2 --report " + quoted(dir / "r.json")));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("broken.bvh"), std::string::npos) << r.output;
  const Json report = read_ordered(dir / "r.json");
  EXPECT_EQ(report["totals"]["ok"], 3);
  EXPECT_EQ(report["totals"]["errors"], 1);
  ASSERT_EQ(report["errors"].size(), 1u);
  const std::string error = report["errors"][0]["error"].get<std::string>();
  EXPECT_NE(error.find("broken.bvh"), std::string::npos);
  EXPECT_EQ(error.find('\n'), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "out" / "odd" / "broken.bvh"));
  EXPECT_EQ(files_under(dir / "out" / "even").size() + files_under(dir / "out" / "odd").size(), 3u);

  EXPECT_EQ(run_ikfix(batch_args(lib, dir / "out2", "--allow-errors")).exit_code, 0);
  EXPECT_EQ(run_ikfix(batch_args(lib, dir / "out3", "--fail-on 'errors>1'")).exit_code, 0);
  EXPECT_EQ(run_ikfix(batch_args(lib, dir / "out4", "--allow-errors --fail-on errors")).exit_code,
            1);
}

TEST(Batch, ShardsMergeIntoWhatOneRunWrites) {
  const auto dir = temp_dir("batch_shards");
  const auto lib = make_library(dir, 7, true);
  // One bigger clip so the size balance matters.
  if (fs::is_directory(shared_data_dir() / "anim" / "bvh"))
    fs::copy_file(shared_data_dir() / "anim" / "bvh" / "cmu_02_01_walk.bvh",
                  lib / "cmu_02_01_walk.bvh");
  const std::string common = "--max-pelvis-drop 0 --fail-on 'unreachable>40' --allow-errors ";
  const auto all = run_ikfix(batch_args(lib, dir / "out",
                                        common + "--jobs 2 --report " + quoted(dir / "all.json") +
                                            " --junit " + quoted(dir / "all.xml")));
  ASSERT_EQ(all.exit_code, 1)
      << all.output;  // walk with no pelvis drop: 49 unreachable frames on stairs

  std::string shard_reports;
  std::set<std::string> seen;
  std::size_t total = 0;
  for (int s = 1; s <= 4; ++s) {
    const auto path = dir / ("shard" + std::to_string(s) + ".json");
    const auto r = run_ikfix(batch_args(
        lib, dir / "out_shards",
        common + "--jobs 1 --shard " + std::to_string(s) + "/4 --report " + quoted(path)));
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.output;
    const Json shard = read_ordered(path);
    EXPECT_GE(shard["clips"].size(), 1u) << "shard " << s << " is empty";
    for (const auto& c : shard["clips"])
      EXPECT_TRUE(seen.insert(c["input"].get<std::string>()).second);
    total += shard["clips"].size();
    shard_reports += quoted(path) + " ";
  }
  EXPECT_EQ(total, read_ordered(dir / "all.json")["clips"].size());

  const auto merged =
      run_ikfix("report merge " + shard_reports + "-o " + quoted(dir / "merged.json") +
                " --junit " + quoted(dir / "merged.xml"));
  EXPECT_EQ(merged.exit_code, 1) << merged.output;
  // Outputs were written under another folder, so compare with the paths mapped.
  std::string merged_text = comparable(dir / "merged.json");
  const std::string from = (dir / "out_shards").string(), to = (dir / "out").string();
  for (std::size_t at = 0; (at = merged_text.find(from, at)) != std::string::npos; at += to.size())
    merged_text.replace(at, from.size(), to);
  EXPECT_EQ(merged_text, comparable(dir / "all.json"));
  EXPECT_EQ(read_text(dir / "merged.xml"), read_text(dir / "all.xml"));
  for (const auto& f : files_under(dir / "out")) {
    if (f.begin()->string() == ".ikfix-batch") continue;
    EXPECT_EQ(read_text(dir / "out" / f), read_text(dir / "out_shards" / f)) << f;
  }

  // A shard missing is said; two reports with the same clip are refused.
  const auto partial =
      run_ikfix("report merge " + quoted(dir / "shard1.json") + " " + quoted(dir / "shard2.json") +
                " -o " + quoted(dir / "partial.json"));
  EXPECT_NE(partial.output.find("missing"), std::string::npos) << partial.output;
  const auto twice = run_ikfix("report merge " + quoted(dir / "shard1.json") + " " +
                               quoted(dir / "shard1.json") + " -o " + quoted(dir / "twice.json"));
  EXPECT_EQ(twice.exit_code, 2) << twice.output;
  // Reports of other settings do not merge.
  ASSERT_EQ(
      run_ikfix(batch_args(lib / "even", dir / "other", "--report " + quoted(dir / "other.json")))
          .exit_code,
      0);
  const auto mixed = run_ikfix("report merge " + quoted(dir / "shard1.json") + " " +
                               quoted(dir / "other.json") + " -o " + quoted(dir / "mixed.json"));
  EXPECT_EQ(mixed.exit_code, 2) << mixed.output;
  EXPECT_FALSE(fs::exists(dir / "mixed.json"));
}

TEST(Batch, JUnitNamesTheWorstFrameAndReason) {
  const auto dir = temp_dir("batch_junit");
  const auto lib = make_library(dir, 2, true);
  const auto r =
      run_ikfix(batch_args(lib, dir / "out",
                           "--max-pelvis-drop 0 --fail-on unreachable --junit " +
                               quoted(dir / "r.xml") + " --report " + quoted(dir / "r.json")));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const std::string xml = read_text(dir / "r.xml");
  EXPECT_NE(xml.find("tests=\"3\" failures=\"2\" errors=\"1\" skipped=\"0\""), std::string::npos)
      << xml;
  const Json report = read_ordered(dir / "r.json");
  const Json& worst = report["clips"][0]["worst"];
  ASSERT_FALSE(worst.is_null());
  const std::string expected = "worst frame " + std::to_string(worst["frame"].get<int>()) + " (" +
                               worst["leg"].get<std::string>() + " leg";
  EXPECT_NE(xml.find(expected), std::string::npos) << xml;
  EXPECT_NE(xml.find(worst["reason"].get<std::string>()), std::string::npos) << xml;
  EXPECT_NE(xml.find("<error type=\"input\" message=\""), std::string::npos) << xml;
  EXPECT_FALSE(report["worst_clips"].empty());
}

TEST(Batch, ResumeSkipsWhatIsUpToDateAndRedoesWhatChanged) {
  const auto dir = temp_dir("batch_resume");
  const auto lib = make_library(dir, 4, false);
  const auto out = dir / "out";
  ASSERT_EQ(run_ikfix(batch_args(lib, out, "--report " + quoted(dir / "r1.json"))).exit_code, 0);
  const fs::path one = out / "even" / "set0" / "walk_0.bvh";
  const auto written = fs::last_write_time(one);

  const auto again =
      run_ikfix(batch_args(lib, out, "--resume --report " + quoted(dir / "r2.json")));
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(read_ordered(dir / "r2.json")["run"]["resumed"], 4);
  EXPECT_EQ(fs::last_write_time(one), written);
  EXPECT_EQ(comparable(dir / "r1.json"), comparable(dir / "r2.json"));

  // A touched input is redone; the others are not.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  fs::last_write_time(lib / "even" / "set0" / "walk_0.bvh", fs::file_time_type::clock::now());
  ASSERT_EQ(
      run_ikfix(batch_args(lib, out, "--resume --report " + quoted(dir / "r3.json"))).exit_code, 0);
  EXPECT_EQ(read_ordered(dir / "r3.json")["run"]["resumed"], 3);
  EXPECT_NE(fs::last_write_time(one), written);

  // Other settings redo everything; without --resume everything is redone too.
  ASSERT_EQ(
      run_ikfix(batch_args(lib, out, "--resume --weight 0.5 --report " + quoted(dir / "r4.json")))
          .exit_code,
      0);
  EXPECT_EQ(read_ordered(dir / "r4.json")["run"]["resumed"], 0);
  ASSERT_EQ(
      run_ikfix(batch_args(lib, out, "--weight 0.5 --report " + quoted(dir / "r5.json"))).exit_code,
      0);
  EXPECT_EQ(read_ordered(dir / "r5.json")["run"]["resumed"], 0);
}

// The settings' hash (what --resume compares) covers every byte of the terrain, read a block at
// a time beside the terrain's build: a comment added at the end of a terrain of several MB (the
// same mesh, other bytes) changes it; the same bytes at another path do not.
TEST(Batch, SettingsHashCoversEveryByteOfALargeTerrain) {
  const auto dir = temp_dir("batch_hash_terrain");
  const auto lib = make_library(dir, 1, false);
  const fs::path terrain = dir / "bumps.obj";
  ASSERT_EQ(run_ikfix("terrain bumps --size 10 --cell 0.05 -o " + quoted(terrain)).exit_code, 0);
  ASSERT_GT(fs::file_size(terrain), std::uintmax_t{2} << 20);
  fs::create_directories(dir / "moved");
  fs::copy_file(terrain, dir / "moved" / "bumps.obj");
  io::write_file_atomic(dir / "edited.obj", read_text(terrain) + "# edited\n");
  const auto hash_with = [&](const fs::path& t, const std::string& name) {
    const auto r =
        run_ikfix("batch " + quoted(lib) + " --terrain " + quoted(t) + " --out-dir " +
                  quoted(dir / ("out_" + name)) + " --report " + quoted(dir / (name + ".json")));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return read_ordered(dir / (name + ".json"))["settings_hash"].get<std::string>();
  };
  const std::string original = hash_with(terrain, "original");
  EXPECT_EQ(original.rfind("fnv1a64:", 0), 0u) << original;
  EXPECT_EQ(hash_with(dir / "moved" / "bumps.obj", "moved"), original);
  EXPECT_NE(hash_with(dir / "edited.obj", "edited"), original);
}

TEST(Batch, ListsGlobsAndMirroring) {
  const auto dir = temp_dir("batch_lists");
  const auto lib = make_library(dir, 4, false);
  {
    std::ofstream list(dir / "clips.txt");
    list << "# two clips from two folders\n\nlib/even/set0/walk_0.bvh\n"
         << (lib / "odd" / "set1" / "walk_1.bvh").string() << "\n";
  }
  const auto r = run_ikfix("batch @" + test::quoted(dir / "clips.txt") + " --terrain " +
                           quoted(kStairs) + " --out-dir " + quoted(dir / "out_list"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Mirrored relative to the entries' common parent (lib/).
  EXPECT_TRUE(fs::exists(dir / "out_list" / "even" / "set0" / "walk_0.bvh"));
  EXPECT_TRUE(fs::exists(dir / "out_list" / "odd" / "set1" / "walk_1.bvh"));

  const auto g =
      run_ikfix("batch " + quoted(lib / "even" / "*") + " --terrain " + quoted(kStairs) +
                " --out-dir " + quoted(dir / "out_glob") + " --report " + quoted(dir / "g.json"));
  ASSERT_EQ(g.exit_code, 0) << g.output;
  EXPECT_EQ(read_ordered(dir / "g.json")["totals"]["clips"], 2);
  EXPECT_TRUE(fs::exists(dir / "out_glob" / "set0" / "walk_0.bvh"));

  // The output folder inside the library is not taken as input on the next run.
  ASSERT_EQ(
      run_ikfix(batch_args(lib, lib / "fixed", "--report " + quoted(dir / "in1.json"))).exit_code,
      0);
  ASSERT_EQ(
      run_ikfix(batch_args(lib, lib / "fixed", "--report " + quoted(dir / "in2.json"))).exit_code,
      0);
  EXPECT_EQ(read_ordered(dir / "in2.json")["totals"]["clips"], 4);
}

// Starts ikfix with `args` (no shell), stdout/stderr to `log`.
pid_t spawn_ikfix(const std::vector<std::string>& args, const fs::path& log) {
  std::vector<std::string> all = {ikfix_binary().string()};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

TEST(Batch, SigintStopsCleanly) {
  const auto dir = temp_dir("batch_sigint");
  const auto lib = make_library(dir, 240, false);
  const auto out = dir / "out";
  const auto report_path = dir / "r.json";
  const pid_t pid = spawn_ikfix({"batch", lib.string(), "--terrain", kStairs.string(), "--out-dir",
                                 out.string(), "--jobs", "2", "--report", report_path.string()},
                                dir / "log.txt");
  ASSERT_GT(pid, 0);
  // Wait for the first fixed clip, then Ctrl-C.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool seen = false;
  while (!seen && std::chrono::steady_clock::now() < deadline) {
    for (const auto& f : files_under(out))
      if (f.extension() == ".bvh" && f.begin()->string() != ".ikfix-batch") seen = true;
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_TRUE(seen) << "no output appeared";
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const std::string log = read_text(dir / "log.txt");
  ASSERT_TRUE(WIFEXITED(status)) << log;
  EXPECT_EQ(WEXITSTATUS(status), 130) << log;

  const Json report = read_ordered(report_path);
  EXPECT_TRUE(report["run"]["interrupted"].get<bool>());
  EXPECT_GT(report["totals"]["not_done"].get<int>(), 0) << "the batch finished before the signal";
  EXPECT_EQ(report["totals"]["not_done"].get<std::size_t>(), report["not_done"].size());
  EXPECT_FALSE(report["totals"]["passed"].get<bool>());
  // No temp file left; every clip either fixed (whole output, same bytes as a run) or not done (no
  // output).
  for (const auto& f : files_under(out))
    EXPECT_EQ(f.filename().string().find(".tmp-"), std::string::npos) << f;
  const auto run = run_ikfix("run " + quoted(kWalk) + " --terrain " + quoted(kStairs) + " -o " +
                             quoted(dir / "run.bvh"));
  ASSERT_EQ(run.exit_code, 0);
  const std::string expected = read_text(dir / "run.bvh");
  int ok = 0;
  for (const auto& c : report["clips"]) {
    const fs::path input = c["input"].get<std::string>();
    const fs::path output = out / input.lexically_relative(lib);
    if (c["status"] == "ok") {
      ++ok;
      EXPECT_EQ(read_text(output), expected) << output;
    } else {
      EXPECT_EQ(c["status"], "not_done");
      EXPECT_FALSE(fs::exists(output)) << output;
    }
  }
  EXPECT_GT(ok, 0);
  // --resume finishes the job.
  const auto resumed =
      run_ikfix(batch_args(lib, out, "--resume --report " + quoted(dir / "r2.json")));
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(read_ordered(dir / "r2.json")["run"]["resumed"].get<int>(), ok);
}

TEST(Batch, SharedLibraryFinishesWithEveryFailureExplained) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto dir = temp_dir("batch_shared");
  const auto r = run_ikfix("-q " + batch_args(shared_data_dir() / "anim", dir / "out",
                                              "--allow-errors --report " + quoted(dir / "r.json")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Json report = read_ordered(dir / "r.json");
  EXPECT_GE(report["totals"]["clips"].get<int>(), 11);
  int bvh_ok = 0;
  for (const auto& c : report["clips"]) {
    const std::string input = c["input"].get<std::string>();
    if (c["status"] == "ok") {
      if (fs::path(input).extension() == ".bvh") ++bvh_ok;
      EXPECT_TRUE(fs::exists(c["output"].get<std::string>())) << input;
    } else {
      ASSERT_EQ(c["status"], "error") << input;
      EXPECT_NE(c["error"].get<std::string>().find(fs::path(input).filename().string()),
                std::string::npos)
          << input;
    }
  }
  EXPECT_GE(bvh_ok, 11);  // every humanoid BVH of the shared library is fixed
}

}  // namespace
}  // namespace ikfix::test
