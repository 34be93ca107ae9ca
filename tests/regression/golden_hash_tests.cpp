// Golden-hash regression (label `regression`, `ctest -R Golden`): freezes every byte ikfix writes.
// The bundled walk and the shared clips (regression_clips.hpp) x the bundled terrains x the
// solvers are fixed by `ikfix run` with --threads 1 and 2, with and without --report; three
// retargets of cmu_02_01_walk.bvh onto the shared rest rigs (stairs, with --report) are added.
// Each case asserts that the written clip is byte identical across the variants, then compares
// an FNV-1a 64 hash of the clip and of the report with tests/regression/golden_hashes.txt.
//
// Location independence: the binary runs in a scratch folder and writes `out.<ext>` and
// `report.json` there by relative name, so the report's `output` is the same everywhere. The
// inputs are passed by absolute path; before hashing, the report's text has the shared data
// folder replaced by `<shared>`, the checkout by `<source>` (JSON-escaped, exact strings), and
// its `tool.version` value by `<version>` (a version bump is no output change). Reports hold no
// timings or dates. Clip files name no path (checked: the same bytes from another folder).
//
// Updating: `IKFIX_UPDATE_GOLDEN=1 ctest -R Golden` rewrites the file's lines of the cases it
// runs (and drops lines no case makes). Outputs change only on purpose: the commit that updates
// the file says why they changed. IKFIX_GOLDEN_BINARY=PATH runs another build instead of this
// one (the golden file was made with the build before the format commit, then checked here).
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "e2e/e2e_support.hpp"
#include "regression/regression_clips.hpp"

namespace ikfix::test {
namespace {

const std::vector<std::string> kTerrains = {"flat", "slope", "stairs", "bumps"};
const std::vector<std::string> kSolvers = {"fabrik", "ccd", "two-bone", "dls"};
const std::vector<std::string> kRetargetTargets = {"kenney_rest.fbx", "barbarian_rest.fbx",
                                                   "cesiumman_rest.glb"};
constexpr const char* kRetargetSource = "cmu_02_01_walk.bvh";

// FNV-1a 64 of `bytes`, as 16 lower-case hex digits.
std::string fnv1a64_hex(const std::string& bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at))
    text.replace(at, from.size(), to), at += to.size();
  return text;
}

// `s` as it appears inside a JSON string.
std::string json_escaped(const std::string& s) {
  const std::string quoted_text = nlohmann::json(s).dump();
  return quoted_text.substr(1, quoted_text.size() - 2);
}

// The report's text without what depends on the checkout's location or the tool's version.
std::string normalised_report(std::string text) {
  const auto parsed = nlohmann::json::parse(text);
  const std::string version_field = "\"version\": " + parsed["tool"]["version"].dump();
  const auto at = text.find(version_field);
  if (at != std::string::npos) text.replace(at, version_field.size(), "\"version\": \"<version>\"");
  // The shared folder first: by default it is <source>/../shared/data.
  text = replace_all(text, json_escaped(shared_data_dir().string()), "<shared>");
  return replace_all(text, json_escaped(source_dir().string()), "<source>");
}

std::filesystem::path binary_under_test() {
  const char* other = std::getenv("IKFIX_GOLDEN_BINARY");
  return other && *other ? std::filesystem::path(other) : ikfix_binary();
}

bool updating() {
  const char* update = std::getenv("IKFIX_UPDATE_GOLDEN");
  return update && std::string(update) == "1";
}

std::filesystem::path golden_file() { return source_dir() / "tests/regression/golden_hashes.txt"; }

// The golden file: `case-name  clip-hash  report-hash`, sorted, after a header.

struct Hashes {
  std::string clip;
  std::string report;
  bool operator==(const Hashes&) const = default;
};
using GoldenTable = std::map<std::string, Hashes>;

constexpr const char* kGoldenHeader =
    "# Golden hashes of every file ikfix writes in tests/regression/golden_hash_tests.cpp:\n"
    "# case-name  clip-hash  report-hash (FNV-1a 64; the report normalised as that file says).\n"
    "# Regenerate with `IKFIX_UPDATE_GOLDEN=1 ctest -R Golden` (in the build folder). Outputs\n"
    "# change only on purpose: the commit that updates this file says why they changed.\n";

