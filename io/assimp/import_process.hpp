#pragma once
// Assimp imports in a child process, so that a file that makes Assimp allocate without end, loop,
// or crash costs one clean error instead of the machine (issue 19).
//
// The child is a fresh program, not a fork: this process may be running threads (the thread
// pool, batch jobs), and only exec gives the child a clean state. posix_spawn starts `program`
// (the ikfix executable: /proc/self/exe) with the argument kImportChildArgument, which main()
// hands to serve_import_child() before doing anything else. The two talk over one socket (the
// child's stdin and stdout): the request goes one way and the imported scene comes back, both in
// the checked binary form of io/assimp/scene_wire.hpp. The child's stderr is this process's.
//
// Limits: the child sets its own address space limit (RLIMIT_AS) to the memory limit it is given
// before Assimp reads anything, and exits with kChildOutOfMemory when an allocation fails; the
// parent kills it (SIGKILL) when the import timeout passes. The child is always reaped before
// the import returns or throws, and it dies with its parent (PR_SET_PDEATHSIG): no leftover, no
// zombie.
#include <cstdint>
#include <string>

#include "io/assimp/imported_scene.hpp"

namespace ikfix::io::assimp {

// argv[1] of the child.
inline constexpr const char* kImportChildArgument = "__assimp-import";
// The child's exit codes other than 0 (an answer was sent).
inline constexpr int kChildOutOfMemory = 3;
inline constexpr int kChildBadRequest = 4;

// Where imports run: in a child started from `program` (which must dispatch
// kImportChildArgument to serve_import_child), or, with an empty path (the default: library users
// and unit tests), in this process. Set once, before any import.
void run_imports_in(const std::string& program);
std::string import_program();

// The wall time a child import may take, in seconds (--assimp-timeout; default 120). 0: no limit.
inline constexpr double kDefaultImportTimeoutSeconds = 120.0;
void set_import_timeout(double seconds);
double import_timeout();

// The parent's side: imports in a child of import_program(), its address space limited to
// `memory_limit_bytes` (0: unlimited). Returns false with Assimp's message in `assimp_error`
// when Assimp cannot read the file. Throws InputError naming request.file when the child cannot
// be started, exceeds its memory, times out, crashes or answers something malformed, and when
// the module cannot be loaded. Thread-safe.
bool import_in_child(const ImportRequest& request, std::uint64_t memory_limit_bytes, Scene& scene,
                     std::string& assimp_error);

// The child's side, for main(): reads the request from stdin, imports, writes the answer to
// stdout. Returns the process's exit code.
int serve_import_child();

}  // namespace ikfix::io::assimp
