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
std::string write(const Document& doc, const core::Clip& edited, std::span<const bool> changed,
                  const core::ParallelRunner* runner = nullptr);

// write() to `path` atomically (temp file + rename, see io::write_file_atomic).
void save(const std::filesystem::path& path, const Document& doc, const core::Clip& edited,
          std::span<const bool> changed, const core::ParallelRunner* runner = nullptr);

}  // namespace ikfix::io::bvh
