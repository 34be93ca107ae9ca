#pragma once
// The glTF 2.0 reader and patch writer (ikfix::io::gltf): include this for the whole API.
//
//   auto doc = std::make_shared<const gltf::Document>(gltf::read_file(path));  // InputError on bad
//   input gltf::Take take = gltf::extract_take(doc, gltf::find_animation(*doc, "Walk"));
//   ... edit take.clip, flag the edited joints ...
//   gltf::TakeEdit edit{&take.layout, &take.clip, &edited, changed};
//   gltf::save(out_path, *doc, {&edit, 1});   // only the edited joints' samplers change
#include "io/gltf/document.hpp"
#include "io/gltf/reader.hpp"
#include "io/gltf/sampling.hpp"
#include "io/gltf/writer.hpp"
