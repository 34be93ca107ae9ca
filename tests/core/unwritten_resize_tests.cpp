// resize_unwritten: grows a vector without writing the new elements, keeps the old ones, and
// leaves every other way of growing it (resize, assign, copies) as std::vector's.
#include <gtest/gtest.h>

#include <vector>

#include "core/clip.hpp"
#include "core/unwritten_resize.hpp"

namespace ikfix::core {
namespace {

bool is_default(const Transform& t) {
  return t.translation == Vec3(0.0) && t.rotation == Quat(1.0, 0.0, 0.0, 0.0) &&
         t.scale == Vec3(1.0);
}

TEST(UnwrittenResize, GrowsKeepingTheOldElements) {
  UnwrittenResizeVector<Transform> v(3);
  v[1].translation = Vec3(1, 2, 3);
  resize_unwritten(v, 1000);  // reallocates: the first three move
  ASSERT_EQ(v.size(), 1000u);
  EXPECT_TRUE(is_default(v[0]));
  EXPECT_EQ(v[1].translation, Vec3(1, 2, 3));
  for (std::size_t i = 3; i < v.size(); ++i) v[i].translation = Vec3(static_cast<double>(i));
  EXPECT_EQ(v[999].translation, Vec3(999.0));
  resize_unwritten(v, 10);  // shrinking is a plain resize
  EXPECT_EQ(v.size(), 10u);
}

TEST(UnwrittenResize, EveryOtherGrowthStillInitialises) {
  UnwrittenResizeVector<double> d;
  resize_unwritten(d, 4);
  for (double& x : d) x = 7.0;
  d.resize(8);  // after resize_unwritten: a plain resize value-initialises again
  for (std::size_t i = 4; i < 8; ++i) EXPECT_EQ(d[i], 0.0) << i;
  Clip c;
  c.locals.resize(5);
  for (const Transform& t : c.locals) EXPECT_TRUE(is_default(t));
  const std::vector<Transform> rest(4);
  c.locals.assign(rest.begin(), rest.end());
  EXPECT_EQ(c.locals.size(), 4u);
  const Clip copy = c;
  for (const Transform& t : copy.locals) EXPECT_TRUE(is_default(t));
}

}  // namespace
}  // namespace ikfix::core
