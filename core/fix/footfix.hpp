#pragma once
// The per-clip foot fix: puts a clip recorded on flat ground onto a terrain.
#include <vector>

#include "core/clip.hpp"
#include "core/diagnostics.hpp"
#include "core/fix/fix_settings.hpp"
#include "core/legs.hpp"
#include "core/parallel.hpp"
#include "core/skeleton.hpp"
#include "core/skin.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

struct FixInput {
  const Skeleton* skeleton = nullptr;
  const Clip* clip = nullptr;
  ClipSpace space;  // clip units/axes -> world metres, Y up
  LegRig rig;
  const Terrain* terrain = nullptr;  // world metres, Y up
  // The character's skinned mesh (null: none): its sole's vertices are kept out of the terrain
  // with the foot's other points (foot_model.hpp).
  const Skin* skin = nullptr;
  FixSettings settings;
  // Threads for the per-frame loops (null: this thread only). The result is the same bit for
  // bit with any runner (core/parallel.hpp).
  const ParallelRunner* runner = nullptr;
};

struct FixResult {
  Clip clip;                         // same skeleton, frames and units as the input (fix_clip only)
  std::vector<char> changed_joints;  // joint_count flags: joints whose local transform changed
  // Frame-major flags [frame * joint_count + joint]: 1 where the fix gave that joint's local
  // rotation in that frame other bits than the input's. Where 0 the rotation is the input's bit
  // for bit, so a writer can keep that key's text without re-encoding it.
  std::vector<char> changed_rotations;
  FixDiagnostics diagnostics;
  // Per frame, per leg: planted flag, target ankle position and solve residual (for tests and
  // `check`). Index [leg][frame].
  std::vector<char> planted[2];
  std::vector<Vec3> ankle_target_ws[2];
};

// The joints whose motion the fix reads: the pelvis, the legs' hip, knee, ankle and toe, and
// all their ancestors, ascending. It reads no other joint's transforms and changes only some of
// these, so a caller may leave the others unread (io::ClipLoadOptions::joints_to_read).
std::vector<int> joints_fix_reads(const Skeleton& skeleton, const LegRig& rig);

// Runs the whole fix (see DESIGN.md "The fix, per clip"). Never throws for valid input; the
// caller validates that skeleton, clip and rig belong together.
FixResult fix_clip(const FixInput& input);

// The same fix written over `motion`, which holds the input motion (input.clip is not read):
// for callers that do not need the unfixed motion afterwards, it saves copying the whole clip
// (7 MB for 2752 frames of 31 joints). result.clip stays empty; `motion` is the fixed clip.
FixResult fix_clip_in_place(const FixInput& input, Clip& motion);

}  // namespace ikfix::core
