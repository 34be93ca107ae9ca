// Retargeting a skeleton of thousands of joints onto itself (issue 19: every per-joint pass
// O(n log n)): the rest alignment's search for each bone's direction child and the metrics'
// limb-bone pairs used to scan every pair per pair, with an ancestor walk each (a 3,000-deep
// chain took 124 s). The skeleton is built as tests/bench/many_joints.py builds it: a named biped
// with N extra joints hanging from the root, as siblings or as one chain.
#include <chrono>
#include <fstream>
#include <string>

#include "e2e_support.hpp"

namespace ikfix::test {
namespace {

namespace fs = std::filesystem;

void write_biped_with(const fs::path& path, int extra, bool nested) {
  std::ofstream out(path);
  out << "HIERARCHY\nROOT Hips\n{\nOFFSET 0 0 0\n"
         "CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n";
  for (const auto& [side, x] : {std::pair<const char*, int>{"Left", 10}, {"Right", -10}}) {
    const std::pair<const char*, std::string> bones[] = {{"UpLeg", std::to_string(x) + " -5 0"},
                                                         {"Leg", "0 -45 0"},
                                                         {"Foot", "0 -42 0"},
                                                         {"ToeBase", "0 -5 12"}};
    for (const auto& [name, offset] : bones)
      out << "JOINT " << side << name << "\n{\nOFFSET " << offset
          << "\nCHANNELS 3 Zrotation Yrotation Xrotation\n";
    out << "End Site\n{\nOFFSET 0 0 5\n}\n}\n}\n}\n}\n";
  }
  for (int i = 0; i < extra; ++i) {
    out << "JOINT X" << i << "\n{\nOFFSET " << (nested ? "0 1 0" : "0 10 0")
        << "\nCHANNELS 3 Zrotation Yrotation Xrotation\n";
    if (!nested) out << "End Site\n{\nOFFSET 0 5 0\n}\n}\n";
  }
  if (nested) {
    out << "End Site\n{\nOFFSET 0 1 0\n}\n";
    for (int i = 0; i < extra; ++i) out << "}\n";
  }
  const int channels = 6 + 8 * 3 + 3 * extra;
  out << "}\nMOTION\nFrames: 2\nFrame Time: 0.0333333\n";
  for (int f = 0; f < 2; ++f) {
    out << "0 " << 92 + f << " 0";
    for (int c = 3; c < channels; ++c) out << " 0";
    out << "\n";
  }
}

// Every joint is mapped onto itself, finds its direction from its own bone and turns by 0.
void expect_retargets_onto_itself(int extra, bool nested) {
  const fs::path dir = temp_dir(nested ? "many_chain" : "many_siblings");
  const fs::path clip = dir / "biped.bvh";
  write_biped_with(clip, extra, nested);
  const auto start = std::chrono::steady_clock::now();
  const CommandResult r = run_ikfix("-q retarget " + quoted(clip) + " --to " + quoted(clip) +
                                    " -o " + quoted(dir / "out.bvh") + " --report " +
                                    quoted(dir / "r.json") + " --max-joints 100000");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Far above the few tenths of a second it takes; the quadratic passes took minutes.
  EXPECT_LT(seconds, 60.0);
  const nlohmann::json alignment = read_json(dir / "r.json")["retarget"]["rest_alignment"];
  ASSERT_EQ(alignment.size(), static_cast<std::size_t>(9 + extra));
  int own_bone = 0;
  for (const auto& bone : alignment) {
    EXPECT_EQ(bone["source"], bone["target"]);
    EXPECT_EQ(bone["angle_deg"].get<double>(), 0.0) << bone;
    own_bone += bone["from"] == "own bone";
  }
  // Under siblings, the hips have thousands of children at the same depth: no one direction.
  EXPECT_EQ(own_bone, 9 + extra - (nested ? 0 : 1)) << "a bone did not find its direction";
}

TEST(ManyJointsRetarget, ChainOfThousandsOfJoints) { expect_retargets_onto_itself(4000, true); }

TEST(ManyJointsRetarget, ThousandsOfSiblings) { expect_retargets_onto_itself(10000, false); }

}  // namespace
}  // namespace ikfix::test
