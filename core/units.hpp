#pragma once
// Guessing a clip's length unit when the file does not say (BVH never does).
#include <string>
#include <vector>

#include "core/math.hpp"

namespace ikfix::core {

struct UnitGuess {
  double metres_per_unit = 1.0;
  std::string unit;    // "m", "cm", "mm", "in", "ft", "cmu" (1/0.45 inch), or "custom"
  std::string reason;  // one sentence a user can check, e.g. "rest height 25.7 units; ..."
};

// Metres per unit of common unit names, including "cmu" (CMU mocap: 1/0.45 inch = 5.644 cm).
// Also accepts a plain number (metres per unit). Returns 0 for an unknown name.
double metres_per_unit_from_name(const std::string& name);

// Guesses the unit from the standing height of the rest pose, assuming an adult human
// (joint-to-joint height ~1.5 m), snapped to the nearest common unit when within a factor 1.5.
// `rest_points_yup` are rest-pose joint and end-site positions in the clip's units, Y up.
UnitGuess guess_unit_from_height(const std::vector<Vec3>& rest_points_yup);

}  // namespace ikfix::core
