// The parent's side of an Assimp import in a child process (io/assimp/import_process.hpp),
// against stand-in children (shell scripts) that crash, hang, run out of memory or answer
// garbage: each is one InputError naming the file, within the timeout, and no child is left
// behind, not even a zombie. The real child (the ikfix binary) is tested end to end in
// tests/e2e/assimp_module_e2e_tests.cpp.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <string>

#include "io/assimp/import_process.hpp"
#include "io/error.hpp"
#include "test_scratch.hpp"

namespace {

namespace as = ikfix::io::assimp;
namespace fs = std::filesystem;

// No child of this process is left, running or zombie.
void expect_no_child_left() {
  int status = 0;
  const pid_t got = waitpid(-1, &status, WNOHANG);
  EXPECT_EQ(got, -1) << "a child was left behind (pid " << got << ")";
  EXPECT_EQ(errno, ECHILD);
}

class ImportProcess : public ::testing::Test {
 protected:
  void TearDown() override {
    as::run_imports_in("");
    as::set_import_timeout(as::kDefaultImportTimeoutSeconds);
  }

  // A stand-in child: a shell script with `body`, used as the import program.
  void use_child(const std::string& name, const std::string& body) {
    const fs::path script = ikfix::test::scratch_dir("import_process_" + name) / "child.sh";
    std::ofstream(script) << "#!/bin/sh\n" << body << "\n";
    chmod(script.c_str(), 0755);
    as::run_imports_in(script.string());
  }

  // The error of importing "terrain.stl" with a 64 MiB limit, and how long it took.
  std::string import_error(double& seconds) {
    as::ImportRequest request;
    request.file = "terrain.stl";
    as::Scene scene;
    std::string assimp_error;
    const auto start = std::chrono::steady_clock::now();
    std::string error = "no error";
    try {
      as::import_in_child(request, 64u << 20, scene, assimp_error);
    } catch (const ikfix::io::InputError& e) {
      error = e.what();
    }
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return error;
  }
  std::string import_error() {
    double seconds = 0;
    return import_error(seconds);
  }

  // The child (use_child) is killed at a 0.3 s timeout: one line, no sooner, not much later,
  // and nothing left behind.
  void expect_killed_at_a_timeout_of_0_3_s() {
    as::set_import_timeout(0.3);
    double seconds = 0;
    EXPECT_EQ(import_error(seconds),
              "terrain.stl: the Assimp import timed out after 0.3 s (--assimp-timeout)");
    EXPECT_GE(seconds, 0.3);
    EXPECT_LT(seconds, 10.0);
    expect_no_child_left();
  }
};

TEST_F(ImportProcess, CrashIsOneLineNamingTheSignal) {
  use_child("crash", "cat >/dev/null; kill -SEGV $$");
  EXPECT_EQ(import_error(),
            "terrain.stl: the Assimp import crashed (signal 11, Segmentation fault)");
  expect_no_child_left();
}

TEST_F(ImportProcess, HangIsKilledAtTheTimeout) {
  use_child("hang", "exec sleep 60");
  expect_killed_at_a_timeout_of_0_3_s();
}

// A child that closes its end but does not exit is killed at the deadline too.
TEST_F(ImportProcess, ChildThatClosesItsSocketAndLingersIsKilled) {
  use_child("linger", "exec sleep 60 <&- >&-");
  expect_killed_at_a_timeout_of_0_3_s();
}

TEST_F(ImportProcess, OutOfMemoryExitNamesTheLimit) {
  use_child("oom", "cat >/dev/null; exit " + std::to_string(as::kChildOutOfMemory));
  EXPECT_EQ(import_error(),
            "terrain.stl: the Assimp import exceeded its memory limit of 64 MB (--max-memory)");
  expect_no_child_left();
}

TEST_F(ImportProcess, GarbageAnswerIsRefused) {
  use_child("garbage", "cat >/dev/null; printf 'not a scene'");
  const std::string error = import_error();
  EXPECT_EQ(error.rfind("terrain.stl: the Assimp import sent a malformed answer: ", 0), 0u)
      << error;
  expect_no_child_left();
}

TEST_F(ImportProcess, MissingProgramIsOneLine) {
  as::run_imports_in("/nonexistent/ikfix");
  EXPECT_EQ(import_error(),
            "terrain.stl: cannot start the Assimp import (/nonexistent/ikfix: No such file or "
            "directory)");
  expect_no_child_left();
}

}  // namespace
