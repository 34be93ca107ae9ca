#pragma once
// Internal: how the BVH writers print numbers.
#include <charconv>
#include <cstddef>
#include <cstring>

#include "io/decimal.hpp"

namespace ikfix::io::bvh {

// Large enough for any double in fixed notation with up to 17 decimals (1e308 needs ~330).
inline constexpr std::size_t kNumberBuffer = 400;

// Fixed notation with `decimals` digits into `buffer` (kNumberBuffer bytes); "-0.00" becomes
// "0.00". Returns the length (0 only if the buffer were too small, which cannot happen).
inline std::size_t format_fixed(double v, int decimals, char* buffer) {
  const auto r =
      io::write_fixed(buffer, buffer + kNumberBuffer, v, decimals);  // exact, as to_chars
  if (r.ec != std::errc()) return 0;
  std::size_t n = static_cast<std::size_t>(r.ptr - buffer);
  if (n > 0 && buffer[0] == '-') {
    bool zero = true;
    for (std::size_t k = 1; k < n && zero; ++k) zero = buffer[k] == '0' || buffer[k] == '.';
    if (zero) {
      std::memmove(buffer, buffer + 1, n - 1);
      --n;
    }
  }
  return n;
}

}  // namespace ikfix::io::bvh
