#pragma once
// The whole retarget of one clip: detect the source's foot contacts, transfer the motion
// (core/retarget/retarget.hpp), then run the foot stage on the target with the source's
// contacts (foot lock, terrain, pelvis, leg IK), and measure the result.
#include <optional>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/fix/fix_settings.hpp"
#include "core/retarget/retarget.hpp"
#include "core/retarget/retarget_metrics.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

struct RetargetPipelineInput {
  RetargetInput transfer;
  const Terrain* terrain = nullptr;  // world metres, Y up; null: flat ground at y = 0
  FixSettings fix;       // the foot stage (its contacts_override is set from the source)
  bool fix_feet = true;  // false: the transfer only (identity checks, debugging)
};

struct RetargetPipelineResult {
  RetargetResult transfer;               // clip straight out of the transfer
  std::vector<char> source_contacts[2];  // planted flags of the source, per leg per frame
  Clip clip;                             // final target motion (target units)
  std::vector<char> animated;            // per target joint: written
  bool feet_fixed = false;
  FixDiagnostics diagnostics;        // of the foot stage (when feet_fixed)
  RetargetQuality transfer_quality;  // measured on the transfer alone (the naive result)
  RetargetQuality quality;           // measured on the final clip
};

// Throws std::invalid_argument when the map or legs are unusable.
RetargetPipelineResult retarget_and_fix(const RetargetPipelineInput& input);

}  // namespace ikfix::core
