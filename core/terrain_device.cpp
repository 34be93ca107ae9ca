#include "core/terrain_device.hpp"

#include <mutex>
#include <thread>

namespace ikfix::core {

namespace {

struct SharedDevice {
  std::once_flag made;
  RTCDevice device = nullptr;  // one reference held for the life of the process
  std::once_flag started;
  std::thread maker;  // start_terrain_device's thread, if started

  // Runs at exit, after main: a device still being made is waited for, never abandoned.
  ~SharedDevice() {
    if (maker.joinable()) maker.join();
  }
};

SharedDevice& shared_device() {
  static SharedDevice shared;
  return shared;
}

// Makes the device, then commits one empty scene on it: the first commit in a process starts
// TBB's scheduler and Embree's build machinery (~1 ms), which the first real scene built then
// finds ready.
void make_device_and_warm_up() {
  const RTCDevice device = terrain_device();
  if (!device) return;
  RTCScene scene = rtcNewScene(device);
  if (!scene) return;
  rtcCommitScene(scene);
  rtcReleaseScene(scene);
}

}  // namespace

RTCDevice terrain_device() {
  SharedDevice& shared = shared_device();
  // One build thread: Embree's default pool spins a TBB worker per core after the build, which
  // on a 2-core machine steals a core from `ikfix batch` workers; the scenes are small enough
  // (100k triangles: ~20 ms) that a parallel build does not pay for it.
  std::call_once(shared.made, [&shared] { shared.device = rtcNewDevice("threads=1"); });
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
