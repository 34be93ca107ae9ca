#include "io/assimp/assimp_module.hpp"

#include <dlfcn.h>

#include <atomic>
#include <filesystem>
#include <system_error>
#include <vector>

#include "io/assimp/import_process.hpp"
#include "io/error.hpp"

namespace ikfix::io::assimp {
namespace {

std::atomic<const ModuleApi*> g_linked{nullptr};

struct LoadedModule {
  const ModuleApi* api = nullptr;
  std::string problem;  // why it could not be loaded, when api is null
};

const ModuleApi* entry_point(void* handle, const std::string& where, std::string& problem) {
  using Entry = const ModuleApi* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(handle, kModuleEntryPoint));
  if (!entry) {
    problem = where + " has no " + kModuleEntryPoint + " (not an ikfix Assimp module)";
    return nullptr;
  }
  const ModuleApi* api = entry();
  if (!api || api->abi_version != kModuleAbiVersion || !api->import_scene) {
    problem = where + " is from another ikfix version (module interface " +
              std::to_string(api ? api->abi_version : 0) + ", this ikfix needs " +
              std::to_string(kModuleAbiVersion) + ")";
    return nullptr;
  }
  return api;
}

LoadedModule load_module() {
  LoadedModule loaded;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    loaded.problem =
        std::string("cannot find this program's directory (/proc/self/exe: ") + ec.message() + ")";
    return loaded;
  }
  const std::filesystem::path dir = exe.parent_path();
  const std::filesystem::path candidates[] = {dir / kModuleFileName,
                                              dir / ".." / "lib" / "ikfix" / kModuleFileName};
  for (const auto& candidate : candidates) {
    if (!std::filesystem::exists(candidate, ec)) continue;
    // RTLD_LOCAL: Assimp's symbols stay out of the global namespace; the entry point is all we use.
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      loaded.problem = "cannot load the Assimp module: " + one_line(why ? why : "");
      return loaded;
    }
    loaded.api = entry_point(handle, candidate.string(), loaded.problem);
    return loaded;  // the handle stays open for the life of the process
  }
  loaded.problem = std::string("reading it needs Assimp, but the Assimp module ") +
                   kModuleFileName + " is missing (looked in " +
                   candidates[0].parent_path().string() + "/ and " +
                   candidates[1].parent_path().string() + "/)";
  return loaded;
}

const ModuleApi& module_for(const std::string& file) {
  if (const ModuleApi* linked = g_linked.load(std::memory_order_acquire)) return *linked;
  static const LoadedModule loaded = load_module();  // once per process; thread-safe
  if (!loaded.api) throw InputError(file, loaded.problem);
  return *loaded.api;
}

}  // namespace

void use_linked_module(const ModuleApi* api) {
  if (api && api->abi_version == kModuleAbiVersion && api->import_scene)
    g_linked.store(api, std::memory_order_release);
}

bool import_scene(const ImportRequest& request, std::uint64_t memory_limit_bytes, Scene& scene,
                  std::string& assimp_error) {
  if (!import_program().empty())
    return import_in_child(request, memory_limit_bytes, scene, assimp_error);
  return import_scene_here(request, scene, assimp_error);
}

bool import_scene_here(const ImportRequest& request, Scene& scene, std::string& assimp_error) {
  return module_for(request.file).import_scene(request, scene, assimp_error);
}

void load_module(const std::string& file) { module_for(file); }

}  // namespace ikfix::io::assimp
