// The BVH writer's output buffer: appends and in-place writes keep every byte across growth,
// clear() keeps the room, a moved-from buffer is empty and usable.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>

#include "io/bvh/byte_buffer.hpp"

namespace {

using ikfix::io::bvh::ByteBuffer;

TEST(BvhByteBuffer, KeepsEveryByteAcrossGrowth) {
  ByteBuffer buffer;
  std::string expected;
  for (int n = 0; n < 5000; ++n) {
    const std::string piece = std::to_string(n * 7919) + (n % 3 ? " " : "\n");
    if (n % 2) {
      buffer.append(piece.data(), piece.size());
    } else {
      char* at = buffer.room(piece.size() + 48);  // more room than is used, as the writer asks
      std::memcpy(at, piece.data(), piece.size());
      buffer.commit(piece.size());
    }
    expected += piece;
  }
  EXPECT_EQ(buffer.size(), expected.size());
  EXPECT_EQ(buffer.view(), expected);
  buffer.clear();
  EXPECT_EQ(buffer.size(), 0u);
  buffer.append("abc", 3);
  EXPECT_EQ(buffer.view(), "abc");
}

TEST(BvhByteBuffer, MovedFromIsEmptyAndUsable) {
  ByteBuffer a;
  a.reserve(1 << 16);
  a.append("kept", 4);
  ByteBuffer b = std::move(a);
  EXPECT_EQ(b.view(), "kept");
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): the state after a move is the point
  a.append("again", 5);     // grows from nothing instead of writing through a null pointer
  EXPECT_EQ(a.view(), "again");
  ByteBuffer c;
  c = std::move(b);
  EXPECT_EQ(c.view(), "kept");
  EXPECT_EQ(b.size(), 0u);  // NOLINT(bugprone-use-after-move)
}

}  // namespace
