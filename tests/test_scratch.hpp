#pragma once
// Scratch files for tests. Every folder or file a test process writes lives under one folder
// per process, <tmp>/ikfix_tests_<pid>/, so tests running side by side (ctest -j, two checkouts
// on one machine) never share a path.
//
// The folder is removed when the process exits with every test passed. It is kept, and named
// on stderr, when a test failed, so the outputs can be inspected, or when
// IKFIX_KEEP_TEST_FILES is set. Before this, each of the ~750 test processes of a CTest run
// left its folders in /tmp for good.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace ikfix::test {

namespace scratch_detail {

inline std::filesystem::path& root_path() {
  static std::filesystem::path root;
  return root;
}

// At exit: GoogleTest's UnitTest is heap-allocated and never destroyed, so asking it whether
// the tests passed is safe here.
inline void remove_root_if_passed() {
  const std::filesystem::path& root = root_path();
  if (root.empty()) return;
  if (std::getenv("IKFIX_KEEP_TEST_FILES")) return;
  if (!::testing::UnitTest::GetInstance()->Passed()) {
    std::fprintf(stderr, "test files kept in %s\n", root.c_str());
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
}

}  // namespace scratch_detail

// This process's scratch folder, created (and its removal at exit registered) on first use.
inline const std::filesystem::path& scratch_root() {
  std::filesystem::path& root = scratch_detail::root_path();
  if (root.empty()) {
    root = std::filesystem::temp_directory_path() / ("ikfix_tests_" + std::to_string(::getpid()));
    std::filesystem::create_directories(root);
    std::atexit(scratch_detail::remove_root_if_passed);
  }
  return root;
}

// An empty folder `name` inside the scratch folder (emptied if an earlier test in this process
// used the same name).
inline std::filesystem::path scratch_dir(const std::string& name) {
  const std::filesystem::path dir = scratch_root() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A path `name` inside the scratch folder; nothing is created there.
inline std::filesystem::path scratch_path(const std::string& name) { return scratch_root() / name; }

}  // namespace ikfix::test
