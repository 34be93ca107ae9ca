#include "core/retarget/toe_reach.hpp"

#include <algorithm>
#include <cmath>

#include "core/fk.hpp"

namespace ikfix::core {

std::optional<Vec3> toe_tip_ls(const Skeleton& sk, int toe) {
  if (toe < 0) return std::nullopt;
  if (sk.end_sites[toe]) return *sk.end_sites[toe];
  const std::vector<int> kids = sk.children(toe);
  if (kids.size() == 1 && sk.children(kids[0]).empty()) return sk.rest[kids[0]].translation;
  return std::nullopt;
}

std::vector<ToeChain> toe_chains(const BoneMap& map, const Skeleton& source,
                                 const LegRig& source_legs, const Skeleton& target,
                                 const LegRig& target_legs) {
  std::vector<ToeChain> chains;
  for (int l = 0; l < 2; ++l) {
    const int s = source_legs.legs[l].toe, t = target_legs.legs[l].toe;
    bool mapped = false;
    for (const BonePair& p : map.pairs)
      mapped = mapped || (p.source == s && p.target == t && !p.target_end_site);
    const auto source_tip = toe_tip_ls(source, s);
    const auto target_tip = toe_tip_ls(target, t);
    if (s < 0 || t < 0 || !mapped || !source_tip || !target_tip) continue;
    chains.push_back({l, s, t, *source_tip, *target_tip});
  }
  return chains;
}

namespace {

// Turns the toe of `chain` (world transform `toe_ws`, parent's `parent_ws`) up about its ball
// until its tip is at `want_y` (world metres) or above; returns its new local rotation, or
// nothing when the tip is already that high.
std::optional<Quat> raised_toe(const ToeChain& chain, const Transform& toe_ws,
                               const Transform& parent_ws, double want_y) {
  const Vec3 ball = toe_ws.translation;
  const Vec3 v = transform_point(toe_ws, chain.target_tip_ls) - ball;
  const double length = glm::length(v);
  if (!(ball.y + v.y < want_y) || !(length > 1e-9)) return std::nullopt;
  const Vec3 axis = glm::cross(v, Vec3(0.0, 1.0, 0.0));
  const double axis_length = glm::length(axis);
  if (!(axis_length > 1e-9 * length)) return std::nullopt;  // a vertical toe has no pitch plane
  const double pitch = std::asin(std::clamp(v.y / length, -1.0, 1.0));
  const double wanted = std::asin(std::clamp((want_y - ball.y) / length, -1.0, 1.0));
  if (!(wanted > pitch)) return std::nullopt;
  const Quat turned = axis_angle(axis / axis_length, wanted - pitch) * toe_ws.rotation;
  return glm::normalize(glm::inverse(parent_ws.rotation) * turned);
}

// Per chain and frame: the lowest the target tip may go (world Y): the source tip's height in
// target lengths above the target's ground level (ToeReachJob::level_offset_m).
std::vector<std::vector<double>> lowest_tips(const ToeReachJob& job) {
  std::vector<std::vector<double>> lowest(job.toes.size());
  std::vector<Transform> world(job.source->joint_count());
  for (int f = 0; f < job.source_clip->frame_count; ++f) {
    forward_kinematics(*job.source, job.source_clip->frame(f), job.source_to_world, world);
    for (std::size_t c = 0; c < job.toes.size(); ++c) {
      const ToeChain& t = job.toes[c];
      lowest[c].push_back(job.scale * transform_point(world[t.source_toe], t.source_tip_ls).y +
                          job.level_offset_m);
    }
  }
  return lowest;
}

}  // namespace

int ToeReachJob::run(Clip& target_clip) const {
  if (toes.empty()) return 0;
  const std::vector<std::vector<double>> lowest = lowest_tips(*this);
  std::vector<Transform> target_ws(target->joint_count());
  int raised = 0;
  for (int f = 0; f < target_clip.frame_count; ++f) {
    forward_kinematics(*target, target_clip.frame(f), target_to_world, target_ws);
    for (std::size_t c = 0; c < toes.size(); ++c) {
      const ToeChain& chain = toes[c];
      const int parent = target->parents[chain.target_toe];
      const Transform& parent_ws = parent < 0 ? target_to_world : target_ws[parent];
      const auto local = raised_toe(chain, target_ws[chain.target_toe], parent_ws, lowest[c][f]);
      if (!local) continue;
      target_clip.at(f, chain.target_toe).rotation = *local;
      ++raised;
    }
  }
  return raised;
}

}  // namespace ikfix::core
