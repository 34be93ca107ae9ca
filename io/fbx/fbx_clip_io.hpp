#pragma once
// FBX behind io::load_clip / io::save_clip / io::save_takes.
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "io/clip_io.hpp"

namespace ikfix::io::fbx {

// Loads one take (ClipLoadOptions::take: name or 0-based index; the first take when unset).
// LoadedClip::document holds an fbx::ClipDocument shared by every take loaded from it.
// Units: GlobalSettings UnitScaleFactor (cm per unit) unless the skeleton it gives is not
// human-sized (0.3-10 m tall), in which case the unit is guessed from the rest height - also
// trying each common unit divided by the scale of group nodes above the skeleton (CMU files:
// CMU units under a x100 root) - and the report says why. Up axis: GlobalSettings UpAxis and
// UpAxisSign. Throws InputError.
LoadedClip load(const std::filesystem::path& path, const ClipLoadOptions& options);

// Every take that animates the skeleton (ClipLoadOptions::take ignored), in file order, all
// sharing one ClipDocument (so they can be written together by `save`). Takes whose layer
// animates nothing are skipped; when none does, the same InputError as `load`.
std::vector<LoadedClip> load_all(const std::filesystem::path& path, const ClipLoadOptions& options);

// A target character (io::load_character): every bone of the armature (fbx::JointSet::armature),
// the take ClipLoadOptions::take names, else the first take that animates it, else one frame of
// the rest pose (take_index -1). Units and axes as `load`. Throws InputError.
LoadedClip load_character(const std::filesystem::path& path, const ClipLoadOptions& options);

// Patches the edited takes into a copy of the original file and writes it atomically, then
// reads the result back through Assimp and compares the edited joints with the intended poses
// (0.1 mm, 0.01 degrees); a mismatch is an InputError and nothing is written.
void save(const std::filesystem::path& path, std::span<const TakeEdit> edits);

// io::save_new_take for FBX: fbx::add_take on a copy of the character's document, read back
// through Assimp and compared with `clip` as `save` does, then written atomically.
void save_new_take(const std::filesystem::path& path, const LoadedClip& character,
                   const core::Clip& clip, std::span<const char> animated,
                   const std::string& take_name, bool replace_takes);

}  // namespace ikfix::io::fbx
