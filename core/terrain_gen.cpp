#include "core/terrain_gen.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ikfix::core {

namespace {

constexpr double kMinLanding = 2.0;                // flat ground before and after a feature, m
constexpr double kMaxExtent = 100000.0;            // sizes and distances beyond this are typos, m
constexpr std::uint64_t kMaxTriangles = 20000000;  // bumps grid limit

std::string number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

[[noreturn]] void invalid(const std::string& what, double value, const std::string& unit) {
  throw std::invalid_argument(what + unit + ", got " + number(value));
}

void require_positive(const char* name, double value, double max = kMaxExtent) {
  if (!(value > 0.0) || !(value <= max))
    invalid(std::string(name) + " must be > 0 and <= " + number(max), value, " m");
}
void require_finite(const char* name, double value) {
  if (!std::isfinite(value) || std::abs(value) > kMaxExtent)
    invalid(std::string(name) + " must be a finite distance within " + number(kMaxExtent), value,
            " m");
}
void require_width(double width) {
  if (width != 0.0) require_positive("width", width);
}

// Builds a triangle soup from quads given in (along, across, y) coordinates of an axis frame.
class QuadBuilder {
 public:
  explicit QuadBuilder(TerrainAxis axis)
      : along_(axis_direction(axis)), across_(along_.z, 0.0, -along_.x) {}

  Vec3 world(double along, double across, double y) const {
    return Vec3(along * along_.x + across * across_.x, y, along * along_.z + across * across_.z);
  }
  Vec3 along_dir() const { return along_; }

  // Horizontal rectangle [a0, a1] x [c0, c1] at height y, facing up.
  void tread(double a0, double a1, double c0, double c1, double y) {
    quad(world(a0, c0, y), world(a1, c0, y), world(a1, c1, y), world(a0, c1, y), Vec3(0, 1, 0));
  }
  // Vertical rectangle at along = a across [c0, c1] from y0 to y1, facing `facing`.
  void wall(double a, double c0, double c1, double y0, double y1, const Vec3& facing) {
    quad(world(a, c0, y0), world(a, c1, y0), world(a, c1, y1), world(a, c0, y1), facing);
  }
  // Ramp from along a0 (height y0) to a1 (height y1), across [c0, c1], facing up.
  void ramp(double a0, double a1, double c0, double c1, double y0, double y1) {
    quad(world(a0, c0, y0), world(a1, c0, y1), world(a1, c1, y1), world(a0, c1, y0), Vec3(0, 1, 0));
  }

  TerrainMesh take() { return std::move(mesh_); }

 private:
  // Corners in order around the rectangle; wound so the face normal points along `facing`.
  void quad(const Vec3& p0, const Vec3& p1, const Vec3& p2, const Vec3& p3, const Vec3& facing) {
    const std::uint32_t v[4] = {vertex(p0), vertex(p1), vertex(p2), vertex(p3)};
    const bool flip = glm::dot(glm::cross(p1 - p0, p2 - p0), facing) < 0.0;
    if (flip) {
      mesh_.triangles.push_back({v[0], v[2], v[1]});
      mesh_.triangles.push_back({v[0], v[3], v[2]});
    } else {
      mesh_.triangles.push_back({v[0], v[1], v[2]});
      mesh_.triangles.push_back({v[0], v[2], v[3]});
    }
  }
  // Corners shared by treads and risers are one vertex (positions are computed identically).
  std::uint32_t vertex(const Vec3& p) {
    const auto [it, inserted] = index_.try_emplace(
        std::array<double, 3>{p.x, p.y, p.z}, static_cast<std::uint32_t>(mesh_.vertices.size()));
    if (inserted) mesh_.vertices.push_back(p);
    return it->second;
  }

