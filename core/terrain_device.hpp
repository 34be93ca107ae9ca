#pragma once
// The process's one Embree device, shared by every Terrain. Making it costs a few milliseconds
// (Embree and TBB loaded (embree_library.hpp) and started, TBB's allocator library loaded,
// ~250 page faults), which a one-clip command can overlap with reading its clip
// (start_terrain_device).
#include <embree3/rtcore.h>

namespace ikfix::core {

// The device (Embree's "threads=1": one build thread, no TBB workers left spinning), made on
// the first call and kept for the life of the process; null when Embree could not make it.
// Thread-safe: a call while another thread makes it waits for that one.
RTCDevice terrain_device();

// Starts making terrain_device() on a thread of its own (and committing one empty scene on it,
// which starts TBB and Embree's builder) and returns at once; nothing after the first call.
// Call finish_terrain_device before the process exits.
void start_terrain_device();

// Waits for start_terrain_device's thread, if any, to end. For main() before it returns: a
// command that fails early could otherwise exit while that thread is still inside Embree, whose
// static objects exit() may already be destroying. Also done at exit by a handler that thread
// registers once Embree is loaded (so it runs before Embree's static objects are destroyed), and
// as a last resort when this file's own static object is destroyed.
void finish_terrain_device();

}  // namespace ikfix::core
