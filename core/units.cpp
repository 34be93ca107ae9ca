#include "core/units.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace ikfix::core {
namespace {

struct NamedUnit {
  const char* name;
  double metres;
};
constexpr NamedUnit kUnits[] = {
    {"m", 1.0}, {"cm", 0.01}, {"mm", 0.001}, {"in", 0.0254}, {"ft", 0.3048}, {"cmu", 0.0254 / 0.45},
};
// Joint-to-joint standing height of an adult (ankle/toe to head joint), metres. CMU's rest pose
// is 25.7 units = 1.45 m; a 1.75 m person's joints span ~1.55 m.
constexpr double kAssumedRestHeight = 1.5;

}  // namespace

double metres_per_unit_from_name(const std::string& name) {
  for (const auto& u : kUnits)
    if (name == u.name) return u.metres;
  if (name == "metres" || name == "meters") return 1.0;
  if (name == "centimetres" || name == "centimeters") return 0.01;
  double value = 0;
  const auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), value);
  if (ec == std::errc() && ptr == name.data() + name.size() && std::isfinite(value) && value > 0)
    return value;
  return 0;
}

UnitGuess guess_unit_from_height(const std::vector<Vec3>& points) {
  UnitGuess guess;
  double lo = 1e300, hi = -1e300;
  for (const Vec3& p : points) {
    lo = std::min(lo, p.y);
    hi = std::max(hi, p.y);
  }
  const double height = hi - lo;
  char buf[256];
  if (!(height > 0) || !std::isfinite(height)) {
    guess.metres_per_unit = 1.0;
    guess.unit = "m";
    guess.reason = "rest pose has no height; assumed metres";
    return guess;
  }
  const double estimate = kAssumedRestHeight / height;
  double best_ratio = 1e300;
  const NamedUnit* best = nullptr;
  for (const auto& u : kUnits) {
    const double ratio = std::abs(std::log(u.metres / estimate));
    if (ratio < best_ratio) {
      best_ratio = ratio;
      best = &u;
    }
  }
  if (best && best_ratio < std::log(1.5)) {
    guess.metres_per_unit = best->metres;
    guess.unit = best->name;
    std::snprintf(buf, sizeof buf,
                  "rest height %.4g units; a %.1f m human gives %.4g m/unit, nearest common unit "
                  "'%s' (%.5g m)",
                  height, kAssumedRestHeight, estimate, best->name, best->metres);
  } else {
    guess.metres_per_unit = estimate;
    guess.unit = "custom";
    std::snprintf(buf, sizeof buf,
                  "rest height %.4g units; a %.1f m human gives %.4g m/unit (no common unit close)",
                  height, kAssumedRestHeight, estimate);
  }
  guess.reason = buf;
  return guess;
}

}  // namespace ikfix::core
