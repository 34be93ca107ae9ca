#pragma once
// Embree, loaded at run time: the functions ikfix calls, from libembree3 opened with dlopen on
// first use rather than linked. A linked Embree (and the TBB it brings) is mapped, relocated and
// initialised before main on every start, about a tenth of a one-clip `ikfix run`, even for a
// command that casts no ray; loaded here, start_terrain_device (terrain_device.hpp) pays it on
// a thread of its own while the clip is read. Embree's headers still give the types.
#include <embree3/rtcore.h>

#include <string>

namespace ikfix::core {

// Every Embree function ikfix calls, in one list (the table's members and what is loaded).
// clang-format off
#define IKFIX_EMBREE_FUNCTIONS(X) \
  X(rtcNewDevice)               \
  X(rtcRetainDevice)            \
  X(rtcReleaseDevice)           \
  X(rtcGetDeviceError)          \
  X(rtcGetDeviceProperty)       \
  X(rtcNewScene)                \
  X(rtcReleaseScene)            \
  X(rtcSetSceneFlags)           \
  X(rtcSetSceneBuildQuality)    \
  X(rtcCommitScene)             \
  X(rtcAttachGeometry)          \
  X(rtcNewGeometry)             \
  X(rtcReleaseGeometry)         \
  X(rtcCommitGeometry)          \
  X(rtcSetSharedGeometryBuffer) \
  X(rtcSetNewGeometryBuffer)    \
  X(rtcIntersect1)              \
  X(rtcIntersect4)              \
  X(rtcIntersect8)              \
  X(rtcIntersect16)
// clang-format on

// The loaded functions, named as in Embree's API (its documentation applies unchanged).
struct EmbreeFunctions {
#define IKFIX_EMBREE_MEMBER(name) decltype(&::name) name = nullptr;
  IKFIX_EMBREE_FUNCTIONS(IKFIX_EMBREE_MEMBER)
#undef IKFIX_EMBREE_MEMBER
};

// What loading Embree gave: its functions, or why not.
struct LoadedEmbree {
  EmbreeFunctions functions;
  bool loaded = false;
  std::string problem;  // why not, in one line naming the library, when !loaded
};

// Loads Embree's functions from the library `soname` (the loader's search path) or, failing
// that, from `path`; every call is a dlopen of its own. For embree_functions(), which loads
// the library ikfix was built against, and for tests.
LoadedEmbree load_embree(const std::string& soname, const std::string& path);

// The functions, loaded on the first call and kept for the life of the process; null when the
// library or one of its functions cannot be loaded. Thread-safe: a call while another thread
// loads waits for it.
const EmbreeFunctions* embree_functions();

// Why embree_functions() is null, in one line naming the library; empty when it loaded.
const std::string& embree_load_problem();

// embree_functions(), for code that runs only once a device exists (so the library loaded);
// throws std::runtime_error with embree_load_problem() otherwise.
const EmbreeFunctions& embree();

}  // namespace ikfix::core
