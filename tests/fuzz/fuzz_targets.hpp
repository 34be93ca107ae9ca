#pragma once
// One fuzz input through one reader, as `ikfix` would read it: shared by the libFuzzer harnesses
// (tests/fuzz/*_fuzz.cpp) and the regression test that runs every kept input
// (tests/fuzz/regressions/<reader>/) in every build.
//
// Each target writes the input to a file in a scratch folder of this process (the readers are
// path-based, as the CLI uses them) and reads it. A clean rejection - io::InputError or
// std::invalid_argument, what the CLI prints as one line and exits 2 with - is a pass; so is a
// successful read. Anything else is a finding: the target throws UncleanFailure (any other
// exception, or a message that is not one line), and a crash, hang or sanitizer report is one
// by itself.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ikfix::fuzz {

// The memory budget (--max-memory) every target runs with: 512 MB, half the harnesses' malloc
// limit (run_fuzzers.sh), so an allocation past that limit means a reader's estimate is off.
inline constexpr std::uint64_t kMemoryBudgetBytes = std::uint64_t{512} << 20;

class UncleanFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Outcome { read, rejected };

// BVH: io::load_clip, then the clip written back from scratch (bvh::write_new) when it was read.
Outcome bvh_target(std::string_view bytes);
// FBX binary or ASCII (the reader dispatches on the magic): io::load_clip, every take
// (io::load_takes), the character (io::load_character) and a conversion to BVH.
Outcome fbx_target(std::string_view bytes);
// glTF (JSON) or GLB (starts "glTF"): as fbx_target.
Outcome gltf_target(std::string_view bytes);
// OBJ terrain: io::load_terrain_mesh (the parallel reader), io::parse_obj (the sequential one),
// then a core::Terrain built and queried.
Outcome obj_target(std::string_view bytes);
// The JSON readers, chosen by the first byte % 3: 0 a clip config (cli::apply_clip_config and
// its values as cli::to_load_options reads them), 1 a contacts file (io::load_contacts for a
// clip of 1 + second byte frames), 2 a bone map (io::load_bone_map between two small bipeds).
// The rest of the input is the file.
Outcome json_target(std::string_view bytes);
// The whole fix on a clip: the input is a BVH; when it parses with at most kPipelineMaxJoints
// joints and kPipelineMaxFrames frames, `ikfix run` (cli::run_fix_job, with metrics) fixes it
// onto flat ground, stairs, a slope or bumps (input size % 4) and writes it as BVH.
inline constexpr int kPipelineMaxJoints = 64;
inline constexpr int kPipelineMaxFrames = 60;
Outcome pipeline_target(std::string_view bytes);

// The targets by the name of their regression folder and harness ("bvh", "fbx", ...).
struct Target {
  const char* name;
  Outcome (*run)(std::string_view bytes);
};
const std::vector<Target>& targets();

}  // namespace ikfix::fuzz
