#pragma once
// What `ikfix batch` works on: its arguments (folders, globs, @lists, files) expanded to a sorted
// list of clips, each with the path its output takes under --out-dir, and the shard of that list
// one process takes. No clip is read here: only names and sizes.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ikfix::cli {

struct BatchClip {
  std::filesystem::path input;  // as the user named it (folder + relative path), lexically normal
  std::filesystem::path
      relative;  // mirrored under --out-dir (same name and extension as the input, or --format's)
  std::uintmax_t size = 0;  // bytes, for balancing shards and scheduling
};

// Expands batch arguments, in any mix:
//  - a folder: every supported clip below it (recursive; hidden folders and `skip` are left out),
//    mirrored relative to that folder;
//  - a glob (`*`, `?`, `[...]`; not `**`): the supported clips it matches (folders it matches are
//    walked as above), mirrored relative to the matches' common parent folder;
//  - `@FILE`: one path per line (blank lines and `#` comments skipped; relative paths are relative
//    to the list's folder), mirrored relative to the entries' common parent folder;
//  - a file: taken whatever its extension (an unsupported one fails as that clip's error); the
//    plain files among the arguments are mirrored relative to their common parent folder.
// The result is sorted by input path, without duplicates. Throws std::invalid_argument (bad
// usage: exit 2) for a missing path, an unreadable or empty list, a glob that matches nothing, or
// two inputs that would write the same output.
std::vector<BatchClip> expand_batch_inputs(const std::vector<std::string>& arguments,
                                           const std::filesystem::path& skip = {});

// `--format EXT`: every output gets extension .EXT (walk.fbx -> walk.bvh). Throws
// std::invalid_argument when two clips would then write the same output (walk.fbx, walk.bvh).
void set_output_format(std::vector<BatchClip>& clips, const std::string& format);

// `--shard i/N` (1-based). Throws std::invalid_argument on a malformed value.
struct Shard {
  int index = 1;
  int count = 1;
};
Shard parse_shard(const std::string& text);

// The clips of one shard, still sorted by path. Balanced by size: clips are dealt largest first to
// the shard with the fewest bytes so far (ties: path order, then the lower shard), so the shards
// finish together. Deterministic: every shard computes the same partition from the same list.
std::vector<BatchClip> select_shard(const std::vector<BatchClip>& clips, const Shard& shard);

}  // namespace ikfix::cli
