#pragma once
// Locating test data. Third-party clips live in ../shared/data (never committed); a test that
// needs them skips with a clear message when the folder is absent, except under CI=true where
// a missing folder is a failure.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace ikfix::test {

inline std::filesystem::path shared_data_dir() { return IKFIX_SHARED_DATA; }
inline std::filesystem::path source_dir() { return IKFIX_SOURCE_DIR; }
inline std::filesystem::path ikfix_binary() { return IKFIX_BINARY; }

inline bool running_in_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

}  // namespace ikfix::test

// Use at the top of a test body that reads ../shared/data.
#define IKFIX_REQUIRE_SHARED_DATA()                                                        \
  do {                                                                                     \
    if (!std::filesystem::is_directory(::ikfix::test::shared_data_dir())) {                \
      if (::ikfix::test::running_in_ci())                                                  \
        FAIL() << "shared test data missing at " << ::ikfix::test::shared_data_dir()       \
               << " (CI=true requires it)";                                                \
      GTEST_SKIP() << "shared test data not found at " << ::ikfix::test::shared_data_dir() \
                   << "; skipping (set up ../shared/data to run this test)";               \
    }                                                                                      \
  } while (0)
