#pragma once
// Toe tips after the rotation transfer. A target toe copies its source toe's direction, so a toe
// much longer than the source's (Kenney's 21 cm against CMU's 6 cm), pitched down as far as the
// source's on a foot standing on its toes, puts its tip through the floor that the source's tip
// only touches. This pass turns such a toe up about its ball, in the toe's vertical plane, just
// enough for its tip to stand as high as the source's tip does, in target lengths above the
// target's ground level (the ground shift's mapping, ToeReachJob::level_offset_m, so a source
// tip on the ground keeps the target's on it); a toe whose tip is already that high is left as
// transferred.
#include <optional>
#include <span>
#include <vector>

#include "core/clip.hpp"
#include "core/legs.hpp"
#include "core/retarget/bone_map.hpp"
#include "core/skeleton.hpp"

namespace ikfix::core {

struct ToeChain {
  int leg = 0;  // 0 left, 1 right
  int source_toe = -1, target_toe = -1;
  Vec3 source_tip_ls{0.0}, target_tip_ls{0.0};  // the tips in their toe's frame, file units
};

// The toe tip of `toe` in its own frame: its end site, else its only child when that child is
// a leaf (an FBX "*_end" joint); none when the toe has neither.
std::optional<Vec3> toe_tip_ls(const Skeleton& skeleton, int toe);

// The legs whose toe joints are mapped onto each other (the legs' own toes) and have a tip on
// both sides.
std::vector<ToeChain> toe_chains(const BoneMap& map, const Skeleton& source,
                                 const LegRig& source_legs, const Skeleton& target,
                                 const LegRig& target_legs);

// What the pass reads: the source clip and the target's, transferred and shifted to the ground.
struct ToeReachJob {
  const Skeleton* source = nullptr;
  const Clip* source_clip = nullptr;
  Transform source_to_world;
  const Skeleton* target = nullptr;
  Transform target_to_world;
  std::span<const ToeChain> toes;
  double scale = 1.0;  // target lengths per source length (the root scale)
  // Target height (world metres) of a source height y: scale * y + level_offset_m (the ground
  // shift's mapping: the target's ground level minus scale times the source's).
  double level_offset_m = 0.0;

  // Rewrites the toes' local rotations in `target_clip` where their tips are too low; returns
  // the number of toe-frames turned up.
  int run(Clip& target_clip) const;
};

}  // namespace ikfix::core
