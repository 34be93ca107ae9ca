#pragma once
// A bone map as a JSON file (schema "ikfix-bone-map-v1"), for `ikfix map --save` and
// `ikfix retarget --map`: pairs by joint NAME with role, provenance and confidence, plus the
// unmapped and excluded joints. Reading checks every name against the two skeletons.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/retarget/bone_map.hpp"
#include "core/skeleton.hpp"

namespace ikfix::io {

inline constexpr const char* kBoneMapSchema = "ikfix-bone-map-v1";

// {"schema", "source": {"file", "joints"}, "target": {...}, "pairs": [{"source", "target",
// "target_end_site", "role", "provenance", "confidence"}], "unmapped_source", "unmapped_target",
// "excluded_target", "missing_roles"}. File names are informational ("" to leave out).
nlohmann::ordered_json bone_map_json(const core::BoneMap& map, const core::Skeleton& source,
                                     const core::Skeleton& target,
                                     const std::string& source_file = "",
                                     const std::string& target_file = "");

// Writes bone_map_json atomically. Throws InputError naming the path.
void save_bone_map(const std::filesystem::path& path, const core::BoneMap& map,
                   const core::Skeleton& source, const core::Skeleton& target,
                   const std::string& source_file = "", const std::string& target_file = "");

// Reads a map for these two skeletons. Every pair the file gives has provenance User and the
// file's confidence (1 when absent); "excluded_target" is taken from the file; unmapped lists
// and missing_roles are recomputed. Throws InputError naming `file` and the problem (bad JSON,
// wrong schema, a joint name not in the source/target skeleton, a joint paired twice).
core::BoneMap bone_map_from_json(const nlohmann::json& json, const core::Skeleton& source,
                                 const core::Skeleton& target, const std::string& file);
core::BoneMap load_bone_map(const std::filesystem::path& path, const core::Skeleton& source,
                            const core::Skeleton& target);

}  // namespace ikfix::io
