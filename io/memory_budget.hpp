#pragma once
// The memory a command may use (--max-memory), and what a clip or a terrain is expected to take
// once read, fixed and written, so that a file whose declared counts ask for more is refused
// before anything of that size is allocated: one InputError naming the file, the estimate and
// the budget.
//
// The budget is process-wide (like the joint cap, io/clip_facts.hpp): the CLI sets the total,
// the terrain's estimate is held for the whole process, and `batch` shares the rest between the
// clips it runs at once. Each clip reader checks its estimate as soon as it knows its counts
// (BVH: after the hierarchy and "Frames:", before the frame values are allocated; FBX, glTF and
// Collada: once the take's frame count is known, before it is sampled).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ikfix::io {

// Physical memory of the machine in bytes (sysconf), or 0 when it cannot be read.
std::uint64_t physical_memory_bytes();

// A size as a user writes it: a whole or decimal number with an optional unit K, M, G or T
// (powers of 1024; "KB", "KiB", "MB", ... and lower case accepted), no unit meaning bytes:
// "512M", "4G", "1.5g", "1048576". nullopt for anything else, zero, or more than 2^63 bytes.
std::optional<std::uint64_t> parse_byte_size(std::string_view text);

// "3.4 GB", "512 MB", "20 kB", "100 B" (powers of 1024, two significant figures or more).
std::string format_bytes(std::uint64_t bytes);

// The total budget in bytes (0: no limit, the default until the CLI sets one).
void set_memory_budget(std::uint64_t bytes);
std::uint64_t memory_budget();
// Bytes set aside for the whole process (the terrain): a clip's share is taken from the rest.
void set_memory_reserved(std::uint64_t bytes);
// How many clips are in memory at once (batch --jobs; 1 otherwise): each gets an equal share.
void set_clips_at_once(int clips);
// A clip's budget: (total - reserved) / clips at once; 0 when there is no limit.
std::uint64_t clip_memory_budget();

// What a clip file declares, before its motion is allocated.
struct ClipCounts {
  // What the reader's document holds while the clip is in use: a BVH's text (its size), an FBX
  // node tree (about 6x the file's size), a glTF's JSON and buffers (its size).
  std::uint64_t file_bytes = 0;
  std::uint64_t frames = 0;
  std::uint64_t joints = 0;
  std::uint64_t channels = 0;  // BVH: values per frame (kept per frame by the patch writer)
};

// Peak bytes one clip needs through read, fix, measure and write (`ikfix run --report`):
// the file, the reader's per-value arrays, the decoded clip and the fix's per-frame arrays.
// A model fitted to peak RSS measurements (tests/bench/README.md).
std::uint64_t estimate_clip_bytes(const ClipCounts& counts);

// Throws InputError(file, "needs about X of memory to fix (F frames of J joints), more than the
// budget of Y (--max-memory)") when estimate_clip_bytes exceeds clip_memory_budget().
void check_clip_memory(const std::string& file, const ClipCounts& counts);

// Peak bytes a terrain file takes to read and build, from its size on disk (OBJ read by our
// parser; other formats through Assimp).
std::uint64_t estimate_terrain_bytes(const std::filesystem::path& path);

// A terrain about to be read: refused (InputError naming the file) when its estimate exceeds
// the total budget; otherwise its estimate is reserved (set_memory_reserved) for the process.
// Does nothing for an empty path (the built-in flat ground) or a file that cannot be sized.
void reserve_terrain_memory(const std::filesystem::path& path);

}  // namespace ikfix::io
