#include "core/fix/clip_floor.hpp"

#include <utility>

#include "core/fix/fix_math.hpp"

namespace ikfix::core {

ClipFloor clip_floor(std::vector<double> lowest, double leg_length,
                     const std::optional<double>& user_floor) {
  const double p5 = percentile(std::move(lowest), 0.05);
  if (user_floor) return {*user_floor, "user"};
  if (p5 >= 0.0 && p5 <= 0.15 * leg_length) return {0.0, "file origin"};
  return {p5, "estimated"};
}

}  // namespace ikfix::core
