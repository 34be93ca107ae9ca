#pragma once
// Access to Assimp for the rest of io: the Assimp module (libikfix_assimp.so) is loaded on the
// first import, not at start-up, so runs that never need Assimp (BVH clips, OBJ terrains) do not
// pay for loading libassimp and its dependencies.
//
// Where the module is found, in order:
//   1. linked into the program: programs that link the CMake target `ikfix` get the module as a
//      normal shared-library dependency, which registers itself (module/link_module.cpp);
//   2. <directory of /proc/self/exe>/libikfix_assimp.so: the build tree (build/ikfix beside
//      build/libikfix_assimp.so);
//   3. <directory of /proc/self/exe>/../lib/ikfix/libikfix_assimp.so: the installed layout
//      (`cmake --install`: bin/ikfix, lib/ikfix/libikfix_assimp.so).
#include <cstdint>
#include <string>

#include "io/assimp/module_api.hpp"

namespace ikfix::io::assimp {

// Imports through the module: in a child process limited to `memory_limit_bytes` of address
// space (0: unlimited) and to import_timeout() when run_imports_in() named a program
// (io/assimp/import_process.hpp), else here. Returns false with Assimp's message (possibly
// several lines) in `assimp_error` when Assimp cannot read the file. Throws InputError naming
// request.file when the module cannot be loaded (what is missing, on one line), and when the
// child exceeds a limit or crashes. Thread-safe.
bool import_scene(const ImportRequest& request, std::uint64_t memory_limit_bytes, Scene& scene,
                  std::string& assimp_error);

// The same import in this process, whatever run_imports_in() says.
bool import_scene_here(const ImportRequest& request, Scene& scene, std::string& assimp_error);

// Loads the module now (the child loads it before limiting its memory). Throws InputError
// naming `file` when it cannot.
void load_module(const std::string& file);

// Used by module/link_module.cpp: the module linked into this program, used before any file.
void use_linked_module(const ModuleApi* api);

}  // namespace ikfix::io::assimp
