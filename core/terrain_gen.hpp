#pragma once
// Test terrains: flat ground, stairs, a slope, smooth bumps and a cliff, as triangle meshes in
// world metres, Y up, counter-clockwise front faces (treads face up, risers face the walker).
//
// Layout shared by all generators: a clip that starts near the origin and walks along the
// chosen axis (+z by default) stands on flat ground at y = 0 first, then meets the feature
// `start` metres ahead. Coordinates along the axis are called `along` (signed metres from the
// origin in the axis direction); across the axis the terrain spans [-width/2, width/2].
// The terrain reaches from along = min(-size/2, start - 2) to at least along = +size/2
// (further when the feature needs it), so there are always 2 m of flat ground before the
// feature and, except for a slope running to the edge, at least 2 m after it.
//
// Every generator validates its parameters and throws std::invalid_argument with a one-line
// message naming the parameter (e.g. "step height must be > 0 m, got -0.1").
#include <optional>
#include <string_view>

#include "core/math.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

// Direction in which the feature (stairs going up, slope, cliff) lies from the origin.
enum class TerrainAxis { kPosX, kNegX, kPosZ, kNegZ };

// "+x", "-x", "+z", "-z" (also "x", "z" for the positive ones); nullopt otherwise.
std::optional<TerrainAxis> parse_terrain_axis(std::string_view text);
std::string_view to_string(TerrainAxis axis);
// Unit vector of the axis, world space (y = 0).
Vec3 axis_direction(TerrainAxis axis);
// Signed distance of world (x, z) along the axis from the origin, metres.
double along_axis(TerrainAxis axis, double x, double z);

// Flat ground: a size x size square centred on the origin at y = height.
struct FlatParams {
  double size = 20.0;   // side length, metres, > 0
  double height = 0.0;  // ground height, metres, any finite value
};

// A straight staircase. Ground is y = 0 before the first riser, which stands `start` metres
// along the axis; each of `steps` risers lifts the ground by `step_height`, risers are
// `step_depth` apart, and after the last riser a landing at y = steps * step_height runs to
// along = max(size/2, last riser + 2 m). Risers are vertical faces.
struct StairsParams {
  double step_height = 0.15;  // metres, > 0 (riser height)
  double step_depth = 0.30;   // metres, > 0 (tread depth, riser to riser)
  int steps = 10;             // number of risers, 1..10000
  double start = 0.5;         // metres along the axis to the first riser, any finite value
  TerrainAxis axis = TerrainAxis::kPosZ;  // direction of going up
  double width = 0.0;                     // across the axis, metres; 0 = same as size, else > 0
  double size = 20.0;                     // metres, > 0
};

// A plane ramp: y = 0 before `start`, then rising at `angle_deg` (negative: going down).
// With length > 0 the ramp is `length` metres long (along the axis) and is followed by flat
// ground at the height reached, to along = max(size/2, start + length + 2). With length = 0
// the ramp runs to the far edge, along = max(size/2, start + 2).
struct SlopeParams {
  double angle_deg = 10.0;  // degrees, in [-80, 80], not 0
  double start = 0.5;       // metres along the axis where the ramp begins
  double length = 0.0;      // ramp length along the axis, metres, >= 0 (0 = to the edge)
  TerrainAxis axis = TerrainAxis::kPosZ;
  double width = 0.0;  // across the axis, metres; 0 = same as size
  double size = 20.0;  // metres, > 0
};

// Smooth crossed waves on a square grid centred on the origin:
//   y(x, z) = amplitude / 2 * (sin^2(pi x / wavelength) + sin^2(pi z / wavelength)),
// so y is in [0, amplitude], y = 0 with zero slope at the origin, peaks of `amplitude` at
// (wavelength/2 + i wavelength, wavelength/2 + j wavelength), and any straight walk goes up and
// down. Vertex normals are the analytic ones. Grid cells are `cell` metres (rounded so a whole
// number of cells spans `size`), two triangles each: 20 m at 0.1 m is 80 000 triangles.
struct BumpsParams {
  double amplitude = 0.1;   // metres, > 0 (peak height)
  double wavelength = 2.0;  // metres, > 0 (distance between peaks)
  double size = 20.0;       // side length, metres, > 0
  double cell = 0.1;        // grid spacing, metres, > 0; at most 20 million triangles
};

// A floor at y = 0 with a vertical step of `height` (positive: a wall up to a raised floor,
// negative: a drop) `start` metres along the axis; for frames whose feet cannot reach.
struct CliffParams {
  double height = 0.5;  // metres, non-zero, |height| <= 1000
  double start = 2.0;   // metres along the axis to the edge
  TerrainAxis axis = TerrainAxis::kPosZ;
  double width = 0.0;  // across the axis, metres; 0 = same as size
  double size = 20.0;  // metres, > 0
};

TerrainMesh make_flat_terrain(const FlatParams& params);
TerrainMesh make_stairs_terrain(const StairsParams& params);
TerrainMesh make_slope_terrain(const SlopeParams& params);
TerrainMesh make_bumps_terrain(const BumpsParams& params);
TerrainMesh make_cliff_terrain(const CliffParams& params);

// The analytic ground heights the generators build, for tests and checks. `along` is the
// signed distance along the axis (see along_axis); at a riser or cliff edge (along exactly on
// it) the upper side is returned, as a vertical ray would find.
double stairs_height(const StairsParams& params, double along);
double slope_height(const SlopeParams& params, double along);
double bumps_height(const BumpsParams& params, double x, double z);
Vec3 bumps_normal(const BumpsParams& params, double x, double z);
double cliff_height(const CliffParams& params, double along);

}  // namespace ikfix::core
