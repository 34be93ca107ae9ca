// The child's side of an import in a child process (import_process.hpp): a program started only
// to import one file. It reads the request, loads the Assimp module, limits its own address
// space, imports and writes the answer; an allocation that fails ends it with kChildOutOfMemory.
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <new>
#include <string>
#include <system_error>

#include "io/assimp/assimp_module.hpp"
#include "io/assimp/import_process.hpp"
#include "io/assimp/scene_wire.hpp"
#include "io/error.hpp"

namespace ikfix::io::assimp {
namespace {

// Whatever fails to allocate under the limit (Assimp, the copy, the answer): one exit code the
// parent names, never a half-written answer read as a whole one.
[[noreturn]] void out_of_memory() { _exit(kChildOutOfMemory); }

bool read_all(int fd, std::string& out) {
  char buffer[64 * 1024];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n == 0) return true;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    out.append(buffer, static_cast<std::size_t>(n));
  }
}

void write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(kChildBadRequest);  // the parent is gone or stopped reading
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

// The address space this process has now (program, libraries, Assimp): /proc/self/statm's size.
std::uint64_t address_space_bytes() {
  unsigned long long pages = 0;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%llu", &pages) != 1) pages = 0;
    std::fclose(statm);
  }
  return pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

// The most address space this process has had (/proc/self/status VmPeak), 0 when unknown.
std::uint64_t peak_address_space_bytes() {
  unsigned long long kib = 0;
  if (FILE* status = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, status))
      if (std::sscanf(line, "VmPeak: %llu kB", &kib) == 1) break;
    std::fclose(status);
  }
  return kib * 1024;
}

// The size of what the import reads: the bytes given, or the file's size (0 when unknown).
std::uint64_t input_bytes(const ImportRequest& request) {
  if (request.bytes) return request.bytes->size();
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(request.file, ec);
  return ec ? 0 : size;
}

// Whether a failed import ran into the address space limit `limit_total`. Some of Assimp's
// parsers (its XML reader) allocate with malloc and report a failure as bad input ("malformed
// XML") instead of calling the new handler. A failed request is not in the peak, so the peak
// stopped short of the limit by less than that request, and the largest requests of an import
// are about its input's size (the file read whole, arrays as long as its elements): a failure
// whose peak came within twice the input's size, or a quarter of the limit, of it is taken as
// the limit's.
bool failed_at_limit(std::uint64_t limit_total, std::uint64_t limit, const ImportRequest& request) {
  const std::uint64_t margin = std::max<std::uint64_t>(limit / 4, 2 * input_bytes(request));
  const std::uint64_t peak = peak_address_space_bytes();
  return peak > 0 && peak + margin >= limit_total;
}

// The import may grow the address space by `bytes` beyond what the loaded program takes, so the
// limit means the same whatever the size of ikfix and its libraries.
// Returns the limit set on the whole address space (0: none).
std::uint64_t limit_address_space(std::uint64_t bytes) {
  if (bytes == 0) return 0;
  const std::uint64_t total = address_space_bytes() + bytes;
  const rlimit limit{static_cast<rlim_t>(total), static_cast<rlim_t>(total)};
  return setrlimit(RLIMIT_AS, &limit) == 0 ? total : 0;
}

}  // namespace

int serve_import_child() {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // the import ends with the process that asked for it
  std::string input;
  wire::ChildRequest request;
  try {
    if (!read_all(STDIN_FILENO, input)) return kChildBadRequest;
    wire::decode_request(input, request);
  } catch (const wire::WireError&) {
    return kChildBadRequest;
  }
  std::string().swap(input);
  const auto answer = [](std::string_view piece) { write_all(STDOUT_FILENO, piece); };
  const Scene none;
  try {
    load_module(request.request.file);  // before the limit: loading libassimp is not the import
  } catch (const InputError& e) {
    wire::encode_result(wire::Status::module_missing, e.cause(), none, answer);
    return 0;
  }
  const std::uint64_t limit_total = limit_address_space(request.memory_limit_bytes);
  std::set_new_handler(out_of_memory);
  Scene scene;
  std::string assimp_error;
  const bool ok = import_scene_here(request.request, scene, assimp_error);
  wire::Status status = ok ? wire::Status::imported : wire::Status::assimp_failed;
  if (!ok && limit_total > 0 &&
      failed_at_limit(limit_total, request.memory_limit_bytes, request.request))
    status = wire::Status::out_of_memory;
  wire::encode_result(status, assimp_error, ok ? scene : none, answer);
  return 0;
}

}  // namespace ikfix::io::assimp
