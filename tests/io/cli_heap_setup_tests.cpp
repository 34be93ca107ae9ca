// cli/heap_setup.hpp's page arithmetic (header-only; the unit tests do not link the cli).
#include <gtest/gtest.h>

#include <cstdint>

#include "cli/heap_setup.hpp"

namespace ikfix::cli {
namespace {

TEST(HeapSetup, HugePageIsTwoMebibytes) { EXPECT_EQ(kHugePage, std::uintptr_t{2} << 20); }

TEST(HeapSetup, NoBytesBelowAnAddressOnAHugePageBoundary) {
  EXPECT_EQ(bytes_below_huge_page(0), 0u);
  EXPECT_EQ(bytes_below_huge_page(kHugePage), 0u);
  EXPECT_EQ(bytes_below_huge_page(std::uintptr_t{0x562f1c400000}), 0u);
}

TEST(HeapSetup, BytesBelowReachTheNextBoundaryExactly) {
  // A brk heap's start as ASLR leaves it: 16-byte aligned, anywhere inside a huge page.
  const std::uintptr_t heap_top = 0x562f1c2a1b30;
  const std::uintptr_t below = bytes_below_huge_page(heap_top);
  EXPECT_EQ(below, std::uintptr_t{0x562f1c400000} - heap_top);
  EXPECT_EQ((heap_top + below) % kHugePage, 0u);
  EXPECT_LT(below, kHugePage);
  EXPECT_EQ(below % 16, 0u);  // a whole number of malloc's 16-byte units
}

TEST(HeapSetup, OneByteAboveABoundaryLeavesAlmostAWholeHugePage) {
  EXPECT_EQ(bytes_below_huge_page(kHugePage + 1), kHugePage - 1);
  EXPECT_EQ(bytes_below_huge_page(kHugePage - 1), 1u);
}

}  // namespace
}  // namespace ikfix::cli
