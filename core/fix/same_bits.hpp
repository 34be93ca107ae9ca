#pragma once
// Bit-for-bit comparison, the test of the incremental-recompute rule (core/README.md).
#include <cstring>

namespace ikfix::core {

// Bit for bit equal (unlike ==, tells -0.0 from 0.0): a value computed from equal inputs is then
// exactly the one computed before.
template <typename T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace ikfix::core
