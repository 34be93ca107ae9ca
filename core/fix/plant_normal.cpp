#include "core/fix/plant_normal.hpp"

#include <algorithm>

namespace ikfix::core {

std::vector<int> plant_first_frames(std::span<const char> planted) {
  const int n = static_cast<int>(planted.size());
  std::vector<int> first(n);
  for (int f = 0; f < n; ++f) first[f] = planted[f] && f > 0 && planted[f - 1] ? first[f - 1] : f;
  return first;
}

void remake_whole_plants(std::vector<char>& remake, std::span<const char> planted,
                         std::span<const char> old_planted) {
  const int n = static_cast<int>(std::min(remake.size(), planted.size()));
  const bool known = old_planted.size() == planted.size();
  for (int a = 0; a < n;) {
    if (!planted[a]) {
      ++a;
      continue;
    }
    int b = a;
    while (b + 1 < n && planted[b + 1]) ++b;
    const bool moved = !known || !old_planted[a] || (a > 0 && old_planted[a - 1]);
    if (moved || remake[a]) std::fill(remake.begin() + a, remake.begin() + b + 1, 1);
    a = b + 1;
  }
}

}  // namespace ikfix::core
