#include "core/retarget/retarget_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/fk.hpp"
#include "core/metrics.hpp"

namespace ikfix::core {
namespace {

std::vector<Transform> all_world(const Skeleton& sk, const Clip& clip, const ClipSpace& space) {
  std::vector<Transform> world(static_cast<std::size_t>(clip.frame_count) * sk.joint_count());
  const Transform to_world = space.to_world();
  for (int f = 0; f < clip.frame_count; ++f)
    forward_kinematics(sk, clip.frame(f), to_world,
                       {world.data() + static_cast<std::size_t>(f) * sk.joint_count(),
                        static_cast<std::size_t>(sk.joint_count())});
  return world;
}

// Sum of joint-to-joint rest distances from `end` up to `base` (the limb's length).
double chain_length(const Skeleton& sk, std::span<const Transform> rest, int base, int end,
                    bool end_site) {
  double length = 0;
  Vec3 below = end_site ? transform_point(rest[end], *sk.end_sites[end]) : rest[end].translation;
  for (int j = end_site ? end : sk.parents[end]; j >= 0; j = sk.parents[j]) {
    length += glm::length(below - rest[j].translation);
    below = rest[j].translation;
    if (j == base) break;
  }
  return length;
}

double ground_height(const Terrain* terrain, const Vec3& p) {
  if (!terrain) return 0.0;
  const GroundHit hit = terrain->ground_at(p.x, p.z);
  return hit.hit ? hit.height : 0.0;
}

// World transforms of one skeleton's clip, frame-major, and of its rest pose.
struct WorldPoses {
  const Skeleton& sk;
  std::vector<Transform> frames;
  std::vector<Transform> rest;

