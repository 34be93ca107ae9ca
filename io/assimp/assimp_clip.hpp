#pragma once
// Clips in formats ikfix cannot patch (Collada .dae, ...), read through Assimp with the safe
// settings (aiProcess_ValidateDataStructure only; no skeleton meshes; FBX pivots collapsed).
// Read-only: ikfix refuses to write them back, because no Assimp exporter keeps the rest of
// such a file intact.
#include <filesystem>

#include "io/clip_io.hpp"

namespace ikfix::io::assimp {

// File extensions read through Assimp for clips ("dae").
bool is_assimp_clip(const std::filesystem::path& path);

// Loads one animation (ClipLoadOptions::take: its name or 0-based index; the first when unset).
// Joints: the animated nodes, the nodes skinned meshes name as bones, and their ancestors.
// Frame rate: the animation's key spacing snapped to a common rate (else 30 fps); Assimp's own
// conversions (Collada up axis on the root node) are kept; the unit is guessed from the rest
// height. LoadedClip::format is the extension ("dae"); LoadedClip::document is empty.
// Throws InputError naming the file (Assimp's message on one line when it cannot read it).
LoadedClip load(const std::filesystem::path& path, const ClipLoadOptions& options);

}  // namespace ikfix::io::assimp
