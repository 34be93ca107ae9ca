#pragma once
// Where on a terrain a clip stands: the horizontal rectangle its fix and measures query, known
// from the clip alone, so that a large terrain can be read only there (io/terrain_io).
#include <span>

#include "core/clip.hpp"
#include "core/parallel.hpp"
#include "core/skeleton.hpp"
#include "core/xz_grid.hpp"

namespace ikfix::core {

// Metres added around the joints' horizontal bounds, plus half their vertical extent (the
// legs' reach): the fixed joints stay within a leg's length of the input's (the pelvis only
// drops, a plant moves at most 0.3 m for a reference leg), and a ground query must lie
// kTerrainCropMargin (0.05 m) inside the part read. A query past it still gets the whole
// terrain's answer: the caller reads the whole terrain (TerrainPartTooSmall). A caller that
// also reads the terrain around the joints for a view (the HTML report's 1 m) adds that
// distance (`view_margin_m`).
inline constexpr double kFootprintMargin = 0.25;

// The xz bounds (world metres) of the world positions of `joints` (all when empty) over every
// frame of `clip` placed by `space`, grown by kFootprintMargin + `view_margin_m` plus half the
// positions' vertical extent, or half the joints' vertical extent in the skeleton's rest pose
// where that is more. Non-finite positions are skipped; none finite: an empty box (min > max).
// Frames are posed on `runner`'s threads (null: this one); the box is the same bits either way.
XzBox clip_footprint(const Skeleton& skeleton, const Clip& clip, const ClipSpace& space,
                     std::span<const int> joints, double view_margin_m = 0.0,
                     const ParallelRunner* runner = nullptr);

}  // namespace ikfix::core
