#include <gtest/gtest.h>

#include <vector>

#include "core/fix/plant_normal.hpp"

namespace ikfix::core {
namespace {

TEST(PlantNormal, EveryPlantedFrameTakesItsPlantsFirstFrame) {
  const std::vector<char> planted = {0, 1, 1, 1, 0, 0, 1, 1, 0, 1};
  const std::vector<int> first = plant_first_frames(planted);
  const std::vector<int> want = {0, 1, 1, 1, 4, 5, 6, 6, 8, 9};
  EXPECT_EQ(first, want);
  EXPECT_TRUE(plant_first_frames(std::vector<char>{}).empty());
}

TEST(PlantNormal, APlantIsRemadeWholeWhenItsFirstFrameIsOrWhenItBeginsElsewhere) {
  const std::vector<char> planted = {0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0};
  // Same plants as before; only the first plant's first frame and the third plant's last frame
  // changed.
  std::vector<char> remake = {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0};
  remake_whole_plants(remake, planted, planted);
  EXPECT_EQ(remake, (std::vector<char>{0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0}));
  // The second plant began a frame later before: made again whole, though no frame of it was.
  std::vector<char> old = planted;
  old[5] = 0;
  std::vector<char> remake2(planted.size(), 0);
  remake_whole_plants(remake2, planted, old);
  EXPECT_EQ(remake2, (std::vector<char>{0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0}));
  // ... or a frame earlier (it was joined to the plant before it).
  old = planted;
  old[4] = 1;
  std::vector<char> remake3(planted.size(), 0);
  remake_whole_plants(remake3, planted, old);
  EXPECT_EQ(remake3, (std::vector<char>{0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0}));
  // Nothing known of the plants before: every plant is made again.
  std::vector<char> remake4(planted.size(), 0);
  remake_whole_plants(remake4, planted, {});
  EXPECT_EQ(remake4, planted);
}

}  // namespace
}  // namespace ikfix::core
