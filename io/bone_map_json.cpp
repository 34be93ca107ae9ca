#include "io/bone_map_json.hpp"

#include <cmath>

#include "io/error.hpp"
#include "io/file_util.hpp"

namespace ikfix::io {
namespace {

nlohmann::ordered_json names_of(const std::vector<int>& joints, const core::Skeleton& s) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (int j : joints) out.push_back(s.names[j]);
  return out;
}

int joint_named(const nlohmann::json& value, const core::Skeleton& s, const char* side,
                const std::string& where, const std::string& file) {
  if (!value.is_string())
    throw InputError(file, where + ": \"" + side + "\" must be a joint name (string)");
  const std::string name = value.get<std::string>();
  const int j = s.find(name);
  if (j < 0)
    throw InputError(file, where + ": no joint named '" + name + "' in the " + side + " skeleton");
  return j;
}

}  // namespace

nlohmann::ordered_json bone_map_json(const core::BoneMap& map, const core::Skeleton& source,
                                     const core::Skeleton& target, const std::string& source_file,
                                     const std::string& target_file) {
  nlohmann::ordered_json out;
  out["schema"] = kBoneMapSchema;
  nlohmann::ordered_json src{{"joints", source.joint_count()}},
      tgt{{"joints", target.joint_count()}};
  if (!source_file.empty()) src["file"] = source_file;
  if (!target_file.empty()) tgt["file"] = target_file;
  out["source"] = src;
  out["target"] = tgt;
  nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
  for (const auto& p : map.pairs) {
    nlohmann::ordered_json j;
    j["source"] = source.names[p.source];
    j["target"] = target.names[p.target];
    if (p.target_end_site) j["target_end_site"] = true;
    j["role"] = p.role;
    j["provenance"] = core::provenance_name(p.provenance);
    j["confidence"] = p.confidence;
    pairs.push_back(j);
  }
  out["pairs"] = pairs;
  out["unmapped_source"] = names_of(map.unmapped_source, source);
  out["unmapped_target"] = names_of(map.unmapped_target, target);
  out["excluded_target"] = names_of(map.excluded_target, target);
  out["missing_roles"] = map.missing_roles;
  return out;
}

void save_bone_map(const std::filesystem::path& path, const core::BoneMap& map,
                   const core::Skeleton& source, const core::Skeleton& target,
                   const std::string& source_file, const std::string& target_file) {
  write_file_atomic(path,
                    bone_map_json(map, source, target, source_file, target_file).dump(2) + "\n");
}

core::BoneMap bone_map_from_json(const nlohmann::json& json, const core::Skeleton& source,
                                 const core::Skeleton& target, const std::string& file) {
  if (!json.is_object()) throw InputError(file, "a bone map must be a JSON object");
  if (!json.contains("schema") || json["schema"] != kBoneMapSchema)
    throw InputError(file,
                     std::string("not a bone map: \"schema\" must be \"") + kBoneMapSchema + "\"");
  if (!json.contains("pairs") || !json["pairs"].is_array())
    throw InputError(file, "\"pairs\" must be an array");
  core::BoneMap map;
  std::vector<char> source_used(source.joint_count(), 0), target_used(target.joint_count(), 0);
  int index = 0;
  for (const auto& item : json["pairs"]) {
    const std::string where = "pair " + std::to_string(++index);
    if (!item.is_object())
      throw InputError(file, where + ": must be an object with \"source\" and \"target\"");
    core::BonePair p;
    p.source = joint_named(item.value("source", nlohmann::json()), source, "source", where, file);
    p.target = joint_named(item.value("target", nlohmann::json()), target, "target", where, file);
    if (item.contains("target_end_site")) {
      if (!item["target_end_site"].is_boolean())
        throw InputError(file, where + ": \"target_end_site\" must be true or false");
      p.target_end_site = item["target_end_site"].get<bool>();
    }
    if (item.contains("role")) {
      if (!item["role"].is_string()) throw InputError(file, where + ": \"role\" must be a string");
      p.role = item["role"].get<std::string>();
    }
    if (item.contains("confidence")) {
      const auto& c = item["confidence"];
      if (!c.is_number() || !std::isfinite(c.get<double>()) || c.get<double>() < 0 ||
          c.get<double>() > 1)
        throw InputError(file, where + ": \"confidence\" must be a number in [0, 1]");
      p.confidence = c.get<double>();
    }
    p.provenance = core::MapProvenance::User;
    if (source_used[p.source])
      throw InputError(file,
                       where + ": source joint '" + source.names[p.source] + "' is paired twice");
    source_used[p.source] = 1;
    if (!p.target_end_site) {
      if (target_used[p.target])
        throw InputError(file,
                         where + ": target joint '" + target.names[p.target] + "' is paired twice");
      target_used[p.target] = 1;
    }
    map.pairs.push_back(p);
  }
  if (json.contains("excluded_target")) {
    if (!json["excluded_target"].is_array())
      throw InputError(file, "\"excluded_target\" must be an array of joint names");
    std::vector<char> excluded(target.joint_count(), 0);
    for (const auto& name : json["excluded_target"]) {
      const int j = joint_named(name, target, "target", "excluded_target", file);
      if (target_used[j])
        throw InputError(file, "excluded_target: '" + target.names[j] + "' is also paired");
      excluded[j] = 1;
    }
    for (int j = 0; j < target.joint_count(); ++j)
      if (excluded[j]) map.excluded_target.push_back(j);
  }
  core::refresh_unmapped(map, source.joint_count(), target.joint_count());
  return map;
}

core::BoneMap load_bone_map(const std::filesystem::path& path, const core::Skeleton& source,
                            const core::Skeleton& target) {
  const std::string text = read_file(path);
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range: 1e3778
    throw InputError(path.string(), std::string("not valid JSON: ") + e.what());
  }
  return bone_map_from_json(json, source, target, path.string());
}

}  // namespace ikfix::io
