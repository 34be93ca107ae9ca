// Atomic writes: a new file, a replaced output (swapped in), a replaced input (plain rename),
// and the input registry that tells them apart.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "io/error.hpp"
#include "io/file_util.hpp"
#include "test_scratch.hpp"

namespace ikfix::io {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(ikfix::test::scratch_path("file_util_" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::size_t entries() const {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(path)) ++n;
    return n;
  }
};

TEST(FileUtil, WritesANewFileAndItsFolders) {
  const TempDir dir("new");
  const fs::path out = dir.path / "a" / "b" / "out.txt";
  write_file_atomic(out, std::string_view("hello"));
  EXPECT_EQ(read_file(out), "hello");
  EXPECT_EQ(dir.entries(), 1u);  // only "a": no temp file left
}

TEST(FileUtil, ReplacesAnExistingOutputWholeAndLeavesNoTempFile) {
  const TempDir dir("replace");
  const fs::path out = dir.path / "out.txt";
  write_file_atomic(out, std::string_view("first version, longer than the second"));
  EXPECT_FALSE(is_noted_input(out));  // written, never read
  write_file_atomic(out, std::string_view("second"));
  write_file_atomic(out, std::string_view("third"));
  EXPECT_EQ(read_file(out), "third");
  EXPECT_EQ(dir.entries(), 1u);
}

TEST(FileUtil, AFileReadIsANotedInputUnderAnyPathToIt) {
  const TempDir dir("noted");
  const fs::path input = dir.path / "clip.bvh";
  write_file_atomic(input, std::string_view("motion"));
  const fs::path other = dir.path / "other.bvh";
  write_file_atomic(other, std::string_view("other"));
  EXPECT_FALSE(is_noted_input(input));
  EXPECT_EQ(read_file(input), "motion");
  EXPECT_TRUE(is_noted_input(input));
  EXPECT_TRUE(is_noted_input(dir.path / "." / "clip.bvh"));
  const fs::path link = dir.path / "link.bvh";
  fs::create_symlink(input, link);
  EXPECT_TRUE(is_noted_input(link));
  EXPECT_FALSE(is_noted_input(other));
  EXPECT_FALSE(is_noted_input(dir.path / "missing.bvh"));
}

// A deleted input's inode number is often handed to the next new file at once; that file is not
// the input (birth time tells them apart where the file system keeps it, as ext4 and tmpfs do).
TEST(FileUtil, ANewFileOnADeletedInputsInodeIsNotAnInput) {
  const TempDir dir("inode_reuse");
  const fs::path path = dir.path / "clip.bvh";
  int reused = 0;
  for (int attempt = 0; attempt < 20 && reused == 0; ++attempt) {
    write_file_atomic(path, std::string_view("input"));
    ASSERT_EQ(read_file(path), "input");
    ASSERT_TRUE(is_noted_input(path));
    const auto inode = [](const fs::path& p) {
      struct stat st {};
      return ::stat(p.c_str(), &st) == 0 ? st.st_ino : ino_t{0};
    };
    const ino_t before = inode(path);
    fs::remove(path);
    write_file_atomic(path, std::string_view("new"));
    if (inode(path) == before) ++reused;
    EXPECT_FALSE(is_noted_input(path))
        << "attempt " << attempt << (inode(path) == before ? " (same inode)" : "");
    fs::remove(path);
  }
  if (reused == 0) GTEST_SKIP() << "the file system gave no inode number twice in 20 tries";
}

TEST(FileUtil, ReplacesAnInputItReadWithTheNewContent) {
  const TempDir dir("in_place");
  const fs::path input = dir.path / "clip.bvh";
  write_file_atomic(input, std::string_view("original"));
  ASSERT_EQ(read_file(input), "original");  // now a noted input: replaced by a plain rename
  write_file_atomic(input, std::string_view("fixed"));
  EXPECT_EQ(read_file(input), "fixed");
  EXPECT_EQ(dir.entries(), 1u);
}

TEST(FileUtil, RefusesToReplaceADirectory) {
  const TempDir dir("directory");
  const fs::path taken = dir.path / "taken.bvh";
  fs::create_directories(taken);
  EXPECT_THROW(write_file_atomic(taken, std::string_view("data")), InputError);
  EXPECT_TRUE(fs::is_directory(taken));  // a swap would have put the file there
  EXPECT_EQ(dir.entries(), 1u);          // no temp file left
}

TEST(FileUtil, AProducerThatThrowsLeavesTheOldFile) {
  const TempDir dir("throws");
  const fs::path out = dir.path / "out.txt";
  write_file_atomic(out, std::string_view("kept"));
  EXPECT_THROW(write_file_atomic(out,
                                 [](const ByteSink& emit) {
                                   emit("partial");
                                   throw InputError(std::string("out.txt"), "refused");
                                 }),
               InputError);
  EXPECT_EQ(read_file(out), "kept");
  EXPECT_EQ(dir.entries(), 1u);
}

}  // namespace
}  // namespace ikfix::io
