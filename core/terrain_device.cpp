#include "core/terrain_device.hpp"

#include <cstdlib>
#include <mutex>
#include <thread>

#include "core/embree_library.hpp"

namespace ikfix::core {

namespace {

struct SharedDevice {
  std::once_flag made;
  RTCDevice device = nullptr;  // one reference held for the life of the process
  std::once_flag started;
  std::thread maker;  // start_terrain_device's thread, if started

  // Runs at exit, after main: a device still being made is waited for, never abandoned (the
  // thread's own exit handler has already waited, unless Embree failed to load).
  ~SharedDevice() {
    if (maker.joinable()) maker.join();
  }
};

SharedDevice& shared_device() {
  static SharedDevice shared;
  return shared;
}

// Loads Embree, makes the device, then commits one empty scene on it: the first commit in a
// process starts TBB's scheduler and Embree's build machinery (~1 ms), which the first real
// scene built then finds ready.
void make_device_and_warm_up() {
  if (!embree_functions()) return;  // terrain_device() then fails too, and says why
  // exit() runs its handlers in the reverse order of their registration, and Embree's static
  // objects were registered as it loaded, just now: registered after them, the wait for this
  // thread runs before they are destroyed, should the process exit while it still works.
  std::atexit(finish_terrain_device);
  const RTCDevice device = terrain_device();
  if (!device) return;
  RTCScene scene = embree().rtcNewScene(device);
  if (!scene) return;
  embree().rtcCommitScene(scene);
  embree().rtcReleaseScene(scene);
}

}  // namespace

RTCDevice terrain_device() {
  SharedDevice& shared = shared_device();
  // One build thread: Embree's default pool spins a TBB worker per core after the build, which
  // on a 2-core machine steals a core from `ikfix batch` workers; the scenes are small enough
  // (100k triangles: ~20 ms) that a parallel build does not pay for it.
  // Null, with embree_load_problem() saying why, when the library itself cannot be loaded.
  std::call_once(shared.made, [&shared] {
    if (const EmbreeFunctions* rtc = embree_functions())
      shared.device = rtc->rtcNewDevice("threads=1");
  });
  return shared.device;
}

void finish_terrain_device() {
  SharedDevice& shared = shared_device();
  if (shared.maker.joinable()) shared.maker.join();
}

void start_terrain_device() {
  SharedDevice& shared = shared_device();
  std::call_once(shared.started,
                 [&shared] { shared.maker = std::thread(make_device_and_warm_up); });
}

}  // namespace ikfix::core
