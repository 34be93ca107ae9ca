#include "core/embree_library.hpp"

#include <dlfcn.h>

#include <stdexcept>

namespace ikfix::core {

namespace {

struct LoadedEmbree {
  EmbreeFunctions functions;
  bool loaded = false;
  std::string problem;  // why it did not load, when !loaded
};

std::string dl_problem(const std::string& what) {
  const char* why = dlerror();
  return what + (why ? std::string(": ") + why : std::string());
}

// Opens the library by its soname first (the loader's search path, LD_LIBRARY_PATH included,
// as a linked library would be found), then at the path it was built against.
void* open_embree(std::string& problem) {
  // RTLD_LOCAL: Embree's and TBB's symbols stay out of the global namespace.
  if (void* handle = dlopen(IKFIX_EMBREE_SONAME, RTLD_NOW | RTLD_LOCAL)) return handle;
  problem = dl_problem("cannot load Embree (" IKFIX_EMBREE_SONAME ")");
  if (void* handle = dlopen(IKFIX_EMBREE_PATH, RTLD_NOW | RTLD_LOCAL)) return handle;
  return nullptr;
}

LoadedEmbree load_embree() {
  LoadedEmbree embree;
  void* handle = open_embree(embree.problem);
  if (!handle) return embree;
    // The handle stays open for the life of the process, like a linked library.
#define IKFIX_EMBREE_LOAD(name)                                                      \
  embree.functions.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name)); \
  if (!embree.functions.name) {                                                      \
    embree.problem = dl_problem("Embree (" IKFIX_EMBREE_SONAME ") lacks " #name);    \
    return embree;                                                                   \
  }
  IKFIX_EMBREE_FUNCTIONS(IKFIX_EMBREE_LOAD)
#undef IKFIX_EMBREE_LOAD
  embree.loaded = true;
  embree.problem.clear();
  return embree;
}

const LoadedEmbree& loaded_embree() {
  static const LoadedEmbree embree = load_embree();  // once per process; thread-safe
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
