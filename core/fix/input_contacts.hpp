#pragma once
// Step 2: contacts on the input motion, per foot (ankle and toe), thresholds scaled to the leg.
#include <array>
#include <optional>
#include <vector>

#include "core/fix/contacts.hpp"
#include "core/fix/sample_legs.hpp"

namespace ikfix::core {

// A foot point's planted level: this quantile of its height over the whole clip.
inline constexpr double kPlantedLevelQuantile = 0.05;

struct InputContacts {
  bool given = false;                   // the plants are the caller's (contacts_override)
  std::vector<char> planted;            // per frame
  double planted_level[2] = {0, 0};     // ankle, toe: world Y when planted (kPlantedLevelQuantile)
  std::vector<double> point_height[2];  // ankle, toe per frame: metres above planted_level
};

// One foot's contacts: `given` (when it has one entry per frame) taken as they are, else
// detected on the foot's heights and speeds (fps: frames per second).
InputContacts input_contacts(const FootTrack& foot, double fps, const ContactSettings& settings,
                             const std::vector<char>* given);

}  // namespace ikfix::core
