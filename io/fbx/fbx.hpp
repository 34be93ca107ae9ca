#pragma once
// The FBX reader, scene interpretation and patch writer (ikfix::io::fbx): include this for the
// whole API.
//
//   Document doc = fbx::read_file(path);        // node tree, byte-exact (reader.hpp)
//   Scene scene = fbx::read_scene(doc);         // models, takes, curves (scene.hpp)
//   auto cd = fbx::read_clip_document(path);    // + core Skeleton; sample_take (clip.hpp)
//   fbx::patch_take(*cd, take, edited, changed); fbx::write(cd->doc);   (patch.hpp)
//   fbx::verify_readback(bytes, ...);           // the written file proves itself
//   (verify_readback.hpp) fbx::verify_with_assimp(bytes, ...);        // the same through Assimp
//   (verify.hpp)
// io::load_clip / save_clip reach all of this through fbx_clip_io.hpp.
#include "io/fbx/clip.hpp"
#include "io/fbx/document.hpp"
#include "io/fbx/patch.hpp"
#include "io/fbx/reader.hpp"
#include "io/fbx/scene.hpp"
#include "io/fbx/verify.hpp"
#include "io/fbx/verify_readback.hpp"
