// Contact files: `check --contacts-out` writes the contacts a fix would use, `run --contacts`
// (or "contacts" in a clip's config, for batch) takes them back instead of detecting.
#include <fstream>

#include "e2e_support.hpp"

namespace ikfix::test {
namespace {

// Where no plant is moved or raised (flat, slope, bumps), the contacts check dumps give the fix
// that detecting them gives, byte for byte. On the stairs they do not: check dumps the plants the
// fix ends with, whose first frames its passes move, and plant placement and foot clearance size
// a plant's move from its frames (a known difference: the walk's pelvis differs by ~1 cm).
TEST(E2eContacts, DumpedContactsFedBackGiveTheSameFix) {
  for (const char* terrain_name : {"flat", "slope", "bumps"}) {
    const auto dir = temp_dir(std::string("contacts_roundtrip_") + terrain_name);
    const auto walk = bundled("clips/walk.bvh");
    const auto terrain = bundled(std::string("terrain/") + terrain_name + ".obj");
    auto check = run_ikfix("check " + quoted(walk) + " --terrain " + quoted(terrain) +
                           " --contacts-out " + quoted(dir / "walk.contacts.json"));
    ASSERT_EQ(check.exit_code, 0) << check.output;
    const auto contacts = read_json(dir / "walk.contacts.json");
    EXPECT_EQ(contacts["ikfix_contacts"], 1);
    EXPECT_FALSE(contacts["left"].empty());
    EXPECT_FALSE(contacts["right"].empty());
    auto detected = run_ikfix("run " + quoted(walk) + " --terrain " + quoted(terrain) + " -o " +
                              quoted(dir / "a.bvh"));
    ASSERT_EQ(detected.exit_code, 0) << detected.output;
    auto given =
        run_ikfix("run " + quoted(walk) + " --terrain " + quoted(terrain) + " -o " +
                  quoted(dir / "b.bvh") + " --contacts " + quoted(dir / "walk.contacts.json"));
    ASSERT_EQ(given.exit_code, 0) << given.output;
    EXPECT_EQ(io::read_file(dir / "a.bvh"), io::read_file(dir / "b.bvh")) << terrain_name;
    std::filesystem::remove_all(dir);
  }
}

TEST(E2eContacts, EditedContactsAreWhatTheFixLocks) {
  const auto dir = temp_dir("contacts_edit");
  const auto lib = dir / "lib";
  std::filesystem::create_directories(lib);
  std::filesystem::copy_file(bundled("clips/walk.bvh"), lib / "walk.bvh");
  const auto flat = bundled("terrain/flat.obj");
  auto check = run_ikfix("check " + quoted(lib / "walk.bvh") + " --terrain " + quoted(flat) +
                         " --contacts-out " + quoted(dir / "detected.json"));
  ASSERT_EQ(check.exit_code, 0) << check.output;
  // The user says: the left foot is planted on one range only, the right one never.
  const int frames = read_json(dir / "detected.json")["frames"].get<int>();
  ASSERT_GT(frames, 12);
  {
    std::ofstream(lib / "walk.contacts.json") << R"({"ikfix_contacts": 1, "frames": )" << frames
                                              << R"(, "left": [[2, 10]], "right": []})";
  }
  auto run =
      run_ikfix("run " + quoted(lib / "walk.bvh") + " --terrain " + quoted(flat) + " -o " +
                quoted(dir / "run.bvh") + " --contacts " + quoted(lib / "walk.contacts.json") +
                " --report " + quoted(dir / "run.json"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto report = read_json(dir / "run.json");
  EXPECT_EQ(report["per_leg"][0]["plants"], nlohmann::json::parse("[[2, 10]]"));
  EXPECT_EQ(report["per_leg"][1]["plants"], nlohmann::json::array());
  // batch takes the same file from the clip's config (a path relative to the config).
  { std::ofstream(lib / "walk.bvh.ikfix.json") << R"({"contacts": "walk.contacts.json"})"; }
  auto batch = run_ikfix("-q batch " + quoted(lib) + " --terrain " + quoted(flat) + " --out-dir " +
                         quoted(dir / "out"));
  ASSERT_EQ(batch.exit_code, 0) << batch.output;
  EXPECT_EQ(io::read_file(dir / "run.bvh"), io::read_file(dir / "out" / "walk.bvh"));
  std::filesystem::remove_all(dir);
}

// `run` fixes the motion where it was loaded (nothing reads the unfixed clip afterwards); the
// contacts it writes must still carry the clip's own frame rate, as `check` writes it.
TEST(E2eContacts, RunWritesTheClipsFrameRateLikeCheck) {
  const auto dir = temp_dir("contacts_fps");
  {
    // walk.bvh at 60 fps (any rate but the Clip default of 30 shows a rate read from the wrong
    // clip).
    std::string text = io::read_file(bundled("clips/walk.bvh"));
    const std::string key = "Frame Time:";
    const std::size_t at = text.find(key);
    ASSERT_NE(at, std::string::npos);
    const std::size_t eol = text.find('\n', at);
    text.replace(at, eol - at, "Frame Time: 0.0166667");
    std::ofstream(dir / "walk60.bvh", std::ios::binary) << text;
  }
  const auto flat = bundled("terrain/flat.obj");
  auto check = run_ikfix("check " + quoted(dir / "walk60.bvh") + " --terrain " + quoted(flat) +
                         " --contacts-out " + quoted(dir / "check.json"));
  ASSERT_EQ(check.exit_code, 0) << check.output;
  auto run = run_ikfix("run " + quoted(dir / "walk60.bvh") + " --terrain " + quoted(flat) + " -o " +
                       quoted(dir / "out.bvh") + " --contacts-out " + quoted(dir / "run.json"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NEAR(read_json(dir / "check.json")["fps"].get<double>(), 60.0, 0.01);
  EXPECT_EQ(read_json(dir / "run.json"), read_json(dir / "check.json"));
  std::filesystem::remove_all(dir);
}

TEST(E2eContacts, BadContactFileIsOneLineNamingTheFileAndNothingIsWritten) {
  const auto dir = temp_dir("contacts_bad");
  const auto walk = bundled("clips/walk.bvh");
  {
    std::ofstream(dir / "wrong_frames.json")
        << R"({"ikfix_contacts": 1, "frames": 999999, "left": [], "right": []})";
  }
  auto run = run_ikfix("run " + quoted(walk) + " --terrain " + quoted(bundled("terrain/flat.obj")) +
                       " -o " + quoted(dir / "out.bvh") + " --contacts " +
                       quoted(dir / "wrong_frames.json"));
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("wrong_frames.json: is for 999999 frames but the clip has"),
            std::string::npos)
      << run.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out.bvh"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test