GoldenTable read_golden(const std::filesystem::path& path) {
  GoldenTable table;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name;
    Hashes hashes;
    if (fields >> name >> hashes.clip >> hashes.report) table[name] = hashes;
  }
  return table;
}

void write_golden(const std::filesystem::path& path, const GoldenTable& table) {
  const auto temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << kGoldenHeader;
    for (const auto& [name, hashes] : table)
      out << name << "  " << hashes.clip << "  " << hashes.report << "\n";
  }
  std::filesystem::rename(temporary, path);
}

// Runs `edit` on the golden table under an exclusive lock (CTest runs the cases as parallel
// processes), then writes the table back.
template <typename Edit>
void edit_golden(Edit&& edit) {
  const auto lock_path = std::filesystem::temp_directory_path() / "ikfix_golden_hashes.lock";
  const int lock = ::open(lock_path.c_str(), O_CREAT | O_RDWR, 0666);
  ASSERT_GE(lock, 0) << "cannot open " << lock_path;
  ::flock(lock, LOCK_EX);
  GoldenTable table = read_golden(golden_file());
  edit(table);
  write_golden(golden_file(), table);
  ::flock(lock, LOCK_UN);
  ::close(lock);
}

// Compares a case's hashes with the golden file, or records them there under IKFIX_UPDATE_GOLDEN.
// `prefix` names every case of the caller: under update, its lines no longer made are dropped.
void check_against_golden(const std::string& prefix, const GoldenTable& made) {
  if (updating()) {
    edit_golden([&](GoldenTable& table) {
      std::erase_if(table, [&](const auto& line) { return line.first.starts_with(prefix); });
      table.insert(made.begin(), made.end());
    });
    return;
  }
  const GoldenTable golden = read_golden(golden_file());
  for (const auto& [name, hashes] : made) {
    const auto it = golden.find(name);
    if (it == golden.end()) {
      ADD_FAILURE() << name << ": no line in " << golden_file()
                    << " (add it: IKFIX_UPDATE_GOLDEN=1 ctest -R Golden)";
      continue;
    }
    EXPECT_EQ(it->second.clip, hashes.clip)
        << name << ": the written clip changed. If on purpose: IKFIX_UPDATE_GOLDEN=1 ctest -R "
        << "Golden, and say why in the commit";
    EXPECT_EQ(it->second.report, hashes.report)
        << name << ": the report changed. If on purpose: IKFIX_UPDATE_GOLDEN=1 ctest -R Golden, "
        << "and say why in the commit";
  }
}

struct Written {
  std::string clip;
  std::string report;  // normalised; empty without --report
};

// Runs `ikfix ARGS -o out.EXT [--report report.json]` inside `dir` (created empty) and returns
// what it wrote. Fails the test (and returns nothing) when ikfix fails.
std::optional<Written> run_in(const std::filesystem::path& dir, const std::string& args,
                              const std::string& ext, bool with_report) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string command = quoted(binary_under_test()) + " " + args + " -o out" + ext +
                              (with_report ? " --report report.json" : "");
  const auto result = run_shell("cd " + quoted(dir) + " && " + command);
  EXPECT_EQ(result.exit_code, 0) << "in " << dir << ": " << command << "\n" << result.output;
  if (result.exit_code != 0) return std::nullopt;
  Written written{io::read_file(dir / ("out" + ext)), ""};
  if (with_report) written.report = normalised_report(io::read_file(dir / "report.json"));
  return written;
}

struct Variant {
  int threads;
  bool report;
};
const std::vector<Variant> kVariants = {{1, true}, {1, false}, {2, true}, {2, false}};

// One clip on one terrain with one solver, every variant: the clip must be the same bytes in
// each, the report the same text with either thread count. Returns the first variant's hashes.
std::optional<Hashes> fix_hashes(const std::filesystem::path& clip, const std::string& terrain,
                                 const std::string& solver, const std::filesystem::path& dir) {
  const std::string args = "run " + quoted(clip) + " --terrain " +
                           quoted(bundled("terrain/" + terrain + ".obj")) + " --solver " + solver;
  std::optional<Written> first;
  for (const Variant& v : kVariants) {
    const std::string name = "t" + std::to_string(v.threads) + (v.report ? "_report" : "");
    const auto written = run_in(dir / name, args + " --threads " + std::to_string(v.threads),
                                clip.extension().string(), v.report);
    if (!written) return std::nullopt;
    if (!first) {
      first = written;
      continue;
    }
    EXPECT_TRUE(written->clip == first->clip)
        << terrain << " " << solver << ": the clip of variant " << name << " differs from t1";
    if (v.report) {
      EXPECT_TRUE(written->report == first->report)
          << terrain << " " << solver << ": the report of " << name << " differs from t1";
    }
  }
  return Hashes{fnv1a64_hex(first->clip), fnv1a64_hex(first->report)};
}

