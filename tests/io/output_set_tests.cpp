// A command's outputs as one set (issue 19, rows 1, 2, 7 and 10): checked against its inputs and
// each other, refused over anything but a regular file, written as one transaction, and their
// temp files removable from a signal handler or by a later --resume.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <future>
#include <stdexcept>
#include <string>

#include "io/error.hpp"
#include "io/file_util.hpp"
#include "io/output_set.hpp"
#include "io/temp_files.hpp"
#include "test_scratch.hpp"

namespace ikfix::io {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = ikfix::test::scratch_path("output_set_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(OutputSet, AnOutputThatIsAnInputIsRefusedNamingBoth) {
  const fs::path dir = fresh_dir("input");
  write_file_atomic(dir / "c.bvh", std::string_view("clip"));
  OutputSet files;
  files.add_input(dir / "c.bvh", "clip");
  const std::string message =
      message_of([&] { files.add_output(dir / "sub" / ".." / "c.bvh", "--report"); });
  EXPECT_NE(message.find("--report"), std::string::npos) << message;
  EXPECT_NE(message.find("(clip)"), std::string::npos) << message;
  EXPECT_NE(message.find((dir / "c.bvh").string()), std::string::npos) << message;
}

TEST(OutputSet, AHardLinkOrSymlinkToAnInputIsThatInput) {
  const fs::path dir = fresh_dir("links");
  write_file_atomic(dir / "t.obj", std::string_view("terrain"));
  fs::create_hard_link(dir / "t.obj", dir / "hard.obj");
  fs::create_symlink(dir / "t.obj", dir / "soft.obj");
  OutputSet files;
  files.add_input(dir / "t.obj", "--terrain");
  EXPECT_THROW(files.add_output(dir / "hard.obj", "-o"), std::invalid_argument);
  EXPECT_THROW(files.add_output(dir / "soft.obj", "--report"), std::invalid_argument);
}

TEST(OutputSet, AnInputAddedAfterTheOutputIsCheckedToo) {
  const fs::path dir = fresh_dir("late_input");
  write_file_atomic(dir / "c.bvh", std::string_view("clip"));
  OutputSet files;
  files.add_output(dir / "c.bvh", "--contacts-out");
  EXPECT_THROW(files.add_input(dir / "c.bvh", "clip"), std::invalid_argument);
}

TEST(OutputSet, InPlaceMayReplaceItsInput) {
  const fs::path dir = fresh_dir("in_place");
  write_file_atomic(dir / "c.bvh", std::string_view("clip"));
  OutputSet files;
  files.add_input(dir / "c.bvh", "clip");
  EXPECT_NO_THROW(files.add_output(dir / "c.bvh", "--in-place", true));
  EXPECT_THROW(files.add_output(dir / "c.bvh", "--report"), std::invalid_argument);
}

TEST(OutputSet, TwoOutputsOnOneNewPathClash) {
  const fs::path dir = fresh_dir("two_new");
  OutputSet files;
  files.add_output(dir / "new" / "r.json", "--report");
  const std::string message =
      message_of([&] { files.add_output(dir / "new" / "." / "r.json", "--junit"); });
  EXPECT_NE(message.find("same file"), std::string::npos) << message;
  EXPECT_NO_THROW(files.add_output(dir / "new" / "j.xml", "--junit"));
}

TEST(OutputSet, OutputsGoOnlyOverRegularFiles) {
  const fs::path dir = fresh_dir("kinds");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  fs::create_directories(dir / "folder.bvh");
  OutputSet files;
  EXPECT_NE(message_of([&] { files.add_output(dir / "fifo", "-o"); }).find("a FIFO"),
            std::string::npos);
  EXPECT_NE(message_of([&] { files.add_output(dir / "folder.bvh", "-o"); }).find("a folder"),
            std::string::npos);
  EXPECT_NE(message_of([&] { files.add_output("/dev/null", "-o"); }).find("a device"),
            std::string::npos);
}

TEST(FileUtilKinds, WriteRefusesAFifoAndADeviceAndSaysWhy) {
  const fs::path dir = fresh_dir("write_kinds");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  EXPECT_THROW(write_file_atomic(dir / "fifo", std::string_view("x")), InputError);
  struct stat st {};
  ASSERT_EQ(::stat((dir / "fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  fs::create_directories(dir / "folder");
  const std::string message =
      message_of([&] { write_file_atomic(dir / "folder", std::string_view("x")); });
  EXPECT_NE(message.find("is a folder"), std::string::npos) << message;
  EXPECT_EQ(message.find("Success"), std::string::npos) << message;
  EXPECT_EQ(entries(dir), 2u);  // no temp file left
}

TEST(OutputTransaction, NothingIsInPlaceBeforeTheCommit) {
  const fs::path dir = fresh_dir("staged");
  {
    OutputTransaction tx;
    write_file_atomic(dir / "a.txt", std::string_view("a"));
    EXPECT_FALSE(fs::exists(dir / "a.txt"));
    EXPECT_EQ(entries(dir), 1u);  // its temp file
    tx.commit();
  }
  EXPECT_EQ(read_file(dir / "a.txt"), "a");
  EXPECT_EQ(entries(dir), 1u);
}

TEST(OutputTransaction, AFailedOutputLeavesEveryOldFileAndNoTemp) {
  const fs::path dir = fresh_dir("failed");
  write_file_atomic(dir / "clip.bvh", std::string_view("old clip"));
  write_file_atomic(dir / "not_a_folder", std::string_view("file"));
  try {
    OutputTransaction tx;
    write_file_atomic(dir / "clip.bvh", std::string_view("new clip"));
    write_file_atomic(dir / "new.json", std::string_view("new"));
    write_file_atomic(dir / "not_a_folder" / "r.json", std::string_view("report"));  // throws
    tx.commit();
    FAIL() << "the report under a file was written";
  } catch (const InputError&) {
  }
  EXPECT_EQ(read_file(dir / "clip.bvh"), "old clip");
  EXPECT_FALSE(fs::exists(dir / "new.json"));
  EXPECT_EQ(entries(dir), 2u);
}

// A file written on another thread joins the transaction of the thread that places it; one
// dropped unplaced leaves its path as it was and no temp file.
TEST(OutputTransaction, AFileWrittenOnAnotherThreadJoinsThePlacingThreadsTransaction) {
  const fs::path dir = fresh_dir("two_halves");
  write_file_atomic(dir / "page.html", std::string_view("old page"));
  const std::string_view pieces[] = {"new ", "page"};
  {
    OutputTransaction tx;
    std::future<WrittenFile> written =
        std::async(std::launch::async, [&] { return write_temp_file(dir / "page.html", pieces); });
    place_written(written.get());
    EXPECT_EQ(read_file(dir / "page.html"), "old page");  // staged: not in place before the commit
    EXPECT_EQ(entries(dir), 2u);
    tx.commit();
  }
  EXPECT_EQ(read_file(dir / "page.html"), "new page");
  EXPECT_EQ(entries(dir), 1u);
  {
    OutputTransaction tx;
    WrittenFile dropped = write_temp_file(dir / "page.html", pieces);
    EXPECT_EQ(entries(dir), 2u);
  }
  EXPECT_EQ(read_file(dir / "page.html"), "new page");
  EXPECT_EQ(entries(dir), 1u);
}

TEST(OutputTransaction, ACommitThatFailsPartwayPutsThePlacedOnesBack) {
  const fs::path dir = fresh_dir("rollback");
  write_file_atomic(dir / "a.txt", std::string_view("old a"));
  fs::create_directories(dir / "b.txt");  // made a folder after the writer checked
  std::vector<StagedFile> files;
  for (const char* name : {"a.txt", "n.txt", "b.txt"}) {
    const fs::path temp = temp_path_for(dir / name);
    write_file_atomic(temp, std::string_view(name));  // stands in for the writer's temp file
    files.push_back({temp, dir / name, TempFileListing(temp)});
  }
  EXPECT_THROW(place_all(files), InputError);
  EXPECT_EQ(read_file(dir / "a.txt"), "old a");
  EXPECT_FALSE(fs::exists(dir / "n.txt"));
  EXPECT_TRUE(fs::is_directory(dir / "b.txt"));
  EXPECT_EQ(entries(dir), 2u);
}

TEST(OutputTransaction, AnInnerTransactionJoinsTheOuterOne) {
  const fs::path dir = fresh_dir("nested");
  OutputTransaction outer;
  {
    OutputTransaction inner;
    write_file_atomic(dir / "a.txt", std::string_view("a"));
    inner.commit();
  }
  EXPECT_FALSE(fs::exists(dir / "a.txt"));
  outer.commit();
  EXPECT_EQ(read_file(dir / "a.txt"), "a");
}

TEST(TempFiles, ListedTempsAreRemovedAsBySignalHandler) {
  const fs::path dir = fresh_dir("signal");
  const fs::path temp = temp_path_for(dir / "out.bvh");
  write_file_atomic(dir / "unlisted", std::string_view("kept"));
  {
    TempFileListing listed(temp);
    FILE* f = std::fopen(temp.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
    remove_temp_files_now();
    EXPECT_FALSE(fs::exists(temp));
  }
  EXPECT_EQ(entries(dir), 1u);
}

TEST(TempFiles, StaleTempsOfGoneProcessesAreRemoved) {
  const fs::path dir = fresh_dir("stale");
  fs::create_directories(dir / "sub");
  // PID 2^22 + 1 is above Linux's largest pid_max: no process has it.
  const std::string gone = std::to_string((1 << 22) + 1);
  for (const fs::path& p :
       {dir / ("." + std::string("a.bvh.tmp-") + gone), dir / "sub" / (".b.bvh.tmp-" + gone + "-3"),
        dir / "a.bvh", dir / ".hidden.tmp-x", dir / (".live.tmp-1-0")})
    write_file_atomic(p, std::string_view("x"));
  EXPECT_TRUE(is_temp_file_name(".a.bvh.tmp-12-0"));
  EXPECT_FALSE(is_temp_file_name("a.bvh"));
  EXPECT_EQ(remove_stale_temp_files(dir, true), 2);
  EXPECT_TRUE(fs::exists(dir / "a.bvh"));
  EXPECT_TRUE(fs::exists(dir / ".hidden.tmp-x"));
  EXPECT_TRUE(fs::exists(dir / ".live.tmp-1-0"));  // PID 1 runs
}

}  // namespace
}  // namespace ikfix::io
