#pragma once
// The "retarget" section of a retarget report: the bone map with provenance and confidence,
// unmapped and excluded bones, the scales used, rest alignment per bone, and the quality of the
// transfer alone ("naive") and of the final clip (after the foot stage). Lengths metres, speeds
// m/s, angles degrees (the report is read by people), frames 0-based.
#include <nlohmann/json.hpp>

#include "core/retarget/bone_map.hpp"
#include "core/retarget/retarget_pipeline.hpp"
#include "core/skeleton.hpp"

namespace ikfix::io {

nlohmann::ordered_json bone_pairs_json(const core::BoneMap& map, const core::Skeleton& source,
                                       const core::Skeleton& target);

nlohmann::ordered_json retarget_quality_json(const core::RetargetQuality& quality);

nlohmann::ordered_json retarget_section_json(const core::RetargetPipelineResult& result,
                                             const core::BoneMap& map, const core::Skeleton& source,
                                             const core::Skeleton& target);

}  // namespace ikfix::io
