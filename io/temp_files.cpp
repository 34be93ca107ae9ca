#include "io/temp_files.hpp"

#include <limits.h>  // PATH_MAX
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <system_error>

namespace ikfix::io {

namespace {

namespace fs = std::filesystem;

// The signal-safe list. A slot's state: 0 free, 1 being filled or emptied, 2 holds a path.
// constinit: zero-filled .bss with no start-up code, so its 1 MiB of paths is never touched (or
// faulted in) until a slot is used. The states sit apart from the paths, so the signal handler's
// scan reads one page instead of one per slot.
constexpr int kTempSlots = 256;
constinit std::atomic<int> g_temp_slot_states[kTempSlots]{};
constinit char g_temp_slot_paths[kTempSlots][PATH_MAX]{};
std::atomic<unsigned long> g_temp_sequence{0};

void remove_and_reraise(int signo) {
  remove_temp_files_now();
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(signo, &action, nullptr);
  ::raise(signo);
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// The PID in a temp file name (0 when it has none).
long temp_file_pid(const std::string& name) {
  const auto at = name.rfind(".tmp-");
  if (at == std::string::npos) return 0;
  const std::string rest = name.substr(at + 5);
  return std::strtol(rest.c_str(), nullptr, 10);
}

bool process_is_gone(long pid) {
  if (pid <= 0) return false;
  if (pid == ::getpid()) return true;  // this run is new: a temp of its PID is an old one's
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

bool remove_if_stale(const fs::directory_entry& entry) {
  std::error_code ec;
  const std::string name = entry.path().filename().string();
  if (!is_temp_file_name(name) || !entry.is_regular_file(ec)) return false;
  if (!process_is_gone(temp_file_pid(name))) return false;
  return fs::remove(entry.path(), ec);
}

}  // namespace

fs::path temp_path_for(const fs::path& path) {
  const auto parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  return parent / ("." + path.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                   std::to_string(g_temp_sequence.fetch_add(1)));
}

bool is_temp_file_name(const std::string& name) {
  if (name.size() < 2 || name[0] != '.') return false;
  const auto at = name.rfind(".tmp-");
  if (at == std::string::npos || at == 0) return false;
  const std::string_view rest = std::string_view(name).substr(at + 5);
  const auto dash = rest.find('-');
  if (dash == std::string_view::npos) return all_digits(rest);  // the older `.NAME.tmp-PID`
  return all_digits(rest.substr(0, dash)) && all_digits(rest.substr(dash + 1));
}

TempFileListing::TempFileListing(const fs::path& path) {
  const std::string& text = path.native();
  if (text.size() >= PATH_MAX) return;
  for (int i = 0; i < kTempSlots; ++i) {
    int expected = 0;
    if (!g_temp_slot_states[i].compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_temp_slot_paths[i], text.c_str(), text.size() + 1);
    g_temp_slot_states[i].store(2);
    slot_ = i;
    return;
  }
}

TempFileListing::~TempFileListing() {
  if (slot_ >= 0) g_temp_slot_states[slot_].store(0);
}

void remove_temp_files_now() {
  for (int i = 0; i < kTempSlots; ++i)
    if (g_temp_slot_states[i].load() == 2) ::unlink(g_temp_slot_paths[i]);
}

void remove_temp_files_on_signals() {
  struct sigaction action {};
  action.sa_handler = remove_and_reraise;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int remove_stale_temp_files(const fs::path& folder, bool recursive) {
  std::error_code ec;
  int removed = 0;
  if (recursive) {
    for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
      removed += remove_if_stale(*it) ? 1 : 0;
  } else {
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
      removed += remove_if_stale(*it) ? 1 : 0;
  }
  return removed;
}

}  // namespace ikfix::io