struct GoldenClip {
  std::string name;  // the case-name prefix: data/clips/walk.bvh, or as regression_clips.hpp
  std::filesystem::path path;
  bool shared = true;
};

// How GoogleTest names a case's parameter (CTest shows it in every case's name).
void PrintTo(const GoldenClip& clip, std::ostream* out) { *out << clip.name; }

// The bundled walk, then the shared clips (one placeholder that skips when they are missing).
std::vector<GoldenClip> golden_clips() {
  std::vector<GoldenClip> out = {{"data/clips/walk.bvh", bundled("clips/walk.bvh"), false}};
  const auto shared = shared_regression_clips();
  for (const auto& clip : shared) out.push_back({clip, shared_regression_clip_path(clip)});
  if (shared.empty()) out.push_back({"(no shared data)", {}});
  return out;
}

std::string fix_case_name(const std::string& clip, const std::string& terrain,
                          const std::string& solver) {
  return clip + ":" + terrain + ":" + solver;
}

std::string retarget_case_name(const std::string& target) {
  return std::string("retarget/") + kRetargetSource + "-to-" + target + ":stairs";
}

std::string test_name(std::string name) {
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class GoldenHashes : public ::testing::TestWithParam<GoldenClip> {};

TEST_P(GoldenHashes, FixedClipMatchesTheGoldenHashes) {
  const GoldenClip& clip = GetParam();
  if (clip.shared) {
    IKFIX_REQUIRE_SHARED_DATA();
  }
  const auto dir = temp_dir("golden_" + test_name(clip.name));
  GoldenTable made;
  for (const auto& terrain : kTerrains)
    for (const auto& solver : kSolvers) {
      const auto hashes = fix_hashes(clip.path, terrain, solver, dir / (terrain + "_" + solver));
      if (!hashes) return;
      made[fix_case_name(clip.name, terrain, solver)] = *hashes;
    }
  check_against_golden(clip.name + ":", made);
}

INSTANTIATE_TEST_SUITE_P(Clips, GoldenHashes, ::testing::ValuesIn(golden_clips()),
                         [](const auto& info) { return test_name(info.param.name); });

class GoldenRetargetHashes : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenRetargetHashes, RetargetedClipMatchesTheGoldenHashes) {
  IKFIX_REQUIRE_SHARED_DATA();
  const std::string& target = GetParam();
  const auto dir = temp_dir("golden_retarget_" + test_name(target));
  const std::filesystem::path target_path = shared_data_dir() / "retarget" / target;
  const std::string args = "retarget " + quoted(shared_regression_clip_path(kRetargetSource)) +
                           " --to " + quoted(target_path) + " --terrain " +
                           quoted(bundled("terrain/stairs.obj"));
  const auto written = run_in(dir, args, target_path.extension().string(), true);
  if (!written) return;
  const std::string name = retarget_case_name(target);
  check_against_golden(name, {{name, {fnv1a64_hex(written->clip), fnv1a64_hex(written->report)}}});
}

INSTANTIATE_TEST_SUITE_P(Retargets, GoldenRetargetHashes, ::testing::ValuesIn(kRetargetTargets),
                         [](const auto& info) { return test_name(info.param); });

// A large terrain (issue 18): 20 m of bumps in 0.05 m cells (320 k triangles), generated here.
// `run` reads only the triangles under the clip, from the OBJ (dropped as read) and from the
// prepared file (by tiles); `batch` reads the whole mesh. The three must write the same clip,
// and the two runs the same report but for the terrain's name; one hash is frozen.
constexpr const char* kLargeTerrainCase = "large/data/clips/walk.bvh:bumps_320k:fabrik";

std::string ikfix_in(const std::filesystem::path& dir, const std::string& args) {
  const std::string command =
      "cd " + quoted(dir) + " && " + quoted(binary_under_test()) + " " + args;
  const auto result = run_shell(command);
  EXPECT_EQ(result.exit_code, 0) << command << "\n" << result.output;
  return result.output;
}

