#include "core/embree_library.hpp"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace ikfix::core {

namespace {

std::string dl_problem(const std::string& what) {
  const char* why = dlerror();
  return what + (why ? std::string(": ") + why : std::string());
}

// Opens the library by its soname first (the loader's search path, LD_LIBRARY_PATH included,
// as a linked library would be found), then at `path`.
void* open_embree(const std::string& soname, const std::string& path, std::string& problem) {
  // RTLD_LOCAL: Embree's and TBB's symbols stay out of the global namespace.
  if (void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  problem = dl_problem("cannot load Embree (" + soname + ")");
  if (path.empty() || path == soname) return nullptr;
  return dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
}

}  // namespace

LoadedEmbree load_embree(const std::string& soname, const std::string& path) {
  LoadedEmbree embree;
  // The handle stays open for the life of the process, like a linked library.
  void* handle = open_embree(soname, path, embree.problem);
  if (!handle) return embree;
#define IKFIX_EMBREE_LOAD(name)                                                      \
  embree.functions.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name)); \
  if (!embree.functions.name) {                                                      \
    embree.problem = dl_problem("Embree (" + soname + ") lacks " #name);             \
    return embree;                                                                   \
  }
  IKFIX_EMBREE_FUNCTIONS(IKFIX_EMBREE_LOAD)
#undef IKFIX_EMBREE_LOAD
  embree.loaded = true;
  embree.problem.clear();
  return embree;
}

namespace {

const LoadedEmbree& loaded_embree() {
  // Once per process; thread-safe.
  static const LoadedEmbree embree = load_embree(IKFIX_EMBREE_SONAME, IKFIX_EMBREE_PATH);
  return embree;
}

}  // namespace

const EmbreeFunctions* embree_functions() {
  const LoadedEmbree& embree = loaded_embree();
  return embree.loaded ? &embree.functions : nullptr;
}

const std::string& embree_load_problem() { return loaded_embree().problem; }

const EmbreeFunctions& embree() {
  const LoadedEmbree& embree = loaded_embree();
  if (!embree.loaded) throw std::runtime_error(embree.problem);
  return embree.functions;
}

}  // namespace ikfix::core
