#include "core/xz_grid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ikfix::core {

namespace {
// At most this many cells (4 M: 16 MB of offsets), whatever the item count.
constexpr double kMaxCells = 4.0 * 1024 * 1024;
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
  const double cells = std::clamp(static_cast<double>(boxes.size()) / per_cell, 1.0, kMaxCells);
  const double cell = std::sqrt(width * depth / cells);
  inv_cell_ = 1.0 / cell;
  columns_ = static_cast<int>(std::clamp(std::ceil(width * inv_cell_), 1.0, kMaxCells));
  rows_ = static_cast<int>(std::clamp(std::ceil(depth * inv_cell_), 1.0, kMaxCells / columns_));
  // Two passes (count, then fill): one array for all cells, no per-cell allocation.
  cell_start_.assign(static_cast<std::size_t>(columns_) * rows_ + 1, 0);
  auto each_cell = [&](const XzBox& b, auto&& body) {
    for (int cz = cell_z(b.min_z); cz <= cell_z(b.max_z); ++cz)
      for (int cx = cell_x(b.min_x); cx <= cell_x(b.max_x); ++cx)
        body(static_cast<std::size_t>(cz) * columns_ + cx);
  };
  for (const XzBox& b : boxes) each_cell(b, [&](std::size_t c) { ++cell_start_[c + 1]; });
  for (std::size_t c = 1; c < cell_start_.size(); ++c) cell_start_[c] += cell_start_[c - 1];
  items_.resize(cell_start_.back());
  std::vector<std::uint32_t> fill(cell_start_.begin(), cell_start_.end() - 1);
  for (std::size_t i = 0; i < boxes.size(); ++i)
    each_cell(boxes[i], [&](std::size_t c) { items_[fill[c]++] = static_cast<std::uint32_t>(i); });
}

int XzGrid::cell_x(double x) const {
  const double c = std::floor((x - min_x_) * inv_cell_);
  return static_cast<int>(std::clamp(c, 0.0, static_cast<double>(columns_ - 1)));
}

int XzGrid::cell_z(double z) const {
  const double c = std::floor((z - min_z_) * inv_cell_);
  return static_cast<int>(std::clamp(c, 0.0, static_cast<double>(rows_ - 1)));
}

}  // namespace ikfix::core
