#include "tests/fuzz/fuzz_targets.hpp"

#include <stdlib.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <memory>
#include <typeinfo>

#include "cli/clip_config.hpp"
#include "cli/clip_options.hpp"
#include "cli/fix_job.hpp"
#include "core/terrain.hpp"
#include "core/terrain_gen.hpp"
#include "io/bone_map_json.hpp"
#include "io/bvh/reader.hpp"
#include "io/clip_facts.hpp"
#include "io/clip_io.hpp"
#include "io/contacts_json.hpp"
#include "io/error.hpp"
#include "io/memory_budget.hpp"
#include "io/obj_reader.hpp"
#include "io/terrain_io.hpp"

namespace ikfix::fuzz {

namespace fs = std::filesystem;

namespace {

// A folder of this process's own under the temp folder, removed at exit.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "ikfix-fuzz-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create " + pattern);
    path_ = pattern;
    // As `ikfix` main() does (its memory budget is half the physical memory).
    io::set_max_joints(cli::kDefaultMaxJoints);
    io::set_memory_budget(kMemoryBudgetBytes);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

const fs::path& scratch() {
  static const ScratchDir dir;
  return dir.path();
}

fs::path write_input(std::string_view bytes, const std::string& name) {
  const fs::path path = scratch() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
  return path;
}

// Runs `read`: a pass when it returns or rejects the input cleanly, UncleanFailure otherwise.
template <class Read>
Outcome guarded(Read read) {
  try {
    read();
    return Outcome::read;
  } catch (const io::InputError&) {
    return Outcome::rejected;
  } catch (const std::invalid_argument&) {
    return Outcome::rejected;
  } catch (const std::exception& e) {
    throw UncleanFailure(std::string("unclean error (") + typeid(e).name() + "): " + e.what());
  }
}

// Every joint flagged as changed: the writers rewrite all of them.
std::vector<char> all_joints(const io::LoadedClip& clip) {
  return std::vector<char>(static_cast<std::size_t>(clip.skeleton.joint_count()), 1);
}

// A clip file of another format than BVH: each way ikfix reads it, then converted to BVH.
Outcome clip_target(std::string_view bytes, const std::string& name) {
  const fs::path path = write_input(bytes, name);
  const Outcome outcome = guarded([&] {
    const io::LoadedClip clip = io::load_clip(path);
    if (clip.take_index >= 0)
      io::save_clip(scratch() / "converted.bvh", clip, clip.clip, all_joints(clip));
  });
  if (outcome == Outcome::rejected) return outcome;
  guarded([&] { io::load_takes(path); });
  guarded([&] { io::load_character(path); });
  return outcome;
}

// A small biped as a one-frame BVH with these joint names (hips, spine, head, then per side
// thigh, shin, foot, toe), for the bone map reader.
core::Skeleton biped(const std::array<const char*, 11>& names) {
  const int parent[11] = {-1, 0, 1, 0, 3, 4, 5, 0, 7, 8, 9};
  const double offset[11][3] = {{0, 95, 0},  {0, 10, 0},  {0, 40, 0},  {10, 0, 0},
                                {0, -45, 0}, {0, -45, 0}, {0, -5, 12}, {-10, 0, 0},
                                {0, -45, 0}, {0, -45, 0}, {0, -5, 12}};
  std::string text = "HIERARCHY\n";
  std::string frame;
  std::vector<int> open;  // joints whose brace is open
  for (int j = 0; j < 11; ++j) {
    while (!open.empty() && open.back() != parent[j]) {
      text += "}\n";
      open.pop_back();
    }
    text += std::string(j == 0 ? "ROOT " : "JOINT ") + names[static_cast<std::size_t>(j)] +
            "\n{\nOFFSET " + std::to_string(offset[j][0]) + " " + std::to_string(offset[j][1]) +
            " " + std::to_string(offset[j][2]) + "\n";
    text += j == 0 ? "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                   : "CHANNELS 3 Zrotation Xrotation Yrotation\n";
    frame += j == 0 ? "0 95 0 0 0 0 " : "0 0 0 ";
    open.push_back(j);
  }
  for (std::size_t k = 0; k < open.size(); ++k) text += "}\n";
  text += "MOTION\nFrames: 1\nFrame Time: 0.033333\n" + frame + "\n";
  return io::bvh::skeleton(io::bvh::parse(text, "biped.bvh"));
}

void read_config(const fs::path& path) {
  cli::ClipOptions options;
  std::vector<double> terrain_offset;
  cli::apply_clip_config(path, options, terrain_offset);
  cli::to_load_options(options);
}

void read_bone_map(const fs::path& path) {
  static const core::Skeleton source =
      biped({"Hips", "Spine", "Head", "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase",
             "RightUpLeg", "RightLeg", "RightFoot", "RightToeBase"});
  static const core::Skeleton target =
      biped({"pelvis", "spine_01", "head", "thigh_l", "calf_l", "foot_l", "ball_l", "thigh_r",
             "calf_r", "foot_r", "ball_r"});
  io::load_bone_map(path, source, target);
}

// The pipeline's terrains, built once: flat, 15 cm stairs, a 10 degree slope, 10 cm bumps.
const core::Terrain& pipeline_terrain(std::size_t which) {
  static const std::array<std::unique_ptr<core::Terrain>, 4> terrains = {
      std::make_unique<core::Terrain>(core::make_flat_terrain({})),
      std::make_unique<core::Terrain>(core::make_stairs_terrain({})),
      std::make_unique<core::Terrain>(core::make_slope_terrain({})),
      std::make_unique<core::Terrain>(core::make_bumps_terrain({}))};
  return *terrains[which % terrains.size()];
}

}  // namespace

Outcome bvh_target(std::string_view bytes) {
  const fs::path path = write_input(bytes, "input.bvh");
  return guarded([&] {
    const io::LoadedClip clip = io::load_clip(path);
    io::save_clip(scratch() / "written.bvh", clip, clip.clip, all_joints(clip));
  });
}

Outcome fbx_target(std::string_view bytes) { return clip_target(bytes, "input.fbx"); }

Outcome gltf_target(std::string_view bytes) {
  const bool glb = bytes.substr(0, 4) == "glTF";
  return clip_target(bytes, glb ? "input.glb" : "input.gltf");
}

Outcome obj_target(std::string_view bytes) {
  const fs::path path = write_input(bytes, "input.obj");
  guarded([&] { io::parse_obj(bytes, "input.obj"); });
  return guarded([&] {
    core::TerrainMesh mesh = io::load_terrain_mesh(path);
    const core::Terrain terrain(std::move(mesh));
    const core::Vec3 middle = 0.5 * (terrain.bounds_min() + terrain.bounds_max());
    terrain.ground_at(middle.x, middle.z);
    terrain.ground_at(0.0, 0.0);
  });
}

Outcome json_target(std::string_view bytes) {
  if (bytes.size() < 2) return Outcome::rejected;
  const auto selector = static_cast<std::uint8_t>(bytes[0]) % 3;
  const int frames = 1 + static_cast<std::uint8_t>(bytes[1]);
  const fs::path path = write_input(bytes.substr(selector == 1 ? 2 : 1), "input.json");
  return guarded([&] {
    if (selector == 0) read_config(path);
    if (selector == 1) io::load_contacts(path, frames);
    if (selector == 2) read_bone_map(path);
  });
}

Outcome pipeline_target(std::string_view bytes) {
  const fs::path path = write_input(bytes, "input.bvh");
  bool small = false;
  if (guarded([&] {
        const io::LoadedClip clip = io::load_clip(path);
        small = clip.skeleton.joint_count() <= kPipelineMaxJoints &&
                clip.clip.frame_count <= kPipelineMaxFrames;
      }) == Outcome::rejected ||
      !small)
    return Outcome::rejected;
  cli::FixJob job;
  job.input = path;
  job.output = scratch() / "fixed.bvh";
  job.terrain = &pipeline_terrain(bytes.size());
  job.terrain_path = "terrain.obj";
  job.contacts_out = scratch() / "contacts.json";
  return guarded([&] { cli::run_fix_job(job); });
}

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {{"bvh", bvh_target},   {"fbx", fbx_target},
                                          {"gltf", gltf_target}, {"obj", obj_target},
                                          {"json", json_target}, {"pipeline", pipeline_target}};
  return all;
}

}  // namespace ikfix::fuzz