  Vec3 along_;
  Vec3 across_;
  TerrainMesh mesh_;
  std::map<std::array<double, 3>, std::uint32_t> index_;
};

double half_width(double width, double size) { return 0.5 * (width == 0.0 ? size : width); }

void validate(const StairsParams& p) {
  require_positive("step height", p.step_height, 100.0);
  require_positive("step depth", p.step_depth, 100.0);
  if (p.steps < 1 || p.steps > 10000)
    throw std::invalid_argument("steps must be in 1..10000, got " + std::to_string(p.steps));
  require_finite("start", p.start);
  require_positive("size", p.size);
  require_width(p.width);
}

void validate(const SlopeParams& p) {
  if (!std::isfinite(p.angle_deg) || p.angle_deg == 0.0 || std::abs(p.angle_deg) > 80.0)
    invalid("slope angle must be non-zero and within [-80, 80]", p.angle_deg, " degrees");
  require_finite("start", p.start);
  if (!(p.length >= 0.0) || !(p.length <= kMaxExtent))
    invalid("slope length must be >= 0 (0 = to the edge) and <= " + number(kMaxExtent), p.length,
            " m");
  require_positive("size", p.size);
  require_width(p.width);
}

void validate(const CliffParams& p) {
  if (!std::isfinite(p.height) || p.height == 0.0 || std::abs(p.height) > 1000.0)
    invalid("cliff height must be non-zero and within [-1000, 1000]", p.height, " m");
  require_finite("start", p.start);
  require_positive("size", p.size);
  require_width(p.width);
}

void validate(const BumpsParams& p) {
  require_positive("bump amplitude", p.amplitude, 1000.0);
  require_positive("bump wavelength", p.wavelength);
  require_positive("size", p.size);
  require_positive("cell", p.cell);
  const double cells = std::max(1.0, std::round(p.size / p.cell));
  if (2.0 * cells * cells > static_cast<double>(kMaxTriangles))
    invalid("cell too small: the grid would exceed " + std::to_string(kMaxTriangles) +
                " triangles; cell must be at least " +
                number(p.size / std::sqrt(kMaxTriangles / 2.0)),
            p.cell, " m");
}

// Position of riser k (1-based) along the axis; the mesh and stairs_height share it exactly.
double riser_along(const StairsParams& p, int k) { return p.start + (k - 1) * p.step_depth; }

double slope_ramp_end(const SlopeParams& p) {
  return p.length > 0.0 ? p.start + p.length : std::max(0.5 * p.size, p.start + kMinLanding);
}
double slope_rise(const SlopeParams& p) {
  return (slope_ramp_end(p) - p.start) * std::tan(p.angle_deg * kPi / 180.0);
}

}  // namespace

std::optional<TerrainAxis> parse_terrain_axis(std::string_view text) {
  if (text == "+x" || text == "x" || text == "+X" || text == "X") return TerrainAxis::kPosX;
  if (text == "-x" || text == "-X") return TerrainAxis::kNegX;
  if (text == "+z" || text == "z" || text == "+Z" || text == "Z") return TerrainAxis::kPosZ;
  if (text == "-z" || text == "-Z") return TerrainAxis::kNegZ;
  return std::nullopt;
}

std::string_view to_string(TerrainAxis axis) {
  switch (axis) {
    case TerrainAxis::kPosX:
      return "+x";
    case TerrainAxis::kNegX:
      return "-x";
    case TerrainAxis::kPosZ:
      return "+z";
    case TerrainAxis::kNegZ:
      return "-z";
  }
  return "?";
}

Vec3 axis_direction(TerrainAxis axis) {
  switch (axis) {
    case TerrainAxis::kPosX:
      return Vec3(1, 0, 0);
    case TerrainAxis::kNegX:
      return Vec3(-1, 0, 0);
    case TerrainAxis::kPosZ:
      return Vec3(0, 0, 1);
    case TerrainAxis::kNegZ:
      return Vec3(0, 0, -1);
  }
  return Vec3(0, 0, 1);
}

double along_axis(TerrainAxis axis, double x, double z) {
  switch (axis) {
    case TerrainAxis::kPosX:
      return x;
    case TerrainAxis::kNegX:
      return -x;
    case TerrainAxis::kPosZ:
      return z;
    case TerrainAxis::kNegZ:
      return -z;
  }
  return z;
}

TerrainMesh make_flat_terrain(const FlatParams& p) {
  require_positive("size", p.size);
  if (!std::isfinite(p.height) || std::abs(p.height) > kMaxExtent)
    invalid("height must be finite and within " + number(kMaxExtent), p.height, " m");
  QuadBuilder builder(TerrainAxis::kPosZ);
  const double h = 0.5 * p.size;
  builder.tread(-h, h, -h, h, p.height);
  return builder.take();
}

TerrainMesh make_stairs_terrain(const StairsParams& p) {
  validate(p);
  QuadBuilder builder(p.axis);
  const double c = half_width(p.width, p.size);
  const double begin = std::min(-0.5 * p.size, p.start - kMinLanding);
  const double top = riser_along(p, p.steps);
  const double end = std::max(0.5 * p.size, top + kMinLanding);
  const Vec3 facing = -builder.along_dir();  // risers face a walker coming up the stairs

  builder.tread(begin, p.start, -c, c, 0.0);
  for (int k = 1; k <= p.steps; ++k) {
    const double y0 = (k - 1) * p.step_height;
    const double y1 = k * p.step_height;
    const double a = riser_along(p, k);
    builder.wall(a, -c, c, y0, y1, facing);
    builder.tread(a, k == p.steps ? end : riser_along(p, k + 1), -c, c, y1);
  }
  return builder.take();
}

