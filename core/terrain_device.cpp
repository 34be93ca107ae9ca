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

}  // namespace

RTCDevice terrain_device() {
  SharedDevice& shared = shared_device();
  // One build thread: Embree's default pool spins a TBB worker per core after the build, which
  // on a 2-core machine steals a core from `ikfix batch` workers; the scenes are small enough
  // (100k triangles: ~20 ms) that a parallel build does not pay for it.
  std::call_once(shared.made, [&shared] { shared.device = rtcNewDevice("threads=1"); });
  return shared.device;
}

void start_terrain_device() {
  SharedDevice& shared = shared_device();
  std::call_once(shared.started, [&shared] { shared.maker = std::thread(terrain_device); });
}

}  // namespace ikfix::core
