// The Assimp module (libikfix_assimp.so) is loaded only when a run needs Assimp: measured on the
// real binary with the dynamic loader's own log (LD_DEBUG=files lists every object it opens), and
// a binary without its module still runs BVH + OBJ and fails cleanly on anything else.
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include "e2e_support.hpp"
#include "io/assimp/assimp_module.hpp"
#include "io/assimp/import_process.hpp"
#include "io/assimp/scene_wire.hpp"

namespace ikfix::test {
namespace {

namespace fs = std::filesystem;

// Runs `env binary args` through the shell, stdout and stderr together.
CommandResult run_binary(const std::string& env, const fs::path& binary, const std::string& args) {
  return run_shell(env + " '" + binary.string() + "' " + args);
}

// A flat ground at y = 0 as ASCII STL (a format only Assimp reads), 200 m across.
fs::path write_stl_ground(const fs::path& dir) {
  const fs::path path = dir / "ground.stl";
  std::ofstream out(path);
  out << "solid ground\n";
  const char* const tris[2][3] = {{"-100 0 -100", "-100 0 100", "100 0 100"},
                                  {"-100 0 -100", "100 0 100", "100 0 -100"}};
  for (const auto& tri : tris) {
    out << "facet normal 0 1 0\n outer loop\n";
    for (const char* v : tri) out << "  vertex " << v << "\n";
    out << " endloop\nendfacet\n";
  }
  out << "endsolid ground\n";
  return path;
}

std::string bvh_obj_run(const fs::path& out) {
  return "-q run " + quoted(bundled("clips/walk.bvh")) + " --terrain " +
         quoted(bundled("terrain/stairs.obj")) + " -o " + quoted(out);
}

int count_lines(const std::string& text) {
  int lines = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines += !line.empty();
  return lines;
}

TEST(AssimpModule, BvhWithObjTerrainNeverLoadsAssimp) {
  const fs::path dir = temp_dir("assimp_lazy");
  const CommandResult r =
      run_binary("LD_DEBUG=files", ikfix_binary(), bvh_obj_run(dir / "out.bvh"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The loader's log is real: it names the libraries the binary does link (libc; libstdc++ is
  // linked statically).
  EXPECT_NE(r.output.find("file=libc.so"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("libassimp"), std::string::npos) << "libassimp was loaded:\n" << r.output;
  EXPECT_EQ(r.output.find("libikfix_assimp"), std::string::npos)
      << "the Assimp module was loaded:\n"
      << r.output;
  EXPECT_TRUE(fs::exists(dir / "out.bvh"));
  fs::remove_all(dir);
}

// The import runs in a child process (io/assimp/import_process.hpp): the loader's log, one file
// per process, shows Assimp loaded (by dlopen) in exactly one process, and not in the others.
TEST(AssimpModule, StlTerrainIsImportedInAChildProcess) {
  const fs::path dir = temp_dir("assimp_stl");
  const fs::path stl = write_stl_ground(dir);
  const fs::path logs = dir / "ld";
  fs::create_directories(logs);
  const CommandResult r =
      run_binary("LD_DEBUG=files LD_DEBUG_OUTPUT=" + quoted(logs / "log"), ikfix_binary(),
                 "-q run " + quoted(bundled("clips/walk.bvh")) + " --terrain " + quoted(stl) +
                     " -o " + quoted(dir / "out.bvh"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int processes = 0, with_assimp = 0;
  for (const auto& entry : fs::directory_iterator(logs)) {
    const std::string log = io::read_file(entry.path());
    ++processes;
    if (log.find("libikfix_assimp.so") == std::string::npos) continue;
    ++with_assimp;
    EXPECT_NE(log.find("file=libassimp.so"), std::string::npos) << log;
    EXPECT_NE(log.find("dynamically loaded by"), std::string::npos) << log;
  }
  EXPECT_GE(processes, 2) << "no child process was started";
  EXPECT_EQ(with_assimp, 1) << "Assimp should load in the import's child only";
  EXPECT_TRUE(fs::exists(dir / "out.bvh"));
  fs::remove_all(dir);
}

// Processes whose command line holds `text` (the import child's names the file it imports).
int processes_naming(const std::string& text) {
  int found = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    const std::string cmdline((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    found += cmdline.find(text) != std::string::npos &&
             cmdline.find("__assimp-import") != std::string::npos;
  }
  return found;
}

// What an import gives, as the bytes of its wire form (equal bytes: equal scenes, bit for bit).
std::string imported_bytes(const io::assimp::ImportRequest& request, bool in_child) {
  io::assimp::Scene scene;
  std::string error;
  const bool ok = in_child ? io::assimp::import_in_child(request, 0, scene, error)
                           : io::assimp::import_scene_here(request, scene, error);
  EXPECT_TRUE(ok) << request.file << ": " << error;
  std::string bytes;
  io::assimp::wire::encode_result(io::assimp::wire::Status::imported, "", scene,
                                  [&](std::string_view piece) { bytes.append(piece); });
  return bytes;
}

// The scene the ikfix binary's child imports is the one this process imports itself, bit for
// bit: Collada clips, an FBX read from memory (as --verify-assimp does), STL and GLB meshes
// triangulated (as terrains are). So every output over them is unchanged by the child.
TEST(AssimpModule, ChildImportsTheSameSceneAsThisProcess) {
  IKFIX_REQUIRE_SHARED_DATA();
  io::assimp::run_imports_in(ikfix_binary().string());
  const fs::path anim = shared_data_dir() / "anim";
  for (const fs::path& dae : {anim / "dae" / "box_nested_animation.dae",
                              anim / "dae" / "anims_with_full_rotations.dae"}) {
    io::assimp::ImportRequest request;
    request.file = dae.string();
    request.no_skeleton_meshes = true;
    EXPECT_EQ(imported_bytes(request, true), imported_bytes(request, false)) << dae;
  }
  const std::string fbx = io::read_file(anim / "fbx" / "barbarian_blender_7400.fbx");
  io::assimp::ImportRequest from_memory;
  from_memory.file = "barbarian.fbx";
  from_memory.bytes = &fbx;
  from_memory.format_hint = "fbx";
  const std::string fbx_scene = imported_bytes(from_memory, true);
  EXPECT_GT(fbx_scene.size(), 100000u);
  EXPECT_EQ(fbx_scene, imported_bytes(from_memory, false));
  const fs::path dir = temp_dir("assimp_same_scene");
  for (const fs::path& mesh : {write_stl_ground(dir), anim / "gltf" / "CesiumMan.glb"}) {
    io::assimp::ImportRequest request;
    request.file = mesh.string();
    request.triangulate = true;
    EXPECT_EQ(imported_bytes(request, true), imported_bytes(request, false)) << mesh;
  }
  io::assimp::run_imports_in("");
}

// A real import that outlives --assimp-timeout: one line naming the file, exit 2, no output and
// no process left.
TEST(AssimpModule, ImportPastTheTimeoutIsOneCleanError) {
  const fs::path dir = temp_dir("assimp_timeout");
  const fs::path stl = write_stl_ground(dir);
  const CommandResult r =
      run_ikfix("-q run " + quoted(bundled("clips/walk.bvh")) + " --terrain " + quoted(stl) +
                " -o " + quoted(dir / "out.bvh") + " --assimp-timeout 0.001");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(count_lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find(stl.string() + ": the Assimp import timed out after 0.001 s"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir / "out.bvh"));
  EXPECT_EQ(processes_naming(stl.string()), 0);
  fs::remove_all(dir);
}

// A real Collada clip whose import needs more than --max-memory: the child's address space
// limit stops it, and the error says so on one line. The clip is read from a copy of its own, so
// that no other test reading the shared file at the same time (ctest -j) counts as a process
// left behind.
TEST(AssimpModule, ImportAboveTheMemoryLimitIsOneCleanError) {
  IKFIX_REQUIRE_SHARED_DATA();
  const fs::path dir = temp_dir("assimp_memory_limit");
  const fs::path dae = dir / "full_rotations_memory_limit.dae";
  fs::copy_file(shared_data_dir() / "anim" / "dae" / "anims_with_full_rotations.dae", dae,
                fs::copy_options::overwrite_existing);
  const CommandResult r = run_ikfix("inspect " + quoted(dae) + " --max-memory 1M");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(count_lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find(dae.string() +
                          ": the Assimp import exceeded its memory limit of 1.0 MB (--max-memory)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(processes_naming(dae.string()), 0);
  // The same file within the default limit reads.
  EXPECT_EQ(run_ikfix("inspect " + quoted(dae)).exit_code, 0);
  fs::remove_all(dir);
}

// Errors from inside an Assimp import still reach the CLI as one line naming the file.
TEST(AssimpModule, UnreadableTerrainIsAOneLineError) {
  const fs::path dir = temp_dir("assimp_garbage");
  const fs::path bad = dir / "garbage.ply";
  std::ofstream(bad) << "this is not a mesh\n";
  const CommandResult r = run_ikfix("-q run " + quoted(bundled("clips/walk.bvh")) + " --terrain " +
                                    quoted(bad) + " -o " + quoted(dir / "out.bvh"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(count_lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find(bad.string() + ": cannot read as a mesh"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "out.bvh"));
  fs::remove_all(dir);
}

// A Collada clip read by the binary (module dlopen'd) and by this test (module linked, as for
// library users) gives the same clip.
TEST(AssimpModule, ColladaClipReadsTheSameThroughTheBinary) {
  IKFIX_REQUIRE_SHARED_DATA();
  for (const char* name : {"dae/box_nested_animation.dae", "dae/anims_with_full_rotations.dae"}) {
    const fs::path dae = shared_data_dir() / "anim" / name;
    const io::LoadedClip linked = io::load_clip(dae);
    const CommandResult r = run_ikfix("inspect " + quoted(dae));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ostringstream expected;
    expected << dae.string() << ": dae, " << linked.skeleton.joint_count() << " joints, "
             << linked.clip.frame_count << " frames";
    EXPECT_NE(r.output.find(expected.str()), std::string::npos) << expected.str() << "\n"
                                                                << r.output;
  }
}

// A file Assimp fails on: its message, on one line, naming the file, exit 2.
TEST(AssimpModule, AssimpFailureIsAOneLineError) {
  IKFIX_REQUIRE_SHARED_DATA();
  const fs::path dae = shared_data_dir() / "anim" / "unsupported" / "library_animation_clips.dae";
  const CommandResult r = run_ikfix("inspect " + quoted(dae));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(count_lines(r.output), 1) << r.output;
  EXPECT_NE(r.output.find(dae.string() + ": Assimp cannot read it: "), std::string::npos)
      << r.output;
}

TEST(AssimpModule, WithoutTheModuleBvhRunsWorkAndOthersFailInOneLine) {
  const fs::path dir = temp_dir("assimp_missing");
  const fs::path lone = dir / "ikfix";
  fs::copy_file(ikfix_binary(), lone);
  ASSERT_FALSE(fs::exists(dir / "libikfix_assimp.so"));

  const CommandResult bvh = run_binary("", lone, bvh_obj_run(dir / "out.bvh"));
  EXPECT_EQ(bvh.exit_code, 0) << bvh.output;
  EXPECT_TRUE(fs::exists(dir / "out.bvh"));

  const fs::path stl = write_stl_ground(dir);
  const std::string stl_run = "-q run " + quoted(bundled("clips/walk.bvh")) + " --terrain " +
                              quoted(stl) + " -o " + quoted(dir / "stl.bvh");
  const CommandResult missing = run_binary("", lone, stl_run);
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_EQ(count_lines(missing.output), 1) << missing.output;
  EXPECT_NE(missing.output.find(stl.string() + ": "), std::string::npos) << missing.output;
  EXPECT_NE(missing.output.find("libikfix_assimp.so is missing"), std::string::npos)
      << missing.output;
  EXPECT_FALSE(fs::exists(dir / "stl.bvh"));

  // The same run with the module where an installed layout keeps it (bin/../lib/ikfix/) works.
  fs::create_directories(dir / "bin");
  fs::create_directories(dir / "lib" / "ikfix");
  fs::copy_file(ikfix_binary(), dir / "bin" / "ikfix");
  fs::copy_file(ikfix_binary().parent_path() / "libikfix_assimp.so",
                dir / "lib" / "ikfix" / "libikfix_assimp.so");
  const CommandResult installed = run_binary("", dir / "bin" / "ikfix", stl_run);
  EXPECT_EQ(installed.exit_code, 0) << installed.output;
  EXPECT_TRUE(fs::exists(dir / "stl.bvh"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ikfix::test
