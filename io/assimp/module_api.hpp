#pragma once
// The boundary between ikfix and its Assimp module (libikfix_assimp.so): one C entry point that
// returns a table of functions. Nothing else is shared: the module holds only Assimp-facing code
// (io/assimp/module/) and no ikfix code, so no symbol exists on both sides, and no exception
// crosses (the module reports failure as text; ikfix turns it into an InputError).
#include <string>

#include "io/assimp/imported_scene.hpp"

namespace ikfix::io::assimp {

// Bumped whenever imported_scene.hpp or ModuleApi change, so a stale module is refused instead
// of misread.
inline constexpr int kModuleAbiVersion = 1;

// The module's file name, and the C entry point it exports.
inline constexpr const char* kModuleFileName = "libikfix_assimp.so";
inline constexpr const char* kModuleEntryPoint = "ikfix_assimp_module";

struct ModuleApi {
  int abi_version = kModuleAbiVersion;
  // Imports request.file (or *request.bytes) into `scene`. Returns false with Assimp's message
  // in `error` when Assimp cannot read it. Never throws.
  bool (*import_scene)(const ImportRequest& request, Scene& scene, std::string& error) = nullptr;
};

}  // namespace ikfix::io::assimp

extern "C" {
// Defined by the module (io/assimp/module/import_scene.cpp).
const ikfix::io::assimp::ModuleApi* ikfix_assimp_module();
}
