#pragma once
// BVH writer: the original Document with the channels of edited joints replaced.
#include <filesystem>
#include <span>
#include <string>

#include "core/clip.hpp"
#include "core/parallel.hpp"
#include "io/bvh/document.hpp"

namespace ikfix::io::bvh {

// Returns the file text: `doc.text` with the values of every joint j where changed[j] re-encoded
// from `edited` (same joints and frame count as `doc`); every other byte is kept.
//
// - Rotation channels: Euler angles in the joint's own channel order, each chosen as the
//   equivalent closest to the file's value at that frame (no +-360 jumps; gimbal-lock safe).
//   Joints with fewer than 3 rotation channels accept only rotations they can express.
// - Position channels: translation - OFFSET. Axes without a position channel must keep
//   translation == OFFSET; scale must stay 1 (BVH cannot store either).
// - Format: fixed notation with the most decimals any value of that channel has in the file
//   (if a channel never shows a decimal point, the most any channel of the same kind - rotation
//   or position - has); "-0.000" is written "0.000". A value that prints as the same number the
//   file holds keeps its original text, so an unedited frame stays byte-identical.
// Throws InputError (naming doc.source_name, the joint and the frame) on size mismatches,
// non-finite or zero rotations, non-finite results, or values a joint's channels cannot express.
// Frames are encoded independently: with a `runner`, blocks of frames on its threads; the bytes
// (and any error: the first frame's in file order) are the same as without.
// `changed_rotations` (optional; empty: every rotation is re-encoded): frame-major flags
// [frame * joint_count + joint]; where 0, the caller vouches that the edited rotation is the one
// the reader decoded from this document, bit for bit, and the joint's rotation channels in that
// frame keep their text without the Euler conversion. Re-encoding such a rotation prints the
// file's numbers again (to ~1e-13 degree) unless a value shows more decimals than that, so the
// bytes are the same as without flags; the conversion is most of the writer's time, and a fix
// leaves many keys of its joints untouched (the pelvis's rotation, toes that do not bend).
std::string write(const Document& doc, const core::Clip& edited, std::span<const bool> changed,
                  const core::ParallelRunner* runner = nullptr,
                  std::span<const char> changed_rotations = {});

// write() to `path` atomically (temp file + rename, see io::write_file_atomic).
void save(const std::filesystem::path& path, const Document& doc, const core::Clip& edited,
          std::span<const bool> changed, const core::ParallelRunner* runner = nullptr,
          std::span<const char> changed_rotations = {});

}  // namespace ikfix::io::bvh