  WorldPoses(const Skeleton& skeleton, const Clip& clip, const ClipSpace& space)
      : sk(skeleton), frames(all_world(skeleton, clip, space)), rest(skeleton.joint_count()) {
    forward_kinematics(sk, sk.rest, space.to_world(), rest);
  }
  const Transform& at(int f, int j) const {
    return frames[static_cast<std::size_t>(f) * sk.joint_count() + j];
  }
  // The joint's position, or its end site's when `end_site`.
  Vec3 end(int f, int j, bool end_site) const {
    return end_site ? transform_point(at(f, j), *sk.end_sites[j]) : at(f, j).translation;
  }
};

// M1: limb-normalised end-effector error of one chain over `frames` frames; nullopt when a
// limb has no length (or the target end site is missing).
std::optional<ChainError> chain_error(const LimbChain& c, const WorldPoses& s, const WorldPoses& t,
                                      int frames) {
  if (c.target_end_site && !t.sk.end_sites[c.target_end]) return std::nullopt;
  const double ls = chain_length(s.sk, s.rest, c.source_base, c.source_end, false);
  const double lt = chain_length(t.sk, t.rest, c.target_base, c.target_end, c.target_end_site);
  if (!(ls > 0) || !(lt > 0)) return std::nullopt;
  ChainError e;
  e.name = c.name;
  double sum = 0;
  for (int f = 0; f < frames; ++f) {
    const Vec3 sv = (s.at(f, c.source_end).translation - s.at(f, c.source_base).translation) / ls;
    const Vec3 tv =
        (t.end(f, c.target_end, c.target_end_site) - t.at(f, c.target_base).translation) / lt;
    const double err = glm::length(tv - sv);
    sum += err;
    if (err > e.max) e.max = err, e.worst_frame = f;
  }
  e.mean = frames ? sum / frames : 0.0;
  return e;
}

// True when b is a's direct child on the source side and below a on the target side, and both
// bones have a length (zero-length offsets point nowhere).
bool is_limb_bone(const BonePair& a, const BonePair& b, const WorldPoses& s, const WorldPoses& t) {
  if (s.sk.parents[b.source] != a.source) return false;
  if (b.target_end_site ? !(b.target == a.target && t.sk.end_sites[b.target])
                        : !(b.target != a.target && t.sk.is_ancestor(a.target, b.target)))
    return false;
  const double rest_s = glm::length(s.rest[b.source].translation - s.rest[a.source].translation);
  const double rest_t =
      glm::length((b.target_end_site ? transform_point(t.rest[b.target], *t.sk.end_sites[b.target])
                                     : t.rest[b.target].translation) -
                  t.rest[a.target].translation);
  return !(rest_s < 1e-6 || rest_t < 1e-6);
}

// M2: bone-direction error (radians) on limb bones: sided pairs whose child is mapped on both
// sides.
void measure_directions(const BoneMap& map, const WorldPoses& s, const WorldPoses& t, int frames,
                        RetargetQuality& q) {
  double sum = 0;
  long count = 0;
  // The pairs whose source joint is a child of each source joint, in pair order (the order the
  // sum is taken in): the candidates for b below, found without a scan of every pair.
  std::vector<std::vector<int>> pairs_below(s.sk.joint_count());
  for (int i = 0; i < static_cast<int>(map.pairs.size()); ++i)
    if (const int parent = s.sk.parents[map.pairs[i].source]; parent >= 0)
      pairs_below[parent].push_back(i);
  for (const BonePair& a : map.pairs) {
    if (a.target_end_site || !is_sided_role(a.role)) continue;
    for (const int bi : pairs_below[a.source]) {
      const BonePair& b = map.pairs[bi];
      if (!is_limb_bone(a, b, s, t)) continue;
      for (int f = 0; f < frames; ++f) {
        const Vec3 ds = s.at(f, b.source).translation - s.at(f, a.source).translation;
        const Vec3 dt = t.end(f, b.target, b.target_end_site) - t.at(f, a.target).translation;
        const double angle =
            angle_between(safe_normalize(ds, Vec3(0, 1, 0)), safe_normalize(dt, Vec3(0, 1, 0)));
        sum += angle;
        ++count;
        if (angle > q.direction_error_max_rad) {
          q.direction_error_max_rad = angle;
          q.direction_worst_bone = t.sk.names[a.target];
          q.direction_worst_frame = f;
        }
      }
    }
  }
  q.direction_error_mean_rad = count ? sum / double(count) : 0.0;
}

// M8: largest relative change of a bone's length in the output against the target's rest
// (bone_length_scale_m: against 1 mm for a bone shorter than that). A
// joint whose local translation the clip moves (the hips under a root control, or a root) hangs
// on no bone: skipped.
double max_bone_length_change(const Clip& clip, const WorldPoses& t) {
  const int tn = t.sk.joint_count();
  std::vector<char> moves(tn, 0);
  for (int f = 0; f < clip.frame_count; ++f)
    for (int j = 0; j < tn; ++j)
      if (glm::length(clip.at(f, j).translation - t.sk.rest[j].translation) >
          1e-9 * (1.0 + glm::length(t.sk.rest[j].translation)))
        moves[j] = 1;
  double change = 0;
  for (int f = 0; f < clip.frame_count; ++f)
    for (int j = 0; j < tn; ++j) {
      const int p = t.sk.parents[j];
      if (p < 0 || moves[j]) continue;
      const double rest = glm::length(t.rest[j].translation - t.rest[p].translation);
      const double now = glm::length(t.at(f, j).translation - t.at(f, p).translation);
      change = std::max(change, std::abs(now - rest) / bone_length_scale_m(rest));
    }
  return change;
}

// Running sums of the feet measures over both legs' contact frames.
struct FeetSums {
  double slide = 0, float_m = 0;
  long frames = 0, both = 0;  // contact frames measured; source contacts the target shares
  std::vector<double> gaps;   // lowest foot point above the terrain, per contact frame
};

// The source's contact frames of leg l; counts them and the target's contact frames in `feet`,
// and the frames both share in `sums`.
std::vector<int> contact_frames_of(const RetargetMeasureInput& in, int l, int frames,
                                   FeetAtContacts& feet, FeetSums& sums) {
  const std::vector<char>& sc = in.source_contacts[l];
  std::vector<int> contact_frames;
  for (int f = 0; f < frames && f < static_cast<int>(sc.size()); ++f) {
    const bool target_planted = in.target_contacts &&
                                f < static_cast<int>(in.target_contacts[l].size()) &&
                                in.target_contacts[l][f];
    feet.target_contact_frames += target_planted;
    if (!sc[f]) continue;
    contact_frames.push_back(f);
    sums.both += target_planted;
  }
  feet.source_contact_frames += static_cast<int>(contact_frames.size());
  return contact_frames;
}

// Heights above the terrain (m) of the foot points the foot stage stands on (as `check`): the
// ankle and the toe joint, or the foot's end site when there is no toe joint. Toe tips beyond
// the toe joint may hang over a step edge, as real toes do.
std::vector<double> foot_heights(const Leg& leg, const WorldPoses& t, const Terrain* terrain,
                                 int f) {
  const int tip = leg.toe >= 0 ? leg.toe : leg.ankle;
  std::vector<double> h;
  auto add = [&](const Vec3& p) { h.push_back(p.y - ground_height(terrain, p)); };
  add(t.at(f, leg.ankle).translation);
  if (leg.toe >= 0)
    add(t.at(f, leg.toe).translation);
  else if (t.sk.end_sites[tip])
    add(transform_point(t.at(f, tip), *t.sk.end_sites[tip]));
  return h;
}

// Slide (m/s) at contact frame f: the slower of heel and toe (the pivot the foot rolls over),
// horizontally, from neighbouring contact frames only (a plant's first and last frames are not
// smeared with the motion of touch-down and lift-off).
double contact_slide(const Leg& leg, const std::vector<char>& sc, const WorldPoses& t, double fps,
                     int frames, int f) {
  const int a = f > 0 && sc[f - 1] ? f - 1 : f;
  const int b = f + 1 < frames && f + 1 < static_cast<int>(sc.size()) && sc[f + 1] ? f + 1 : f;
  if (b <= a) return 0;
  auto horizontal_speed = [&](int j) {
    Vec3 d = t.at(b, j).translation - t.at(a, j).translation;
    d.y = 0;
    return glm::length(d) * fps / (b - a);
  };
  double slide = horizontal_speed(leg.ankle);
  if (leg.toe >= 0) slide = std::min(slide, horizontal_speed(leg.toe));
  return slide;
}

// Feet measures of leg l over the source's contact frames: slide, float above each point's
// planted level (the 5th percentile of its heights over the contacts), penetration, gaps.
void measure_leg_at_contacts(const RetargetMeasureInput& in, int l, const WorldPoses& t, int frames,
                             FeetAtContacts& feet, FeetSums& sums) {
  const Leg& leg = in.target_legs.legs[l];
  const std::vector<int> contact_frames = contact_frames_of(in, l, frames, feet, sums);
  if (contact_frames.empty()) return;
  std::vector<std::vector<double>> per_point;  // [point][contact frame] height
  for (int f : contact_frames) {
    const auto h = foot_heights(leg, t, in.terrain, f);
    per_point.resize(h.size());
    for (std::size_t k = 0; k < h.size(); ++k) per_point[k].push_back(h[k]);
  }
  std::vector<double> level;
  for (auto v : per_point) {
    std::sort(v.begin(), v.end());
    level.push_back(v[v.size() / 20]);
  }
  for (std::size_t i = 0; i < contact_frames.size(); ++i) {
    const int f = contact_frames[i];
    const double slide =
        contact_slide(leg, in.source_contacts[l], t, in.target_clip->fps, frames, f);
    sums.slide += slide;
    if (slide > feet.slide_max_mps)
      feet.slide_max_mps = slide, feet.worst_slide_frame = f, feet.worst_slide_leg = l;
    double above_level = 1e300, lowest = 1e300;
    for (std::size_t k = 0; k < level.size(); ++k) {
      above_level = std::min(above_level, per_point[k][i] - level[k]);
      lowest = std::min(lowest, per_point[k][i]);
    }
    above_level = std::max(0.0, above_level);
    sums.float_m += above_level;
    feet.float_max_m = std::max(feet.float_max_m, above_level);
    feet.penetration_max_m = std::max(feet.penetration_max_m, -lowest);
    sums.gaps.push_back(lowest);
    ++sums.frames;
  }
}

// Feet during the source's contact frames, both legs; recall and precision of the target's
// contacts against the source's when the target's are given.
FeetAtContacts measure_feet(const RetargetMeasureInput& in, const WorldPoses& t, int frames) {
  FeetAtContacts feet;
  FeetSums sums;
  for (int l = 0; l < 2; ++l) measure_leg_at_contacts(in, l, t, frames, feet, sums);
  const long n = sums.frames;
  feet.slide_mean_mps = n ? sums.slide / double(n) : 0.0;
  feet.float_mean_m = n ? sums.float_m / double(n) : 0.0;
  std::vector<double>& gaps = sums.gaps;
  if (!gaps.empty()) {
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2),
                     gaps.end());
    feet.ground_gap_m = gaps[gaps.size() / 2];
  }
  if (in.target_contacts) {
    feet.contact_recall =
        feet.source_contact_frames ? double(sums.both) / feet.source_contact_frames : 1.0;
    feet.contact_precision =
        feet.target_contact_frames ? double(sums.both) / feet.target_contact_frames : 1.0;
  }
  return feet;
}

}  // namespace

