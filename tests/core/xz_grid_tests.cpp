// XzGrid visits every item whose box overlaps the query square, whatever the boxes' shapes: a
// mesh far longer than wide, boxes across the whole grid, coordinates at the double range's
// edge. Its cost stays linear in the items (fuzz_obj found a 4-triangle OBJ, one vertex at
// z = -4.3e11, that made a grid of 4 M cells, each holding every triangle).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "core/xz_grid.hpp"

namespace ikfix::core {
namespace {

bool overlaps(const XzBox& b, double x, double z, double r) {
  return b.max_x >= x - r && b.min_x <= x + r && b.max_z >= z - r && b.min_z <= z + r;
}

// Every box that overlaps the query square is visited (extra visits are allowed).
void expect_finds_overlapping(const XzGrid& grid, const std::vector<XzBox>& boxes, double x,
                              double z, double r) {
  std::set<std::uint32_t> visited;
  grid.for_each_near(x, z, r, [&](std::uint32_t item) { visited.insert(item); });
  for (std::uint32_t i = 0; i < boxes.size(); ++i) {
    if (!overlaps(boxes[i], x, z, r)) continue;
    ASSERT_TRUE(visited.count(i)) << "item " << i << " missed at (" << x << ", " << z << ")";
  }
  for (std::uint32_t item : visited) ASSERT_LT(item, boxes.size());
}

TEST(XzGrid, FindsEveryOverlappingBoxOfRandomTriangles) {
  std::mt19937 rng(19);
  std::uniform_real_distribution<double> where(-20.0, 20.0), size(0.0, 1.5);
  std::vector<XzBox> boxes(3000);
  for (XzBox& b : boxes) {
    b.min_x = where(rng), b.min_z = where(rng);
    b.max_x = b.min_x + size(rng), b.max_z = b.min_z + size(rng);
  }
  const XzGrid grid(boxes);
  for (int q = 0; q < 500; ++q) expect_finds_overlapping(grid, boxes, where(rng), where(rng), 0.3);
  expect_finds_overlapping(grid, boxes, 1e6, -1e6, 0.1);  // far outside: the border cells
}

TEST(XzGrid, AStripFarLongerThanWideStaysSmallAndExact) {
  // 2000 boxes 1 m wide and 4.3e11 m long, side by side: before the grid kept its cells square
  // and a side within the item count, this made 4 M cells of 2000 entries each (8.4e9 entries,
  // past the 32-bit offsets).
  std::vector<XzBox> boxes;
  for (int i = 0; i < 2000; ++i) boxes.push_back({i * 1.0, -4.3e11, i + 1.0, 10.0});
  const XzGrid grid(boxes);
  for (double x : {0.5, 999.0, 1999.5, -5.0})
    for (double z : {-4.3e11, -1e5, 0.0, 10.0}) expect_finds_overlapping(grid, boxes, x, z, 0.25);
}

TEST(XzGrid, BoxesAcrossTheWholeGridMakeItCoarser) {
  // Half the boxes span the whole width, half the whole depth: any fine grid would list each in
  // a whole row or column of cells.
  std::vector<XzBox> boxes;
  for (int i = 0; i < 5000; ++i) {
    const double at = -50.0 + 0.02 * i;
    boxes.push_back({-50.0, at, 50.0, at + 0.01});
    boxes.push_back({at, -50.0, at + 0.01, 50.0});
  }
  const XzGrid grid(boxes);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> where(-55.0, 55.0);
  for (int q = 0; q < 20; ++q) expect_finds_overlapping(grid, boxes, where(rng), where(rng), 0.05);
}

TEST(XzGrid, CoordinatesAtTheEdgeOfTheDoubleRange) {
  // The extent overflows to infinity: every box lands in one cell, none is lost, and no
  // infinite or NaN cell coordinate is turned into an int.
  const double big = std::numeric_limits<double>::max();
  const std::vector<XzBox> boxes = {
      {-big, -big, -big / 2, 0.0}, {0.0, 0.0, big, big}, {-1, -1, 1, 1}};
  const XzGrid grid(boxes);
  for (double x : {-big, 0.0, big}) expect_finds_overlapping(grid, boxes, x, 0.0, 1.0);
}

TEST(XzGrid, EmptyVisitsNothing) {
  const XzGrid grid(std::vector<XzBox>{});
  int visits = 0;
  grid.for_each_near(0.0, 0.0, 1e9, [&](std::uint32_t) { ++visits; });
  EXPECT_EQ(visits, 0);
}

}  // namespace
}  // namespace ikfix::core