TEST(GoldenLargeTerrain, CroppedPreparedAndWholeRunsWriteTheSameClip) {
  const auto dir = temp_dir("golden_large_terrain");
  std::filesystem::create_directories(dir);
  ikfix_in(dir, "terrain bumps --size 20 --cell 0.05 -o bumps.obj");
  ikfix_in(dir, "terrain prepare bumps.obj -o bumps.ikterrain");
  const std::string clip = quoted(bundled("clips/walk.bvh"));
  const auto obj = run_in(dir / "obj", "run " + clip + " --terrain ../bumps.obj", ".bvh", true);
  const auto prepared =
      run_in(dir / "prepared", "run " + clip + " --terrain ../bumps.ikterrain", ".bvh", true);
  std::filesystem::create_directories(dir / "whole");
  ikfix_in(dir / "whole", "batch " + clip + " --terrain ../bumps.obj --out-dir fixed --jobs 1");
  ASSERT_TRUE(obj && prepared);
  EXPECT_TRUE(obj->clip == prepared->clip) << "the prepared terrain's clip differs from the OBJ's";
  std::string whole;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir / "whole/fixed"))
    if (entry.path().extension() == ".bvh") whole = io::read_file(entry.path());
  EXPECT_TRUE(obj->clip == whole) << "the cropped run's clip differs from the whole terrain's";
  const std::string report = replace_all(obj->report, "../bumps.obj", "<terrain>");
  EXPECT_EQ(report, replace_all(prepared->report, "../bumps.ikterrain", "<terrain>"));
  const std::string name = kLargeTerrainCase;
  check_against_golden(name, {{name, {fnv1a64_hex(obj->clip), fnv1a64_hex(report)}}});
}

// Every case the lists make, by name.
std::set<std::string> every_case_name() {
  std::set<std::string> names;
  for (const auto& clip : golden_clips())
    for (const auto& terrain : kTerrains)
      for (const auto& solver : kSolvers) names.insert(fix_case_name(clip.name, terrain, solver));
  for (const auto& target : kRetargetTargets) names.insert(retarget_case_name(target));
  names.insert(kLargeTerrainCase);
  return names;
}

// A line no case makes is stale (a clip, terrain or solver left the lists): under update it goes.
TEST(GoldenHashesFile, EveryLineNamesACase) {
  IKFIX_REQUIRE_SHARED_DATA();
  const auto names = every_case_name();
  const auto is_stale = [&](const auto& line) { return !names.contains(line.first); };
  if (updating()) {
    edit_golden([&](GoldenTable& table) { std::erase_if(table, is_stale); });
    return;
  }
  const GoldenTable golden = read_golden(golden_file());
  ASSERT_FALSE(golden.empty()) << golden_file() << " is missing or empty";
  for (const auto& line : golden)
    EXPECT_FALSE(is_stale(line))
        << line.first << " in " << golden_file()
        << " names no case; IKFIX_UPDATE_GOLDEN=1 ctest -R Golden drops it";
}

// Known FNV-1a 64 values (the reference's test vectors), so the hash is the published one.
TEST(GoldenHashesFile, HashIsFnv1a64) {
  EXPECT_EQ(fnv1a64_hex(""), "cbf29ce484222325");
  EXPECT_EQ(fnv1a64_hex("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(fnv1a64_hex("foobar"), "85944171f73967e8");
}

// The normalisation removes exactly the location and the version, nothing else.
TEST(GoldenHashesFile, ReportNormalisationRemovesLocationAndVersion) {
  const std::string report =
      "{\n  \"tool\": {\n    \"version\": \"9.9\"\n  },\n  \"input\": " +
      nlohmann::json((shared_data_dir() / "anim/x.bvh").string()).dump() +
      ",\n  \"terrain\": " + nlohmann::json(bundled("terrain/flat.obj").string()).dump() +
      ",\n  \"output\": \"out.bvh\"\n}\n";
  EXPECT_EQ(normalised_report(report),
            "{\n  \"tool\": {\n    \"version\": \"<version>\"\n  },\n  \"input\": "
            "\"<shared>/anim/x.bvh\",\n  \"terrain\": \"<source>/data/terrain/flat.obj\",\n  "
            "\"output\": \"out.bvh\"\n}\n");
}

}  // namespace
}  // namespace ikfix::test
