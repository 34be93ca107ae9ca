#pragma once
// The FBX reader, scene interpretation and patch writer (ikfix::io::fbx): include this for the
// whole API.
#include "io/fbx/document.hpp"
#include "io/fbx/reader.hpp"
