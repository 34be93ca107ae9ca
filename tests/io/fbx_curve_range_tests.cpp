// Curve evaluation over the whole 64-bit tick range (issue 19, row 3): keys at -2^63 and 2^63-1
// made the signed tick differences overflow (UBSan), and the release build interpolated with a
// span of -1 tick.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>

#include "io/fbx/scene.hpp"

namespace ikfix::io::fbx {
namespace {

Curve linear_curve(std::int64_t t0, std::int64_t t1) {
  auto keys = std::make_shared<CurveKeys>();
  keys->times = {t0, t1};
  keys->values = {0.0f, 1.0f};
  keys->flags = {0x4u, 0x4u};  // linear
  keys->right_slope = keys->next_left_slope = {0.0f, 0.0f};
  keys->right_weight = keys->next_left_weight = {0.333333f, 0.333333f};
  Curve curve;
  curve.keys = keys;
  return curve;
}

TEST(FbxCurveRange, KeysAtBothEndsOfTheTickRangeInterpolateInsideTheirValues) {
  const Curve curve = linear_curve(std::numeric_limits<std::int64_t>::min(),
                                   std::numeric_limits<std::int64_t>::max());
  const double middle = evaluate_curve(curve, 0);
  EXPECT_NEAR(middle, 0.5, 1e-9);
  std::size_t cursor = 0;
  EXPECT_NEAR(evaluate_curve(curve, 0, cursor), 0.5, 1e-9);
  const double late = evaluate_curve(curve, std::numeric_limits<std::int64_t>::max() / 2);
  EXPECT_GT(late, 0.5);
  EXPECT_LT(late, 1.0);
}

TEST(FbxCurveRange, OrdinaryKeysInterpolateAsBefore) {
  const Curve curve = linear_curve(0, 46186158000);  // one second
  EXPECT_DOUBLE_EQ(evaluate_curve(curve, 46186158000 / 4), 0.25);
}

}  // namespace
}  // namespace ikfix::io::fbx
