#include "io/gltf/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "io/error.hpp"

namespace ikfix::io::gltf {
namespace {

constexpr int kByte = 5120;
constexpr int kUnsignedByte = 5121;
constexpr int kShort = 5122;
constexpr int kUnsignedShort = 5123;
constexpr int kUnsignedInt = 5125;
constexpr int kFloat = 5126;

int component_size(int component_type) {
  switch (component_type) {
    case kByte:
    case kUnsignedByte:
      return 1;
    case kShort:
    case kUnsignedShort:
      return 2;
    case kUnsignedInt:
    case kFloat:
      return 4;
    default:
      return 0;
  }
}

int component_count(const std::string& type) {
  if (type == "SCALAR") return 1;
  if (type == "VEC2") return 2;
  if (type == "VEC3") return 3;
  if (type == "VEC4") return 4;
  if (type == "MAT2") return 4;
  if (type == "MAT3") return 9;
  if (type == "MAT4") return 16;
  return 0;
}

template <typename T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline double decode(const char* p, int component_type, bool normalized) {
  switch (component_type) {
    case kByte: {
      const double c = load<std::int8_t>(p);
      return normalized ? std::max(c / 127.0, -1.0) : c;
    }
    case kUnsignedByte: {
      const double c = load<std::uint8_t>(p);
      return normalized ? c / 255.0 : c;
    }
    case kShort: {
      const double c = load<std::int16_t>(p);
      return normalized ? std::max(c / 32767.0, -1.0) : c;
    }
    case kUnsignedShort: {
      const double c = load<std::uint16_t>(p);
      return normalized ? c / 65535.0 : c;
    }
    case kUnsignedInt:
      return load<std::uint32_t>(p);
    default:
      return load<float>(p);
  }
}

// decode() of `count` elements of `components` tightly packed values each, `stride` bytes apart,
// the component type fixed at compile time: the same values without a type switch per value
// (mesh attributes hold tens of thousands).
template <int kType>
void decode_elements(const char* base, std::size_t stride, std::int64_t count, int components,
                     int csize, bool normalized, double* out) {
  for (std::int64_t i = 0; i < count; ++i) {
    const char* p = base + stride * static_cast<std::size_t>(i);
    for (int c = 0; c < components; ++c)
      out[i * components + c] = decode(p + c * csize, kType, normalized);
  }
}

// decode_elements for the type named at run time.
void decode_elements(int type, const char* base, std::size_t stride, std::int64_t count,
                     int components, int csize, bool normalized, double* out) {
  switch (type) {
    case kByte:
      return decode_elements<kByte>(base, stride, count, components, csize, normalized, out);
    case kUnsignedByte:
      return decode_elements<kUnsignedByte>(base, stride, count, components, csize, normalized,
                                            out);
    case kShort:
      return decode_elements<kShort>(base, stride, count, components, csize, normalized, out);
    case kUnsignedShort:
      return decode_elements<kUnsignedShort>(base, stride, count, components, csize, normalized,
                                             out);
    case kUnsignedInt:
      return decode_elements<kUnsignedInt>(base, stride, count, components, csize, normalized, out);
    default:
      return decode_elements<kFloat>(base, stride, count, components, csize, normalized, out);
  }
}

[[noreturn]] void fail(const Document& doc, const std::string& cause) {
  throw InputError(doc.source_name, cause);
}

std::int64_t get_int(const Document& doc, const Json& object, const char* key,
                     std::int64_t fallback, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end()) return fallback;
  if (!it->is_number_integer()) fail(doc, where + ": '" + key + "' is not an integer");
  return it->get<std::int64_t>();
}

// The bytes of bufferView `index` and its stride (0 when absent).
std::string_view buffer_view_bytes(const Document& doc, std::int64_t index, std::size_t& stride,
                                   const std::string& where) {
  const Json& views = array_member(doc.json, "bufferViews");
  if (index < 0 || index >= static_cast<std::int64_t>(views.size()))
    fail(doc, where + ": bufferView " + std::to_string(index) + " does not exist");
  const Json& view = views[static_cast<std::size_t>(index)];
  const std::string view_where = "bufferView " + std::to_string(index);
  if (view.contains("extensions") && view["extensions"].is_object())
    for (const auto& [name, value] : view["extensions"].items())
      if (name.find("meshopt") != std::string::npos)
        fail(doc,
             view_where + " is compressed (" + name + "); compressed buffers are not supported");
  const std::int64_t buffer = get_int(doc, view, "buffer", -1, view_where);
  if (buffer < 0 || buffer >= static_cast<std::int64_t>(doc.buffers.size()))
    fail(doc, view_where + ": buffer " + std::to_string(buffer) + " does not exist");
  const std::int64_t offset = get_int(doc, view, "byteOffset", 0, view_where);
  const std::int64_t length = get_int(doc, view, "byteLength", -1, view_where);
  stride = static_cast<std::size_t>(
      std::max<std::int64_t>(0, get_int(doc, view, "byteStride", 0, view_where)));
  const std::string_view bytes = doc.buffer_bytes(static_cast<int>(buffer));
  if (offset < 0 || length < 0 ||
      static_cast<std::uint64_t>(offset) + static_cast<std::uint64_t>(length) > bytes.size())
    fail(doc, view_where + ": byteOffset " + std::to_string(offset) + " + byteLength " +
                  std::to_string(length) + " is beyond buffer " + std::to_string(buffer) + " (" +
                  std::to_string(bytes.size()) + " bytes)");
  return bytes.substr(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
}

}  // namespace

AccessorData read_accessor(const Document& doc, int index) {
  const std::string where = "accessor " + std::to_string(index);
  const Json& accessors = array_member(doc.json, "accessors");
  if (index < 0 || index >= static_cast<int>(accessors.size()))
    fail(doc, where + " does not exist");
  const Json& a = accessors[static_cast<std::size_t>(index)];
  if (!a.is_object()) fail(doc, where + " is not an object");
  const int component_type = static_cast<int>(get_int(doc, a, "componentType", 0, where));
  const int csize = component_size(component_type);
  if (csize == 0) fail(doc, where + ": unknown componentType " + std::to_string(component_type));
  const std::string type =
      a.contains("type") && a["type"].is_string() ? a["type"].get<std::string>() : "";
  const int components = component_count(type);
  if (components == 0) fail(doc, where + ": unknown type '" + type + "'");
  const std::int64_t count = get_int(doc, a, "count", -1, where);
  if (count < 0 || count > (1 << 28)) fail(doc, where + ": bad count " + std::to_string(count));
  const bool normalized =
      a.contains("normalized") && a["normalized"].is_boolean() && a["normalized"].get<bool>();

  AccessorData out;
  out.count = static_cast<int>(count);
  out.components = components;
  out.component_type = component_type;
  // Matrices of 1- and 2-byte components pad each column to 4 bytes (spec "Data Alignment").
  int column_rows = 0;
  if (type == "MAT2" && csize == 1) column_rows = 2;
  if (type == "MAT3" && csize <= 2) column_rows = 3;
  const int columns = column_rows ? components / column_rows : 1;
  const int rows = column_rows ? column_rows : components;
  const std::size_t column_bytes = column_rows
                                       ? ((static_cast<std::size_t>(rows) * csize + 3) / 4) * 4
                                       : static_cast<std::size_t>(components) * csize;
  const std::size_t element_size = column_bytes * columns;

  auto decode_element = [&](const char* p, double* dst) {
    for (int c = 0; c < columns; ++c)
      for (int r = 0; r < rows; ++r)
        dst[c * rows + r] = decode(p + c * column_bytes + r * csize, component_type, normalized);
  };

  // Every element must be backed by bytes of the file before anything is allocated: count x
  // stride within the bufferView; without one (zeros, then sparse values), the elements may not
  // outnumber what all the file's buffers could hold.
  std::string_view view;
  std::size_t stride = 0;
  std::int64_t offset = 0;
  if (a.contains("bufferView")) {
    view = buffer_view_bytes(doc, get_int(doc, a, "bufferView", -1, where), stride, where);
    offset = get_int(doc, a, "byteOffset", 0, where);
    if (stride == 0) stride = element_size;
    if (offset < 0 ||
        (count > 0 && static_cast<std::uint64_t>(offset) +
                              stride * static_cast<std::uint64_t>(count - 1) + element_size >
                          view.size()))
      fail(doc, where + ": " + std::to_string(count) + " elements from byteOffset " +
                    std::to_string(offset) + " do not fit in its bufferView (" +
                    std::to_string(view.size()) + " bytes)");
  } else {
    std::uint64_t buffer_bytes = 0;
    for (int b = 0; b < static_cast<int>(doc.buffers.size()); ++b)
      buffer_bytes += doc.buffer_bytes(b).size();
    if (static_cast<std::uint64_t>(count) * element_size > buffer_bytes)
      fail(doc, where + ": " + std::to_string(count) + " elements of " +
                    std::to_string(element_size) + " bytes and no bufferView: more than the " +
                    std::to_string(buffer_bytes) + " bytes of the file's buffers");
  }
  out.values.assign(static_cast<std::size_t>(count) * components, 0.0);
  if (!view.empty()) {
    const char* base = view.data() + offset;
    if (column_rows == 0) {
      decode_elements(component_type, base, stride, count, components, csize, normalized,
                      out.values.data());
    } else {
      for (std::int64_t i = 0; i < count; ++i)
        decode_element(base + stride * static_cast<std::size_t>(i),
                       out.values.data() + i * components);
    }
  }

  if (a.contains("sparse")) {
    const Json& sparse = a["sparse"];
    const std::string sw = where + " (sparse)";
    const std::int64_t n = get_int(doc, sparse, "count", -1, sw);
    if (n < 1 || n > count) fail(doc, sw + ": bad count " + std::to_string(n));
    if (!sparse.contains("indices") || !sparse.contains("values"))
      fail(doc, sw + ": indices or values missing");
    const Json& ind = sparse["indices"];
    const Json& val = sparse["values"];
    std::size_t unused_stride = 0;
    const std::string_view ind_view =
        buffer_view_bytes(doc, get_int(doc, ind, "bufferView", -1, sw), unused_stride, sw);
    const std::string_view val_view =
        buffer_view_bytes(doc, get_int(doc, val, "bufferView", -1, sw), unused_stride, sw);
    const int index_type = static_cast<int>(get_int(doc, ind, "componentType", 0, sw));
    if (index_type != kUnsignedByte && index_type != kUnsignedShort && index_type != kUnsignedInt)
      fail(doc, sw + ": bad indices componentType " + std::to_string(index_type));
    const std::size_t isize = static_cast<std::size_t>(component_size(index_type));
    const std::int64_t ioff = get_int(doc, ind, "byteOffset", 0, sw);
    const std::int64_t voff = get_int(doc, val, "byteOffset", 0, sw);
    if (ioff < 0 ||
        static_cast<std::uint64_t>(ioff) + isize * static_cast<std::uint64_t>(n) > ind_view.size())
      fail(doc, sw + ": indices do not fit in their bufferView");
    if (voff < 0 ||
        static_cast<std::uint64_t>(voff) + element_size * static_cast<std::uint64_t>(n) >
            val_view.size())
      fail(doc, sw + ": values do not fit in their bufferView");
    std::int64_t previous = -1;
    for (std::int64_t k = 0; k < n; ++k) {
      const char* ip = ind_view.data() + ioff + isize * static_cast<std::size_t>(k);
      const std::int64_t i = static_cast<std::int64_t>(decode(ip, index_type, false));
      if (i <= previous || i >= count)
        fail(doc, sw + ": index " + std::to_string(i) + " out of order or range");
      previous = i;
      decode_element(val_view.data() + voff + element_size * static_cast<std::size_t>(k),
                     out.values.data() + i * components);
    }
  }

  for (double v : out.values)
    if (!std::isfinite(v)) fail(doc, where + ": non-finite value");
  return out;
}

Keyframes read_keyframes(const Document& doc, int animation, int sampler, Path path) {
  const Animation& anim = doc.animations[animation];
  const std::string where =
      "animation '" + anim.display_name + "' sampler " + std::to_string(sampler);
  if (sampler < 0 || sampler >= static_cast<int>(anim.samplers.size()))
    fail(doc, where + " does not exist");
  const Sampler& s = anim.samplers[sampler];
  Keyframes keys;
  keys.interpolation = s.interpolation;
  keys.rotation = path == Path::rotation;
  const AccessorData input = read_accessor(doc, s.input);
  if (input.components != 1)
    fail(doc, where + ": input accessor " + std::to_string(s.input) + " is not SCALAR");
  // Times are floats (the spec's only input type): integers read as seconds would make a
  // clip of years.
  if (input.component_type != kFloat)
    fail(doc, where + ": input accessor " + std::to_string(s.input) + " has componentType " +
                  std::to_string(input.component_type) + "; key times must be FLOAT (5126)");
  if (input.count < 1) fail(doc, where + ": no keyframes");
  keys.times = input.values;
  for (std::size_t i = 1; i < keys.times.size(); ++i)
    if (keys.times[i] < keys.times[i - 1])
      fail(doc, where + ": key times decrease at key " + std::to_string(i) + " (" +
                    std::to_string(keys.times[i - 1]) + " s then " + std::to_string(keys.times[i]) +
                    " s)");
  AccessorData output = read_accessor(doc, s.output);
  const int expected = path == Path::rotation ? 4 : 3;
  if (output.components != expected)
    fail(doc, where + ": output accessor " + std::to_string(s.output) + " has " +
                  std::to_string(output.components) + " components; " +
                  std::string(path_name(path)) + " needs " + std::to_string(expected));
  const int per_key = s.interpolation == Interpolation::cubic_spline ? 3 : 1;
  if (output.count != input.count * per_key)
    fail(doc, where + ": " + std::to_string(output.count) + " output values for " +
                  std::to_string(input.count) + " keys (" +
                  (per_key == 3 ? "CUBICSPLINE needs 3 per key" : "needs 1 per key") + ")");
  if (per_key == 3 && input.count < 2) fail(doc, where + ": CUBICSPLINE needs at least 2 keys");
  keys.components = expected;
  keys.values = std::move(output.values);
  return keys;
}

void evaluate(const Keyframes& keys, std::span<const double> times, std::span<double> out) {
  const int n = static_cast<int>(keys.times.size());
  const int c = keys.components;
  const bool cubic = keys.interpolation == Interpolation::cubic_spline;
  const int per_key = cubic ? 3 : 1;
  // The spline vertex (value) of key k.
  auto value = [&](int k) {
    return keys.values.data() + (static_cast<std::size_t>(k) * per_key + (cubic ? 1 : 0)) * c;
  };
  int hint = 0;  // segment of the previous time: keys.times[hint] <= t < keys.times[hint + 1]

  auto sample = [&](double t, double* dst) {
    if (n == 1 || t <= keys.times.front()) {
      std::copy(value(0), value(0) + c, dst);
      return;
    }
    if (t >= keys.times.back()) {
      std::copy(value(n - 1), value(n - 1) + c, dst);
      return;
    }
    if (hint >= n - 1 || keys.times[hint] > t || keys.times[hint + 1] <= t)
      hint = static_cast<int>(std::upper_bound(keys.times.begin(), keys.times.end(), t) -
                              keys.times.begin()) -
             1;
    const int k = hint;
    const double t0 = keys.times[k];
    if (t == t0) {  // a requested time that exists in the data uses its value as-is
      std::copy(value(k), value(k) + c, dst);
      return;
    }
    const double td = keys.times[k + 1] - t0;
    const double u = (t - t0) / td;
    const double* v0 = value(k);
    const double* v1 = value(k + 1);
    switch (keys.interpolation) {
      case Interpolation::step:
        std::copy(v0, v0 + c, dst);
        return;
      case Interpolation::linear:
        if (keys.rotation) {
          double d = 0;
          for (int j = 0; j < 4; ++j) d += v0[j] * v1[j];
          const double s = d < 0 ? -1.0 : 1.0;
          const double a = std::acos(std::min(1.0, std::abs(d)));
          const double sa = std::sin(a);
          double w0 = 1.0 - u;  // the spec's note: slerp turns into lerp when a is close to zero
          double w1 = s * u;
          if (sa >= 1e-12) {
            w0 = std::sin(a * (1.0 - u)) / sa;
            w1 = s * std::sin(a * u) / sa;
          }
          for (int j = 0; j < 4; ++j) dst[j] = w0 * v0[j] + w1 * v1[j];
        } else {
          for (int j = 0; j < c; ++j) dst[j] = (1.0 - u) * v0[j] + u * v1[j];
        }
        return;
      case Interpolation::cubic_spline: {
        const double* b0 = v0 + c;  // out-tangent of key k
        const double* a1 =
            keys.values.data() + static_cast<std::size_t>(k + 1) * 3 * c;  // in-tangent of key k+1
        const double u2 = u * u;
        const double u3 = u2 * u;
        const double h00 = 2 * u3 - 3 * u2 + 1;
        const double h10 = td * (u3 - 2 * u2 + u);
        const double h01 = -2 * u3 + 3 * u2;
        const double h11 = td * (u3 - u2);
        for (int j = 0; j < c; ++j) dst[j] = h00 * v0[j] + h10 * b0[j] + h01 * v1[j] + h11 * a1[j];
        return;
      }
    }
  };

  for (std::size_t i = 0; i < times.size(); ++i) {
    double* dst = out.data() + i * c;
    sample(times[i], dst);
    if (cubic && keys.rotation) {  // the spec: the interpolated quaternion MUST be normalised
      const double len =
          std::sqrt(dst[0] * dst[0] + dst[1] * dst[1] + dst[2] * dst[2] + dst[3] * dst[3]);
      if (len > 0)
        for (int j = 0; j < 4; ++j) dst[j] /= len;
    }
  }
}

}  // namespace ikfix::io::gltf
