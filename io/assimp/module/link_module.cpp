// Compiled into every program that links the CMake target `ikfix` (an INTERFACE source): such
// programs link the Assimp module as an ordinary shared library, and this registers it with the
// loader (io/assimp/assimp_module.hpp) before main, so they never dlopen it. The reference to
// the entry point is also what keeps the module linked under -Wl,--as-needed.
#include "io/assimp/assimp_module.hpp"

namespace {
[[maybe_unused]] const bool g_registered =
    (ikfix::io::assimp::use_linked_module(ikfix_assimp_module()), true);
}  // namespace