TerrainMesh make_slope_terrain(const SlopeParams& p) {
  validate(p);
  QuadBuilder builder(p.axis);
  const double c = half_width(p.width, p.size);
  const double begin = std::min(-0.5 * p.size, p.start - kMinLanding);
  const double ramp_end = slope_ramp_end(p);
  const double rise = slope_rise(p);
  builder.tread(begin, p.start, -c, c, 0.0);
  builder.ramp(p.start, ramp_end, -c, c, 0.0, rise);
  if (p.length > 0.0) {
    const double end = std::max(0.5 * p.size, ramp_end + kMinLanding);
    builder.tread(ramp_end, end, -c, c, rise);
  }
  return builder.take();
}

TerrainMesh make_cliff_terrain(const CliffParams& p) {
  validate(p);
  QuadBuilder builder(p.axis);
  const double c = half_width(p.width, p.size);
  const double begin = std::min(-0.5 * p.size, p.start - kMinLanding);
  const double end = std::max(0.5 * p.size, p.start + kMinLanding);
  builder.tread(begin, p.start, -c, c, 0.0);
  // The wall faces the low side: back towards the walker for a raise, ahead for a drop.
  const Vec3 facing = p.height > 0.0 ? -builder.along_dir() : builder.along_dir();
  builder.wall(p.start, -c, c, std::min(0.0, p.height), std::max(0.0, p.height), facing);
  builder.tread(p.start, end, -c, c, p.height);
  return builder.take();
}

TerrainMesh make_bumps_terrain(const BumpsParams& p) {
  validate(p);
  const auto n = static_cast<std::uint32_t>(std::max(1.0, std::round(p.size / p.cell)));
  const double spacing = p.size / n;
  const double h = 0.5 * p.size;
  const std::uint32_t row = n + 1;
  TerrainMesh mesh;
  mesh.vertices.reserve(std::size_t{row} * row);
  mesh.vertex_normals.reserve(std::size_t{row} * row);
  mesh.triangles.reserve(2 * std::size_t{n} * n);
  for (std::uint32_t j = 0; j <= n; ++j) {
    // The last row/column lands exactly on the edge.
    const double z = j == n ? h : -h + j * spacing;
    for (std::uint32_t i = 0; i <= n; ++i) {
      const double x = i == n ? h : -h + i * spacing;
      mesh.vertices.emplace_back(x, bumps_height(p, x, z), z);
      mesh.vertex_normals.push_back(bumps_normal(p, x, z));
    }
  }
  for (std::uint32_t j = 0; j < n; ++j) {
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t v00 = j * row + i, v10 = v00 + 1, v01 = v00 + row, v11 = v01 + 1;
      // Counter-clockwise seen from above (+Y).
      mesh.triangles.push_back({v00, v01, v11});
      mesh.triangles.push_back({v00, v11, v10});
    }
  }
  return mesh;
}

double stairs_height(const StairsParams& p, double along) {
  if (!(along >= p.start)) return 0.0;
  // Risers passed: estimate, then settle against the exact riser positions the mesh uses.
  const double estimate = std::floor((along - p.start) / p.step_depth) + 1.0;
  int k = static_cast<int>(std::clamp(estimate, 1.0, static_cast<double>(p.steps)));
  while (k < p.steps && riser_along(p, k + 1) <= along) ++k;
  while (k > 1 && riser_along(p, k) > along) --k;
  return k * p.step_height;
}

double slope_height(const SlopeParams& p, double along) {
  if (!(along > p.start)) return 0.0;
  const double ramp_end = slope_ramp_end(p);
  if (along >= ramp_end) return slope_rise(p);
  return (along - p.start) * std::tan(p.angle_deg * kPi / 180.0);
}

double bumps_height(const BumpsParams& p, double x, double z) {
  const double sx = std::sin(kPi * x / p.wavelength);
  const double sz = std::sin(kPi * z / p.wavelength);
  return 0.5 * p.amplitude * (sx * sx + sz * sz);
}

Vec3 bumps_normal(const BumpsParams& p, double x, double z) {
  // d/dx [A/2 sin^2(pi x / L)] = A/2 * (pi / L) * sin(2 pi x / L)
  const double k = 0.5 * p.amplitude * kPi / p.wavelength;
  const double dy_dx = k * std::sin(2.0 * kPi * x / p.wavelength);
  const double dy_dz = k * std::sin(2.0 * kPi * z / p.wavelength);
  return glm::normalize(Vec3(-dy_dx, 1.0, -dy_dz));
}

double cliff_height(const CliffParams& p, double along) {
  if (along == p.start) return std::max(0.0, p.height);  // on the edge: the upper side
  return along > p.start ? p.height : 0.0;
}

}  // namespace ikfix::core
