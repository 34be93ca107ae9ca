#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/units.hpp"

namespace ikfix::core {
namespace {

// Rest-pose points of a standing figure `height` units tall (toe to head), feet at `floor`.
std::vector<Vec3> figure(double height, double floor = 0.0) {
  return {Vec3(0.1 * height, floor, 0.15 * height),      // toe
          Vec3(0.1 * height, floor + 0.05 * height, 0),  // ankle
          Vec3(0.1 * height, floor + 0.3 * height, 0),   // knee
          Vec3(0, floor + 0.55 * height, 0),             // hips
          Vec3(-0.4 * height, floor + 0.8 * height, 0),  // hand
          Vec3(0, floor + height, 0)};                   // head
}

TEST(UnitsGuess, CmuRestHeightIsCmuUnits) {
  const UnitGuess g = guess_unit_from_height(figure(25.7));
  EXPECT_EQ(g.unit, "cmu");
  EXPECT_NEAR(g.metres_per_unit, 0.05644, 0.01 * 0.05644);
  EXPECT_DOUBLE_EQ(g.metres_per_unit, 0.0254 / 0.45);
  EXPECT_NE(g.reason.find("25.7"), std::string::npos) << g.reason;
  EXPECT_NE(g.reason.find("cmu"), std::string::npos) << g.reason;
}

TEST(UnitsGuess, CommonUnits) {
  struct Case {
    double height;
    const char* unit;
    double metres;
  };
  for (const Case& c : {Case{173.0, "cm", 0.01}, Case{155.0, "cm", 0.01}, Case{1.19, "m", 1.0},
                        Case{1.55, "m", 1.0}, Case{1700.0, "mm", 0.001}, Case{1550.0, "mm", 0.001},
                        Case{60.0, "in", 0.0254}, Case{5.0, "ft", 0.3048}}) {
    const UnitGuess g = guess_unit_from_height(figure(c.height));
    EXPECT_EQ(g.unit, c.unit) << c.height << ": " << g.reason;
    EXPECT_DOUBLE_EQ(g.metres_per_unit, c.metres) << c.height;
    EXPECT_FALSE(g.reason.empty());
  }
}

TEST(UnitsGuess, OnlyTheVerticalSpanCounts) {
  // Same figure lifted off the origin (a root at 100 units up) or below it: same answer.
  for (double floor : {-50.0, 0.0, 100.0, 1e4}) {
    const UnitGuess g = guess_unit_from_height(figure(173.0, floor));
    EXPECT_EQ(g.unit, "cm") << floor;
  }
  // Wide arms do not make the figure taller.
  std::vector<Vec3> pts = figure(1.7);
  pts.push_back(Vec3(500.0, 0.8, 0));
  EXPECT_EQ(guess_unit_from_height(pts).unit, "m");
}

TEST(UnitsGuess, NoCommonUnitCloseGivesCustom) {
  // 15 units tall: 0.1 m/unit, more than 1.5x away from inches (0.0254), cmu (0.056) and feet.
  const UnitGuess g = guess_unit_from_height(figure(15.0));
  EXPECT_EQ(g.unit, "custom") << g.reason;
  EXPECT_NEAR(g.metres_per_unit, 0.1, 1e-12);
  EXPECT_NE(g.reason.find("no common unit"), std::string::npos) << g.reason;
  // 2.7 units: 0.556 m/unit, between feet and metres.
  const UnitGuess h = guess_unit_from_height(figure(2.7));
  EXPECT_EQ(h.unit, "custom") << h.reason;
  EXPECT_NEAR(h.metres_per_unit, 1.5 / 2.7, 1e-12);
}

TEST(UnitsGuess, NoHeightAssumesMetres) {
  for (const std::vector<Vec3>& pts : {std::vector<Vec3>{}, std::vector<Vec3>{Vec3(1, 2, 3)},
                                       std::vector<Vec3>{Vec3(0, 1, 0), Vec3(5, 1, -5)}}) {
    const UnitGuess g = guess_unit_from_height(pts);
    EXPECT_EQ(g.unit, "m");
    EXPECT_EQ(g.metres_per_unit, 1.0);
    EXPECT_FALSE(g.reason.empty());
  }
  const std::vector<Vec3> infinite = {Vec3(0, 0, 0),
                                      Vec3(0, std::numeric_limits<double>::infinity(), 0)};
  const UnitGuess g = guess_unit_from_height(infinite);
  EXPECT_EQ(g.unit, "m");
  EXPECT_TRUE(std::isfinite(g.metres_per_unit));
}

TEST(UnitsFromName, KnownNames) {
  EXPECT_EQ(metres_per_unit_from_name("m"), 1.0);
  EXPECT_EQ(metres_per_unit_from_name("cm"), 0.01);
  EXPECT_EQ(metres_per_unit_from_name("mm"), 0.001);
  EXPECT_EQ(metres_per_unit_from_name("in"), 0.0254);
  EXPECT_EQ(metres_per_unit_from_name("ft"), 0.3048);
  EXPECT_DOUBLE_EQ(metres_per_unit_from_name("cmu"), 0.0254 / 0.45);
  EXPECT_NEAR(metres_per_unit_from_name("cmu"), 0.05644, 1e-5);
  EXPECT_EQ(metres_per_unit_from_name("metres"), 1.0);
  EXPECT_EQ(metres_per_unit_from_name("meters"), 1.0);
  EXPECT_EQ(metres_per_unit_from_name("centimetres"), 0.01);
  EXPECT_EQ(metres_per_unit_from_name("centimeters"), 0.01);
}

TEST(UnitsFromName, PlainNumbersAreMetresPerUnit) {
  EXPECT_EQ(metres_per_unit_from_name("1"), 1.0);
  EXPECT_EQ(metres_per_unit_from_name("0.01"), 0.01);
  EXPECT_EQ(metres_per_unit_from_name("2.54e-2"), 0.0254);
  EXPECT_EQ(metres_per_unit_from_name("0.056444"), 0.056444);
  EXPECT_EQ(metres_per_unit_from_name("100"), 100.0);
}

TEST(UnitsFromName, GarbageGivesZero) {
  for (const char* name : {"", "garbage", "furlongs", "0", "-1", "-0.01", "1.5x", "1.5 ", " 1",
                           "nan", "inf", "1e999", "0x10", "cm ", "m/s", "1,5"}) {
    EXPECT_EQ(metres_per_unit_from_name(name), 0.0) << "'" << name << "'";
  }
}

}  // namespace
}  // namespace ikfix::core
