#include "core/xz_grid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ikfix::core {

namespace {
// At most this many cells (4 M: 16 MB of offsets), whatever the item count.
constexpr double kMaxCells = 4.0 * 1024 * 1024;
// At most this many cell entries per item on average: a grid where the boxes would overlap
// more cells (boxes long across the grid, a mesh far wider than deep) is made coarser, so the
// grid's memory and build time stay linear in the items whatever their shapes.
constexpr double kMaxEntriesPerItem = 16.0;
}  // namespace

XzGrid::XzGrid(std::span<const XzBox> boxes, double per_cell) {
  if (boxes.empty()) return;
  double max_x = -std::numeric_limits<double>::infinity(), max_z = max_x;
  min_x_ = min_z_ = std::numeric_limits<double>::infinity();
  for (const XzBox& b : boxes) {
    min_x_ = std::min(min_x_, b.min_x), max_x = std::max(max_x, b.max_x);
    min_z_ = std::min(min_z_, b.min_z), max_z = std::max(max_z, b.max_z);
  }
  const double width = std::max(max_x - min_x_, 1e-9), depth = std::max(max_z - min_z_, 1e-9);
  // An extent past the double range makes the cells infinite (inv_cell_ 0): one cell then.
  auto cells_along = [&](double extent, double most) {
    const double n = std::ceil(extent * inv_cell_);
    return static_cast<int>(n >= 1.0 ? std::min(n, most) : 1.0);
  };
  auto shape = [&](double cells) {
    // Square cells, but never more than `cells` along one side (a thin strip of a mesh).
    const double cell = std::max({std::sqrt(width * depth / cells), width / cells, depth / cells});
    inv_cell_ = 1.0 / cell;
    columns_ = cells_along(width, kMaxCells);
    rows_ = cells_along(depth, kMaxCells / columns_);
  };
  struct Cells {
    int x0, x1, z0, z1;
  };
  std::vector<Cells> cells_of(boxes.size());
  // Every box's cells in the current shape, and the entries they make.
  auto find_cells = [&] {
    double total = 0.0;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      const XzBox& b = boxes[i];
      const Cells c{cell_x(b.min_x), cell_x(b.max_x), cell_z(b.min_z), cell_z(b.max_z)};
      cells_of[i] = c;
      total += (c.x1 - c.x0 + 1.0) * (c.z1 - c.z0 + 1.0);
    }
    return total;
  };
  const double items = static_cast<double>(boxes.size());
  double cells = std::clamp(items / per_cell, 1.0, kMaxCells);
  for (shape(cells); find_cells() > kMaxEntriesPerItem * items && cells > 1.0; shape(cells))
    cells = std::max(1.0, cells / 4.0);
  // Two passes (count, then fill) over the cells found for the shape kept: one array for all
  // cells, no per-cell allocation.
  cell_start_.assign(static_cast<std::size_t>(columns_) * rows_ + 1, 0);
  auto each_cell = [&](const Cells& b, auto&& body) {
    for (int cz = b.z0; cz <= b.z1; ++cz)
      for (int cx = b.x0; cx <= b.x1; ++cx) body(static_cast<std::size_t>(cz) * columns_ + cx);
  };
  for (const Cells& c : cells_of) each_cell(c, [&](std::size_t cell) { ++cell_start_[cell + 1]; });
  for (std::size_t c = 1; c < cell_start_.size(); ++c) cell_start_[c] += cell_start_[c - 1];
  items_.resize(cell_start_.back());
  std::vector<std::uint32_t> fill(cell_start_.begin(), cell_start_.end() - 1);
  for (std::size_t i = 0; i < boxes.size(); ++i)
    each_cell(cells_of[i],
              [&](std::size_t c) { items_[fill[c]++] = static_cast<std::uint32_t>(i); });
}

// NaN (a coordinate or extent beyond the double range) goes to cell 0, as does anything before
// the grid; anything past it to the last cell. Truncation is floor for the values >= 1 it is
// used on (below 1 both give cell 0), without floor's rounding sequence.
int XzGrid::cell_x(double x) const {
  const double c = (x - min_x_) * inv_cell_;
  return c >= 1.0 ? static_cast<int>(std::min(c, static_cast<double>(columns_ - 1))) : 0;
}

int XzGrid::cell_z(double z) const {
  const double c = (z - min_z_) * inv_cell_;
  return c >= 1.0 ? static_cast<int>(std::min(c, static_cast<double>(rows_ - 1))) : 0;
}

}  // namespace ikfix::core
