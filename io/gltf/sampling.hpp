#pragma once
// Accessor decoding and animation-sampler evaluation, exactly as glTF 2.0 defines them
// (Appendix C "Animation Sampler Interpolation Modes").
//
// - Accessors: any componentType; `normalized` integers decoded with the spec's formulas
//   (BYTE max(c/127, -1), UNSIGNED_BYTE c/255, SHORT max(c/32767, -1), UNSIGNED_SHORT c/65535);
//   byteStride honoured; sparse accessors applied on top of their base (or of zeros);
//   accessors without a bufferView are zeros. Values are decoded to double.
// - Samplers: before the first key the first value holds, after the last key the last one.
//   A time equal to a key time gives that key's value as-is. STEP holds v_k; LINEAR lerps
//   (slerp along the short path for rotations, with the spec's sign rule); CUBICSPLINE is the
//   Hermite spline with tangents scaled by the segment duration, normalised for rotations.
#include <span>
#include <string>
#include <vector>

#include "io/gltf/document.hpp"

namespace ikfix::io::gltf {

struct AccessorData {
  int count = 0;
  int components = 0;          // 1 (SCALAR), 2, 3, 4, 4 (MAT2), 9 (MAT3), 16 (MAT4)
  int component_type = 0;      // 5126 FLOAT, 5120-5125 the integer types
  std::vector<double> values;  // count * components
};

// Decodes accessor `index`. Throws InputError naming the file and the accessor on anything
// malformed (out of range, unknown type, data beyond its bufferView or buffer, non-finite floats).
AccessorData read_accessor(const Document& doc, int index);

// Keyframes of one sampler, decoded. For CUBICSPLINE, `values` holds (in-tangent, value,
// out-tangent) per key, as in the file.
struct Keyframes {
  std::vector<double> times;  // strictly increasing seconds (non-decreasing is tolerated)
  std::vector<double> values;
  int components = 0;
  Interpolation interpolation = Interpolation::linear;
  bool rotation = false;  // quaternion (x, y, z, w): slerp for LINEAR, normalise CUBICSPLINE
};

// Decodes sampler `sampler` of animation `animation` for a channel of `path`, checking counts
// and types. Throws InputError naming the animation and sampler.
Keyframes read_keyframes(const Document& doc, int animation, int sampler, Path path);

// Evaluates `keys` at each of `times` (any order; increasing is fastest), writing
// times.size() * keys.components values to `out`. Rotations are returned as given by the
// formulas (not re-normalised, except CUBICSPLINE as the spec requires).
void evaluate(const Keyframes& keys, std::span<const double> times, std::span<double> out);

}  // namespace ikfix::io::gltf
