// core/terrain_device: the process's one Embree device, made once, early or on first use.
#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <vector>

#include "core/embree_library.hpp"
#include "core/terrain.hpp"
#include "core/terrain_device.hpp"

namespace ikfix::core {
namespace {

TEST(TerrainDevice, StartedEarlyIsTheDeviceEveryCallGets) {
  start_terrain_device();
  start_terrain_device();  // a second start makes no second device
  const RTCDevice device = terrain_device();
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(terrain_device(), device);
  EXPECT_EQ(embree().rtcGetDeviceError(device), RTC_ERROR_NONE);
}

TEST(TerrainDevice, FinishedItIsStillTheSameDevice) {
  start_terrain_device();
  finish_terrain_device();
  finish_terrain_device();  // nothing left to wait for: returns at once
  const RTCDevice device = terrain_device();
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(terrain_device(), device);
}

TEST(TerrainDevice, CallsFromManyThreadsGetOneDevice) {
  std::vector<std::future<RTCDevice>> calls;
  for (int n = 0; n < 8; ++n) calls.push_back(std::async(std::launch::async, terrain_device));
  const RTCDevice first = calls.front().get();
  ASSERT_NE(first, nullptr);
  for (std::size_t n = 1; n < calls.size(); ++n) EXPECT_EQ(calls[n].get(), first);
}

TEST(TerrainDevice, TerrainsShareItAndOutliveNothing) {
  // Two terrains on the shared device, the first destroyed before the second is queried: each
  // holds a reference of its own, so releasing one leaves the device to the other.
  TerrainMesh mesh;
  mesh.vertices = {{-1, 0, -1}, {1, 0, -1}, {1, 0, 1}, {-1, 0, 1}};
  mesh.triangles = {{0, 2, 1}, {0, 3, 2}};
  auto first = std::make_unique<Terrain>(mesh);
  const Terrain second(mesh);
  first.reset();
  const GroundHit hit = second.ground_at(0.25, 0.25);
  ASSERT_TRUE(hit.hit);
  EXPECT_DOUBLE_EQ(hit.height, 0.0);
  EXPECT_EQ(embree().rtcGetDeviceError(terrain_device()), RTC_ERROR_NONE);
}

}  // namespace
}  // namespace ikfix::core
