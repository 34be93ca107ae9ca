#pragma once
// An Assimp import's request and result as bytes: what crosses the socket between ikfix and the
// child process that imports (io/assimp/import_process.hpp). Both ends are the same build of the
// same program, so numbers travel in the machine's own byte order and reals bit for bit: a scene
// decoded here is equal, value for value, to the one the child imported.
//
// The decoder trusts nothing it receives: every count is checked against the bytes left before
// anything is allocated, every index against what it indexes (node children form a tree in
// depth-first order, as the module writes them; mesh indices, triangle corners), and the bytes
// must end where the scene does. Anything else is a WireError.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "io/assimp/imported_scene.hpp"

namespace ikfix::io::assimp::wire {

class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the parent asks of the child.
struct ChildRequest {
  ImportRequest request;  // request.bytes points at `bytes` when the import reads from memory
  std::string bytes;
  std::uint64_t memory_limit_bytes = 0;  // the child's address space (RLIMIT_AS); 0: no limit
};

std::string encode_request(const ImportRequest& request, std::uint64_t memory_limit_bytes);
// Fills `out` (whose request.bytes then points into out.bytes). Throws WireError.
void decode_request(std::string_view data, ChildRequest& out);

enum class Status : std::uint8_t {
  imported = 0,        // a scene follows
  assimp_failed = 1,   // Assimp could not read the file: its message follows
  module_missing = 2,  // the Assimp module could not be loaded: why follows
  out_of_memory = 3,   // Assimp failed at its memory limit: its message follows
};

// The child's answer, written piece by piece through `flush` (called with at most ~64 kB at a
// time, and once more at the end), so the scene is never held twice in the child. `scene` is
// read only for Status::imported.
void encode_result(Status status, const std::string& message, const Scene& scene,
                   const std::function<void(std::string_view)>& flush);

struct Result {
  Status status = Status::imported;
  std::string message;
};
// Decodes a whole answer; the scene goes to `scene` (emptied for any other status). Throws
// WireError naming what was wrong and at which byte.
Result decode_result(std::string_view data, Scene& scene);

}  // namespace ikfix::io::assimp::wire
