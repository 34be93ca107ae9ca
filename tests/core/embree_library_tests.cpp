// core/embree_library: Embree's functions, loaded at run time on first use.
#include <gtest/gtest.h>

#include "core/embree_library.hpp"

namespace ikfix::core {
namespace {

TEST(EmbreeLibrary, LoadsEveryFunctionItListsOnce) {
  const EmbreeFunctions* functions = embree_functions();
  ASSERT_NE(functions, nullptr) << embree_load_problem();
  EXPECT_TRUE(embree_load_problem().empty());
#define IKFIX_EXPECT_LOADED(name) EXPECT_NE(functions->name, nullptr) << #name;
  IKFIX_EMBREE_FUNCTIONS(IKFIX_EXPECT_LOADED)
#undef IKFIX_EXPECT_LOADED
  EXPECT_EQ(embree_functions(), functions);  // loaded once: the same table every call
  EXPECT_EQ(&embree(), functions);
}

TEST(EmbreeLibrary, TheLoadedFunctionsWork) {
  const EmbreeFunctions& rtc = embree();
  const RTCDevice device = rtc.rtcNewDevice("threads=1");
  ASSERT_NE(device, nullptr);
  const RTCScene scene = rtc.rtcNewScene(device);
  ASSERT_NE(scene, nullptr);
  rtc.rtcCommitScene(scene);
  EXPECT_EQ(rtc.rtcGetDeviceError(device), RTC_ERROR_NONE);
  rtc.rtcReleaseScene(scene);
  rtc.rtcReleaseDevice(device);
}

}  // namespace
}  // namespace ikfix::core
