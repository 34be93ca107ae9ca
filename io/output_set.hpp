#pragma once
// A command's outputs as one set: checked against its inputs and each other before anything is
// written (OutputSet), then written as one transaction (OutputTransaction): every output goes to
// a temp file first and all are put in place together, or none is.
//
// Usage, for a command that reads a clip and a terrain and writes a clip and a report:
//   io::OutputSet files;
//   files.add_input(clip, "clip");  files.add_input(terrain, "--terrain");
//   files.add_output(out, "-o");    files.add_output(report, "--report");  // throws on a clash
//   io::OutputTransaction tx;       // write_file_atomic on this thread now stages temp files
//   ... every writer runs as before ...
//   tx.commit();                    // all in place; without it (an exception): none, temps gone
#include <compare>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "io/temp_files.hpp"

namespace ikfix::io {

class OutputSet {
 public:
  // A file the command reads; `role` names it in messages ("clip", "--terrain"). A path that
  // does not exist is skipped (its reader reports it).
  void add_input(const std::filesystem::path& path, const std::string& role);
  // A file the command writes. Throws std::invalid_argument (exit 2), naming both paths, when it
  // is one of the inputs (by device and inode, whatever the path's spelling or links) or another
  // output (existing: by device and inode; new: by the nearest existing folder and the rest of
  // the path), and when it exists and is not a regular file (a device, FIFO, socket or folder).
  // `may_be_input`: this output replaces that input on purpose (--in-place).
  void add_output(const std::filesystem::path& path, const std::string& role,
                  bool may_be_input = false);

 private:
  // Which file a path names: device and inode (of the nearest existing folder, for a new path,
  // with the rest of the path below it).
  struct Key {
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::string rest;
    auto operator<=>(const Key&) const = default;
  };
  struct Named {
    std::string path;
    std::string role;
    bool may_be_input = false;
  };
  std::map<Key, Named> inputs_;
  std::map<Key, Named> outputs_;
};

// A written temp file that is to become `path`.
struct StagedFile {
  std::filesystem::path temp;
  std::filesystem::path path;
  TempFileListing listing;  // until it is placed or removed
};

// While alive, io::write_file_atomic on the thread that made it writes each output to its temp
// file only; commit() then puts them all in place. When commit() fails partway, the outputs
// already placed are put back as they were (old files swapped back, new ones removed). Destroyed
// without a commit (an exception, a failed output): every temp file is removed and every old
// file stays as it was. Per thread (batch workers each have their own); one made inside another on
// the same thread hands its files to the outer one on commit.
class OutputTransaction {
 public:
  OutputTransaction();
  ~OutputTransaction();
  OutputTransaction(const OutputTransaction&) = delete;
  OutputTransaction& operator=(const OutputTransaction&) = delete;

  // Throws io::InputError naming the output that could not be put in place.
  void commit();

  // The transaction of this thread, or null (for write_file_atomic).
  static OutputTransaction* current();
  // Takes a written temp file that is to become its path (write_file_atomic's last step).
  void stage(StagedFile file);

 private:
  std::vector<StagedFile> staged_;
  OutputTransaction* outer_ = nullptr;
  bool committed_ = false;
};

// Puts each temp file at its path in order, all or none (the commit above; write_file_atomic
// outside a transaction calls it with one file). An existing file is swapped with its temp in one
// step (renameat2 RENAME_EXCHANGE: the path holds a whole file throughout) and removed once all
// are placed; a failure swaps the placed ones back. A file this process read (--in-place) gets
// its replacement flushed to disk first. Throws io::InputError naming the path that failed; then
// every temp is removed and every path is as it was.
void place_all(std::vector<StagedFile>& files);

}  // namespace ikfix::io