std::vector<LimbChain> limb_chains(const BoneMap& map, const LegRig& source_legs,
                                   const LegRig& target_legs) {
  std::vector<LimbChain> chains;
  for (int l = 0; l < 2; ++l) {
    LimbChain c;
    c.name = std::string(kLegSideNames[l]) + " leg";
    c.is_leg = true;
    c.source_base = source_legs.legs[l].hip;
    c.source_end = source_legs.legs[l].ankle;
    c.target_base = target_legs.legs[l].hip;
    c.target_end = target_legs.legs[l].ankle;
    if (c.source_base >= 0 && c.source_end >= 0 && c.target_base >= 0 && c.target_end >= 0)
      chains.push_back(c);
  }
  for (const char* side : kLegSideNames) {
    const int base = map.pair_with_role(std::string(side) + "_upper_arm");
    const int end = map.pair_with_role(std::string(side) + "_hand");
    if (base < 0 || end < 0) continue;
    LimbChain c;
    c.name = std::string(side) + " arm";
    c.source_base = map.pairs[base].source;
    c.source_end = map.pairs[end].source;
    c.target_base = map.pairs[base].target;
    c.target_end = map.pairs[end].target;
    c.target_end_site = map.pairs[end].target_end_site;
    chains.push_back(c);
  }
  return chains;
}

RetargetQuality measure_retarget(const RetargetMeasureInput& in) {
  const int frames = std::min(in.source_clip->frame_count, in.target_clip->frame_count);
  const WorldPoses source(*in.source, *in.source_clip, in.source_space);
  const WorldPoses target(*in.target, *in.target_clip, in.target_space);
  RetargetQuality q;
  for (const LimbChain& c : in.chains)
    if (auto e = chain_error(c, source, target, frames)) q.chains.push_back(std::move(*e));
  if (in.map) measure_directions(*in.map, source, target, frames, q);
  q.max_bone_length_change = max_bone_length_change(*in.target_clip, target);
  if (in.source_contacts) q.feet = measure_feet(in, target, frames);
  return q;
}

}  // namespace ikfix::core
