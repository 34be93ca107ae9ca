#pragma once
// The BVH reader and writer (ikfix::io::bvh): include this for the whole API.
//
//   Document doc = bvh::read_file(path);           // throws io::InputError with file:line
//   core::Skeleton skel = bvh::skeleton(doc);
//   core::Clip clip = bvh::clip(doc);
//   ... edit clip, flag the edited joints ...
//   bvh::save(out_path, doc, clip, changed);       // untouched bytes stay byte for byte
#include "io/bvh/document.hpp"
#include "io/bvh/euler.hpp"
#include "io/bvh/new_writer.hpp"
#include "io/bvh/reader.hpp"
#include "io/bvh/writer.hpp"
