#include "core/retarget/retarget_pipeline.hpp"

#include <algorithm>
#include <memory>

#include "core/fix/footfix.hpp"
#include "core/metrics.hpp"
#include "core/terrain_gen.hpp"

namespace ikfix::core {
namespace {

// Flat ground at y = 0 (the contact detector and the foot stage need a surface to stand on).
std::unique_ptr<Terrain> flat_ground() {
  FlatParams params;
  params.size = 400.0;
  return std::make_unique<Terrain>(make_flat_terrain(params));
}

// Contacts as `check` sees them on a finished clip, as per-frame flags.
void detected_contacts(const Skeleton& sk, const Clip& clip, const ClipSpace& space, const LegRig& legs,
                       const Terrain& terrain, const FixSettings& fix, std::vector<char> (&out)[2]) {
  MetricsInput mi;
  mi.skeleton = &sk;
  mi.clip = &clip;
  mi.space = space;
  mi.rig = legs;
  mi.terrain = &terrain;
  mi.contacts = fix.contacts;
  mi.reference_leg_length = fix.reference_leg_length;
  mi.min_knee_angle = fix.min_knee_angle;
  const ClipMetrics m = measure_clip(mi);
  for (int l = 0; l < 2; ++l) {
    out[l].assign(clip.frame_count, 0);
    for (const PlantMetrics& p : m.legs[l].plants)
      for (int f = p.first; f <= p.last && f < clip.frame_count; ++f) out[l][f] = 1;
  }
}

}  // namespace

RetargetPipelineResult retarget_and_fix(const RetargetPipelineInput& in) {
  RetargetPipelineResult out;
  const RetargetInput& t = in.transfer;
  std::unique_ptr<Terrain> flat;
  const Terrain* ground = in.terrain;
  if (!ground) ground = (flat = flat_ground()).get();

  // 1. The source's contacts, by the detector the foot fix uses (on the source, on flat ground:
  //    the source was recorded there).
  {
    const std::unique_ptr<Terrain> source_floor = in.terrain ? flat_ground() : nullptr;
    FixInput probe;
    probe.skeleton = t.source;
    probe.clip = t.source_clip;
    probe.space = t.source_space;
    probe.rig = t.source_legs;
    probe.terrain = source_floor ? source_floor.get() : ground;
    probe.settings = in.fix;
    probe.settings.contacts_override.reset();
    const FixResult r = fix_clip(probe);
    for (int l = 0; l < 2; ++l) out.source_contacts[l] = r.planted[l];
  }

  // 2. Transfer.
  out.transfer = retarget_clip(t, out.source_contacts);
  out.clip = out.transfer.clip;
  out.animated = out.transfer.animated;

  RetargetMeasureInput mi;
  mi.source = t.source;
  mi.source_clip = t.source_clip;
  mi.source_space = t.source_space;
  mi.target = t.target;
  mi.target_space = t.target_space;
  mi.map = t.map;
  mi.chains = limb_chains(*t.map, t.source_legs, t.target_legs);
  mi.target_legs = t.target_legs;
  mi.source_contacts = out.source_contacts;
  mi.terrain = in.terrain;
  {
    std::vector<char> target_contacts[2];
    detected_contacts(*t.target, out.transfer.clip, t.target_space, t.target_legs, *ground, in.fix, target_contacts);
    mi.target_clip = &out.transfer.clip;
    mi.target_contacts = target_contacts;
    out.transfer_quality = measure_retarget(mi);
  }

  // 3. Feet: the foot stage on the target, driven by the source's contacts.
  if (in.fix_feet) {
    FixInput fi;
    fi.skeleton = t.target;
    fi.clip = &out.transfer.clip;
    fi.space = t.target_space;
    fi.rig = t.target_legs;
    fi.terrain = ground;
    fi.settings = in.fix;
    fi.settings.contacts_override = std::array<std::vector<char>, 2>{out.source_contacts[0], out.source_contacts[1]};
    FixResult fixed = fix_clip(fi);
    out.clip = std::move(fixed.clip);
    for (int j = 0; j < static_cast<int>(out.animated.size()); ++j)
      out.animated[j] = out.animated[j] || fixed.changed_joints[j];
    out.diagnostics = std::move(fixed.diagnostics);
    out.feet_fixed = true;
  }
  std::vector<char> target_contacts[2];
  detected_contacts(*t.target, out.clip, t.target_space, t.target_legs, *ground, in.fix, target_contacts);
  mi.target_clip = &out.clip;
  mi.target_contacts = target_contacts;
  out.quality = measure_retarget(mi);
  return out;
}

}  // namespace ikfix::core
