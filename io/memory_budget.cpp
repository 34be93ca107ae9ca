#include "io/memory_budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

#include "io/error.hpp"

namespace ikfix::io {
namespace {

std::atomic<std::uint64_t> g_total{0};
std::atomic<std::uint64_t> g_reserved{0};
std::atomic<int> g_clips_at_once{1};

// The model of estimate_clip_bytes, in bytes (fitted in tests/bench/README.md, "Memory").
// Fixed cost of a process: code, thread stacks, the logger, the terrain's small structures.
constexpr double kBaseBytes = 16.0 * (1 << 20);
// Per byte the reader's document holds (ClipCounts::file_bytes).
constexpr double kPerFileByte = 1.0;
// Per value of a BVH frame: its double, while the clip is decoded (a frame's text is found again
// from one offset per frame line).
constexpr double kPerChannelFrame = 8.0;
// Per joint and frame: one core::Transform (80 bytes) for the loaded motion, and the measures'
// share (the world transforms of the joints they follow, each bone's length change), about 20
// bytes per joint of a mocap skeleton. Where the unfixed motion is read after the fix (the glTF
// writer) a second copy of the motion is held, which this does not count.
constexpr double kPerJointFrame = 100.0;
// Per frame, whatever the skeleton: the fix's sampled legs, ground queries, plans and targets.
constexpr double kPerFrame = 3500.0;

std::uint64_t saturate(double bytes) {
  return bytes >= 9.2e18 ? std::uint64_t{1} << 63 : static_cast<std::uint64_t>(bytes);
}

}  // namespace

std::uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
}

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  double number = 0;
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, number, std::chars_format::fixed);
  if (ec != std::errc() || !(number > 0) || !std::isfinite(number)) return std::nullopt;
  std::string unit(stop, end);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double scale = 1;
  if (!unit.empty() && unit != "B") {
    const std::string_view units = "KMGT";
    const std::size_t power = units.find(unit[0]);
    const std::string rest = unit.substr(1);
    if (power == std::string_view::npos || !(rest.empty() || rest == "B" || rest == "IB"))
      return std::nullopt;
    scale = std::pow(1024.0, static_cast<double>(power + 1));
  }
  const double bytes = std::floor(number * scale);
  if (!(bytes >= 1) || bytes > 9.2e18) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

std::string format_bytes(std::uint64_t bytes) {
  static const char* const kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 6) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, value < 10 && unit > 0 ? "%.1f %s" : "%.0f %s", value,
                kUnits[unit]);
  return text;
}

void set_memory_budget(std::uint64_t bytes) { g_total.store(bytes); }
std::uint64_t memory_budget() { return g_total.load(); }
void set_memory_reserved(std::uint64_t bytes) { g_reserved.store(bytes); }
void set_clips_at_once(int clips) { g_clips_at_once.store(clips > 1 ? clips : 1); }

std::uint64_t clip_memory_budget() {
  const std::uint64_t total = g_total.load();
  if (total == 0) return 0;
  const std::uint64_t reserved = g_reserved.load();
  const std::uint64_t left = total > reserved ? total - reserved : 1;
  return std::max<std::uint64_t>(1, left / static_cast<std::uint64_t>(g_clips_at_once.load()));
}

std::uint64_t estimate_clip_bytes(const ClipCounts& c) {
  const double frames = static_cast<double>(c.frames);
  return saturate(kBaseBytes + kPerFileByte * static_cast<double>(c.file_bytes) +
                  frames * (kPerChannelFrame * static_cast<double>(c.channels) +
                            kPerJointFrame * static_cast<double>(c.joints) + kPerFrame));
}

void check_clip_memory(const std::string& file, const ClipCounts& counts) {
  const std::uint64_t budget = clip_memory_budget();
  if (budget == 0) return;
  const std::uint64_t need = estimate_clip_bytes(counts);
  if (need <= budget) return;
  throw InputError(file, "needs about " + format_bytes(need) + " of memory (" +
                             std::to_string(counts.frames) + " frames of " +
                             std::to_string(counts.joints) + " joints), more than the budget of " +
                             format_bytes(budget) + " (--max-memory)");
}

std::uint64_t estimate_terrain_bytes(const std::filesystem::path& path) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return 0;
  // OBJ: the mapped file, its parsed chunks and the merged mesh (about 2x its text, measured);
  // Assimp's scene and our copy of it: taken as 4x, Assimp keeping several copies.
  std::string ext = path.extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  // A prepared terrain is mapped and only the tiles under the clip decoded: 1x.
  const double factor = ext == ".obj" ? 2.0 : ext == ".ikterrain" ? 1.0 : 4.0;
  return saturate(factor * static_cast<double>(size));
}

void reserve_terrain_memory(const std::filesystem::path& path) {
  if (path.empty()) return;
  const std::uint64_t need = estimate_terrain_bytes(path);
  const std::uint64_t total = g_total.load();
  if (total > 0 && need > total)
    throw InputError(path.string(), "needs about " + format_bytes(need) +
                                        " of memory to read, more than the budget of " +
                                        format_bytes(total) + " (--max-memory)");
  set_memory_reserved(need);
}

}  // namespace ikfix::io
