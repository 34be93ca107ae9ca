// core/embree_library: Embree's functions, loaded at run time on first use.
#include <gtest/gtest.h>

#include <string>

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

TEST(EmbreeLibrary, AMissingLibraryIsNamedInOneLine) {
  const LoadedEmbree loaded = load_embree("libikfix-no-such-embree.so.3", "");
  EXPECT_FALSE(loaded.loaded);
  EXPECT_EQ(loaded.functions.rtcNewDevice, nullptr);
  EXPECT_NE(loaded.problem.find("cannot load Embree (libikfix-no-such-embree.so.3)"),
            std::string::npos)
      << loaded.problem;
  EXPECT_EQ(loaded.problem.find('\n'), std::string::npos) << loaded.problem;
}

TEST(EmbreeLibrary, ALibraryWithoutEmbreesFunctionsIsRefused) {
  // zlib: loads (ikfix links it), has none of Embree's functions.
  const LoadedEmbree loaded = load_embree("libz.so.1", "");
  EXPECT_FALSE(loaded.loaded);
  EXPECT_NE(loaded.problem.find("Embree (libz.so.1) lacks rtcNewDevice"), std::string::npos)
      << loaded.problem;
}

TEST(EmbreeLibrary, ThePathServesWhenTheSonameIsNotFound) {
  const LoadedEmbree loaded = load_embree("libikfix-no-such-embree.so.3", IKFIX_TEST_EMBREE_PATH);
  ASSERT_TRUE(loaded.loaded) << loaded.problem;
  EXPECT_TRUE(loaded.problem.empty());
  EXPECT_EQ(loaded.functions.rtcNewDevice, embree().rtcNewDevice);  // the same library, loaded once
}

}  // namespace
}  // namespace ikfix::core
