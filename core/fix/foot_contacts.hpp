#pragma once
// Contacts of one foot as `ikfix check` sees them on a finished motion: heel (ankle joint) and
// toe heights above the terrain under them, each relative to its own planted level, and their
// speeds. One definition shared by the metrics and by the fix, which uses it on its planned
// output so that every frame the check will call planted is one the fix has locked.
#include <span>
#include <vector>

#include "core/fix/contacts.hpp"
#include "core/math.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

struct FootContacts {
  std::vector<char> planted;           // per frame: the foot (either point) is planted
  std::vector<char> point_planted[2];  // per point (0 heel, 1 toe): that point alone is planted
  std::vector<double> above[2];        // metres above the terrain (y = 0 where there is none)
  std::vector<double>
      height[2];  // metres above the point's planted level (5th percentile of `above`)
  std::vector<double> speed[2];  // m/s, central differences, 3D
};

// `heel`, `toe`: world positions (metres, Y up) per frame. `settings` are already scaled to the
// character's leg length.
FootContacts detect_foot_contacts(const Terrain& terrain, const std::vector<Vec3>& heel,
                                  const std::vector<Vec3>& toe, double fps,
                                  const ContactSettings& settings);

// The same, given the terrain's answers under heel and toe (one per frame, as
// Terrain::ground_at gives them), for a caller that has them already.
FootContacts foot_contacts_on_ground(const std::vector<Vec3>& heel, const std::vector<Vec3>& toe,
                                     std::span<const GroundHit> heel_ground,
                                     std::span<const GroundHit> toe_ground, double fps,
                                     const ContactSettings& settings);

}  // namespace ikfix::core
