#include "core/retarget/retarget_metrics.hpp"

#include <algorithm>
#include <cmath>

#include "core/fk.hpp"

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
  const Skeleton& src = *in.source;
  const Skeleton& tgt = *in.target;
  const int frames = std::min(in.source_clip->frame_count, in.target_clip->frame_count);
  const int sn = src.joint_count(), tn = tgt.joint_count();
  const auto sw = all_world(src, *in.source_clip, in.source_space);
  const auto tw = all_world(tgt, *in.target_clip, in.target_space);
  std::vector<Transform> src_rest(sn), tgt_rest(tn);
  forward_kinematics(src, src.rest, in.source_space.to_world(), src_rest);
  forward_kinematics(tgt, tgt.rest, in.target_space.to_world(), tgt_rest);
  auto S = [&](int f, int j) -> const Transform& {
    return sw[static_cast<std::size_t>(f) * sn + j];
  };
  auto T = [&](int f, int j) -> const Transform& {
    return tw[static_cast<std::size_t>(f) * tn + j];
  };
  auto T_end = [&](int f, int j, bool end_site) {
    return end_site ? transform_point(T(f, j), *tgt.end_sites[j]) : T(f, j).translation;
  };
  RetargetQuality q;

  // M1: limb-normalised end-effector error.
  for (const LimbChain& c : in.chains) {
    if (c.target_end_site && !tgt.end_sites[c.target_end]) continue;
    const double ls = chain_length(src, src_rest, c.source_base, c.source_end, false);
    const double lt = chain_length(tgt, tgt_rest, c.target_base, c.target_end, c.target_end_site);
    if (!(ls > 0) || !(lt > 0)) continue;
    ChainError e;
    e.name = c.name;
    double sum = 0;
    for (int f = 0; f < frames; ++f) {
      const Vec3 s = (S(f, c.source_end).translation - S(f, c.source_base).translation) / ls;
      const Vec3 t =
          (T_end(f, c.target_end, c.target_end_site) - T(f, c.target_base).translation) / lt;
      const double err = glm::length(t - s);
      sum += err;
      if (err > e.max) e.max = err, e.worst_frame = f;
    }
    e.mean = frames ? sum / frames : 0.0;
    q.chains.push_back(e);
  }

  // M2: bone-direction error on limb bones (sided pairs whose child is mapped on both sides).
  if (in.map) {
    double sum = 0;
    long count = 0;
    const auto& pairs = in.map->pairs;
    for (const BonePair& a : pairs) {
      if (a.target_end_site || !is_sided_role(a.role)) continue;
      for (const BonePair& b : pairs) {
        // b is a's direct child on the source side and below a on the target side.
        if (src.parents[b.source] != a.source) continue;
        if (b.target_end_site ? !(b.target == a.target && tgt.end_sites[b.target])
                              : !(b.target != a.target && tgt.is_ancestor(a.target, b.target)))
          continue;
        const double rest_s =
            glm::length(src_rest[b.source].translation - src_rest[a.source].translation);
        const double rest_t = glm::length(
            (b.target_end_site ? transform_point(tgt_rest[b.target], *tgt.end_sites[b.target])
                               : tgt_rest[b.target].translation) -
            tgt_rest[a.target].translation);
        if (rest_s < 1e-6 || rest_t < 1e-6) continue;  // no bone to point (zero-length offsets)
        for (int f = 0; f < frames; ++f) {
          const Vec3 ds = S(f, b.source).translation - S(f, a.source).translation;
          const Vec3 dt = T_end(f, b.target, b.target_end_site) - T(f, a.target).translation;
          const double angle =
              angle_between(safe_normalize(ds, Vec3(0, 1, 0)), safe_normalize(dt, Vec3(0, 1, 0)));
          sum += angle;
          ++count;
          if (angle > q.direction_error_max_rad) {
            q.direction_error_max_rad = angle;
            q.direction_worst_bone = tgt.names[a.target];
            q.direction_worst_frame = f;
          }
        }
      }
    }
    q.direction_error_mean_rad = count ? sum / double(count) : 0.0;
  }

  // M8: bone lengths of the output against the target's rest. A joint whose local translation
  // the clip moves (the hips under a root control, or a root) hangs on no bone: skipped.
  std::vector<char> moves(tn, 0);
  for (int f = 0; f < in.target_clip->frame_count; ++f)
    for (int j = 0; j < tn; ++j)
      if (glm::length(in.target_clip->at(f, j).translation - tgt.rest[j].translation) >
          1e-9 * (1.0 + glm::length(tgt.rest[j].translation)))
        moves[j] = 1;
  for (int f = 0; f < in.target_clip->frame_count; ++f)
    for (int j = 0; j < tn; ++j) {
      const int p = tgt.parents[j];
      if (p < 0 || moves[j]) continue;
      const double rest = glm::length(tgt_rest[j].translation - tgt_rest[p].translation);
      if (rest < 1e-9) continue;
      const double now = glm::length(T(f, j).translation - T(f, p).translation);
      q.max_bone_length_change = std::max(q.max_bone_length_change, std::abs(now - rest) / rest);
    }

  // Feet during the source's contact frames.
  if (in.source_contacts) {
    FeetAtContacts& feet = q.feet;
    double slide_sum = 0, float_sum = 0;
    long n = 0, both = 0;
    std::vector<double> gaps;
    for (int l = 0; l < 2; ++l) {
      const Leg& leg = in.target_legs.legs[l];
      const std::vector<char>& sc = in.source_contacts[l];
      const int tip = leg.toe >= 0 ? leg.toe : leg.ankle;
      // Heights above the terrain of the foot points the foot stage stands on (as `check`): the
      // ankle and the toe joint, or the foot's end site when there is no toe joint. Toe tips
      // beyond the toe joint may hang over a step edge, as real toes do.
      auto heights = [&](int f) {
        std::vector<double> h;
        auto add = [&](const Vec3& p) { h.push_back(p.y - ground_height(in.terrain, p)); };
        add(T(f, leg.ankle).translation);
        if (leg.toe >= 0)
          add(T(f, leg.toe).translation);
        else if (tgt.end_sites[tip])
          add(transform_point(T(f, tip), *tgt.end_sites[tip]));
        return h;
      };
      std::vector<int> contact_frames;
      for (int f = 0; f < frames && f < static_cast<int>(sc.size()); ++f) {
        const bool target_planted = in.target_contacts &&
                                    f < static_cast<int>(in.target_contacts[l].size()) &&
                                    in.target_contacts[l][f];
        feet.target_contact_frames += target_planted;
        if (!sc[f]) continue;
        contact_frames.push_back(f);
        both += target_planted;
      }
      feet.source_contact_frames += static_cast<int>(contact_frames.size());
      if (contact_frames.empty()) continue;
      // Planted level of each point over this leg's contact frames.
      std::vector<std::vector<double>> per_point;
      for (int f : contact_frames) {
        const auto h = heights(f);
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
        // Slide: the slower of heel and toe (the pivot the foot rolls over), horizontally, from
        // neighbouring contact frames only (a plant's first and last frames are not smeared with
        // the motion of touch-down and lift-off).
        const int a = f > 0 && sc[f - 1] ? f - 1 : f;
        const int b =
            f + 1 < frames && f + 1 < static_cast<int>(sc.size()) && sc[f + 1] ? f + 1 : f;
        double slide = 0;
        if (b > a) {
          auto horizontal_speed = [&](int j) {
            Vec3 d = T(b, j).translation - T(a, j).translation;
            d.y = 0;
            return glm::length(d) * in.target_clip->fps / (b - a);
          };
          slide = horizontal_speed(leg.ankle);
          if (leg.toe >= 0) slide = std::min(slide, horizontal_speed(leg.toe));
        }
        slide_sum += slide;
        if (slide > feet.slide_max_mps)
          feet.slide_max_mps = slide, feet.worst_slide_frame = f, feet.worst_slide_leg = l;
        double above_level = 1e300, lowest = 1e300;
        for (std::size_t k = 0; k < level.size(); ++k) {
          above_level = std::min(above_level, per_point[k][i] - level[k]);
          lowest = std::min(lowest, per_point[k][i]);
        }
        above_level = std::max(0.0, above_level);
        float_sum += above_level;
        feet.float_max_m = std::max(feet.float_max_m, above_level);
        feet.penetration_max_m = std::max(feet.penetration_max_m, -lowest);
        gaps.push_back(lowest);
        ++n;
      }
    }
    feet.slide_mean_mps = n ? slide_sum / double(n) : 0.0;
    feet.float_mean_m = n ? float_sum / double(n) : 0.0;
    if (!gaps.empty()) {
      std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2),
                       gaps.end());
      feet.ground_gap_m = gaps[gaps.size() / 2];
    }
    if (in.target_contacts) {
      feet.contact_recall =
          feet.source_contact_frames ? double(both) / feet.source_contact_frames : 1.0;
      feet.contact_precision =
          feet.target_contact_frames ? double(both) / feet.target_contact_frames : 1.0;
    }
  }
  return q;
}

}  // namespace ikfix::core
