#pragma once
// A uniform grid over the horizontal plane (x, z) listing, per cell, the items whose bounding
// rectangle overlaps it: finds the few triangles near a point without a ray.
#include <cstdint>
#include <span>
#include <vector>

namespace ikfix::core {

struct XzBox {
  double min_x, min_z, max_x, max_z;  // world metres
};

class XzGrid {
 public:
  XzGrid() = default;
  // Items 0..boxes.size()-1 by their boxes; about `per_cell` items per occupied cell.
  explicit XzGrid(std::span<const XzBox> boxes, double per_cell = 2.0);

  // Calls visit(item) for every item whose box may overlap [x - r, x + r] x [z - r, z + r]
  // (an item may be visited more than once; every overlapping one is visited).
  template <typename Visit>
  void for_each_near(double x, double z, double r, Visit&& visit) const {
    if (cell_start_.empty()) return;
    const int x0 = cell_x(x - r), x1 = cell_x(x + r), z0 = cell_z(z - r), z1 = cell_z(z + r);
    for (int cz = z0; cz <= z1; ++cz)
      for (int cx = x0; cx <= x1; ++cx) {
        const std::size_t cell = static_cast<std::size_t>(cz) * columns_ + cx;
        for (std::uint32_t k = cell_start_[cell]; k < cell_start_[cell + 1]; ++k) visit(items_[k]);
      }
  }

 private:
  int cell_x(double x) const;
  int cell_z(double z) const;

  double min_x_ = 0.0, min_z_ = 0.0, inv_cell_ = 1.0;
  int columns_ = 0, rows_ = 0;
  std::vector<std::uint32_t> cell_start_;  // columns_ * rows_ + 1 offsets into items_
  std::vector<std::uint32_t> items_;
};

}  // namespace ikfix::core
