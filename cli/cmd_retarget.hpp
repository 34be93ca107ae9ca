#pragma once
// `ikfix retarget SOURCE --to CHARACTER [-o OUT] [--terrain T] [--map map.json] [--report r.json]`:
// the source clip's motion on another skeleton, mapped automatically, feet planted by the foot
// stage with the source's contacts, written into the character's file as a new take (FBX, glTF)
// or as a BVH with the character's hierarchy.
#include <CLI/CLI.hpp>

namespace ikfix::cli {

void add_retarget_command(CLI::App& app, int& exit_code);

}  // namespace ikfix::cli
