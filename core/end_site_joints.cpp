#include "core/end_site_joints.hpp"

#include <algorithm>
#include <unordered_set>

namespace ikfix::core {

EndSiteJoints add_end_site_joints(const Skeleton& skeleton, std::span<const int> owners) {
  EndSiteJoints out;
  out.skeleton = skeleton;
  out.original_count = skeleton.joint_count();
  Skeleton& s = out.skeleton;
  std::unordered_set<std::string> taken(skeleton.names.begin(), skeleton.names.end());
  std::vector<char> added(out.original_count, 0);
  for (int owner : owners) {
    if (owner < 0 || owner >= out.original_count || !skeleton.end_sites[owner]) continue;
    if (added[owner]) continue;
    added[owner] = 1;
    std::string name = skeleton.names[owner] + "_ankle";
    for (int k = 2; taken.count(name); ++k)
      name = skeleton.names[owner] + "_ankle" + std::to_string(k);
    taken.insert(name);
    Transform rest;  // identity rotation, unit scale: FK lands on the end site
    rest.translation = *skeleton.end_sites[owner];
    s.names.push_back(std::move(name));
    s.parents.push_back(owner);
    s.rest.push_back(rest);
    s.end_sites.emplace_back(std::nullopt);
    out.owners.push_back(owner);
  }
  return out;
}

std::vector<int> leaves_with_end_sites(const Skeleton& skeleton) {
  std::vector<char> has_child(skeleton.joint_count(), 0);
  for (int p : skeleton.parents)
    if (p >= 0) has_child[p] = 1;
  std::vector<int> out;
  for (int j = 0; j < skeleton.joint_count(); ++j)
    if (!has_child[j] && skeleton.end_sites[j]) out.push_back(j);
  return out;
}

std::vector<int> hanging_end_sites(const Skeleton& skeleton,
                                   std::span<const Transform> rest_world) {
  std::vector<int> out;
  for (int j : leaves_with_end_sites(skeleton)) {
    const Vec3 head = rest_world[j].translation;
    const Vec3 tail = transform_point(rest_world[j], *skeleton.end_sites[j]);
    const double length = glm::length(tail - head);
    if (length > 0 && head.y - tail.y > 0.5 * length) out.push_back(j);
  }
  return out;
}

Clip with_end_site_joints(const Clip& clip, const EndSiteJoints& joints) {
  Clip out;
  out.fps = clip.fps;
  out.frame_count = clip.frame_count;
  out.joint_count = joints.skeleton.joint_count();
  out.locals.reserve(static_cast<std::size_t>(out.frame_count) * out.joint_count);
  for (int f = 0; f < clip.frame_count; ++f) {
    const auto frame = clip.frame(f);
    out.locals.insert(out.locals.end(), frame.begin(), frame.end());
    for (int j = joints.original_count; j < out.joint_count; ++j)
      out.locals.push_back(joints.skeleton.rest[j]);
  }
  return out;
}

Clip without_end_site_joints(const Clip& clip, const EndSiteJoints& joints) {
  Clip out;
  out.fps = clip.fps;
  out.frame_count = clip.frame_count;
  out.joint_count = joints.original_count;
  out.locals.reserve(static_cast<std::size_t>(out.frame_count) * out.joint_count);
  for (int f = 0; f < clip.frame_count; ++f) {
    const auto frame = clip.frame(f);
    out.locals.insert(out.locals.end(), frame.begin(), frame.begin() + joints.original_count);
  }
  return out;
}

std::vector<char> without_end_site_joints(std::span<const char> flags,
                                          const EndSiteJoints& joints) {
  return {flags.begin(),
          flags.begin() + std::min<std::size_t>(flags.size(), joints.original_count)};
}

EndSiteJoints keep_leg_end_site_joints(const EndSiteJoints& joints, LegRig& rig) {
  std::vector<int> used;
  for (const Leg& leg : rig.legs)
    for (int j : {leg.hip, leg.knee, leg.ankle, leg.toe})
      if (j >= 0 && joints.is_virtual(j)) used.push_back(joints.owners[j - joints.original_count]);
  Skeleton original = joints.skeleton;
  original.names.resize(joints.original_count);
  original.parents.resize(joints.original_count);
  original.rest.resize(joints.original_count);
  original.end_sites.resize(joints.original_count);
  EndSiteJoints kept = add_end_site_joints(original, used);
  auto remap = [&](int& j) {
    if (j < 0 || !joints.is_virtual(j)) return;
    const int owner = joints.owners[j - joints.original_count];
    const auto it = std::find(kept.owners.begin(), kept.owners.end(), owner);
    j = kept.original_count + static_cast<int>(it - kept.owners.begin());
  };
  for (Leg& leg : rig.legs)
    for (int* j : {&leg.hip, &leg.knee, &leg.ankle, &leg.toe}) remap(*j);
  remap(rig.pelvis);
  return kept;
}

}  // namespace ikfix::core
