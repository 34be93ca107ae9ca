// glTF sampling: LINEAR / STEP / CUBICSPLINE exactly as the spec's Appendix C defines them,
// normalized integer rotations, sparse accessors, and how frames are chosen from key times.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "gltf_test_support.hpp"
#include "io/error.hpp"
#include "io/gltf/gltf.hpp"

namespace {

namespace gltf = ikfix::io::gltf;
using ikfix::core::Quat;
using ikfix::core::Vec3;
using ikfix::test::MiniGltf;

gltf::Keyframes keys3(std::vector<double> times, std::vector<double> values,
                      gltf::Interpolation interpolation) {
  gltf::Keyframes k;
  k.times = std::move(times);
  k.values = std::move(values);
  k.components = 3;
  k.interpolation = interpolation;
  return k;
}

std::vector<double> eval(const gltf::Keyframes& k, std::vector<double> times) {
  std::vector<double> out(times.size() * k.components);
  gltf::evaluate(k, times, out);
  return out;
}

TEST(GltfSampling, LinearIsLerpClampedOutsideAndExactOnKeys) {
  const auto k = keys3({0, 1, 3}, {0, 0, 0, 1, 2, 3, 3, 2, 1}, gltf::Interpolation::linear);
  const auto v = eval(k, {-1, 0, 0.5, 1, 2, 3, 10});
  const std::vector<double> expected = {0, 0, 0, 0, 0, 0, 0.5, 1, 1.5, 1, 2,
                                        3, 2, 2, 2, 3, 2, 1,   3, 2,   1};
  ASSERT_EQ(v.size(), expected.size());
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_DOUBLE_EQ(v[i], expected[i]) << i;
}

TEST(GltfSampling, StepHoldsThePreviousKey) {
  const auto k = keys3({0, 1, 3}, {0, 0, 0, 1, 2, 3, 3, 2, 1}, gltf::Interpolation::step);
  const auto v = eval(k, {0.999, 1, 2.5, 3});
  const std::vector<double> expected = {0, 0, 0, 1, 2, 3, 1, 2, 3, 3, 2, 1};
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i], expected[i]) << i;
}

TEST(GltfSampling, TimesInAnyOrderGiveTheSameValues) {
  const auto k = keys3({0, 1, 3}, {0, 0, 0, 1, 2, 3, 3, 2, 1}, gltf::Interpolation::linear);
  const auto forward = eval(k, {0.25, 1.5, 2.75});
  const auto backward = eval(k, {2.75, 1.5, 0.25});
  for (int i = 0; i < 3; ++i)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(forward[i * 3 + c], backward[(2 - i) * 3 + c]);
}

TEST(GltfSampling, CubicSplineReproducesACubicPolynomial) {
  // x = t^3, y = 2t + 1, z = 5 over [0, 2], with tangents equal to the derivatives: the Hermite
  // spline is then exact. Layout per key: in-tangent, value, out-tangent.
  const auto k = keys3({0, 2},
                       {0, 2, 0, /**/ 0, 1, 5, /**/ 0, 2, 0,     // key 0
                        12, 2, 0, /**/ 8, 5, 5, /**/ 12, 2, 0},  // key 1
                       gltf::Interpolation::cubic_spline);
  for (double t : {0.0, 0.25, 0.5, 1.0, 1.7, 2.0}) {
    const auto v = eval(k, {t});
    EXPECT_NEAR(v[0], t * t * t, 1e-12) << t;
    EXPECT_NEAR(v[1], 2 * t + 1, 1e-12) << t;
    EXPECT_NEAR(v[2], 5, 1e-12) << t;
  }
}

TEST(GltfSampling, SlerpFollowsTheShortPathWhateverTheSign) {
  gltf::Keyframes k;
  k.components = 4;
  k.rotation = true;
  const double s = std::sqrt(0.5);
  k.times = {0, 1};
  k.values = {0, 0, 0, 1, 0, s, 0, s};  // identity -> 90 degrees about Y (x, y, z, w)
  auto v = eval(k, {0.5});
  const double h = std::sin(ikfix::core::kPi / 8), c = std::cos(ikfix::core::kPi / 8);
  EXPECT_NEAR(v[0], 0, 1e-15);
  EXPECT_NEAR(v[1], h, 1e-15);
  EXPECT_NEAR(v[2], 0, 1e-15);
  EXPECT_NEAR(v[3], c, 1e-15);
  k.values = {0, 0, 0, 1, 0, -s, 0, -s};  // the same rotation with the other sign
  v = eval(k, {0.5});
  EXPECT_NEAR(v[1], h, 1e-15);
  EXPECT_NEAR(v[3], c, 1e-15);
  // Slerp keeps a constant angular speed: at 1/3 the angle is 30 degrees.
  v = eval(k, {1.0 / 3});
  EXPECT_NEAR(2 * std::atan2(v[1], v[3]) * 180 / ikfix::core::kPi, 30.0, 1e-12);
}

TEST(GltfSampling, CubicSplineRotationsAreNormalised) {
  gltf::Keyframes k;
  k.components = 4;
  k.rotation = true;
  k.interpolation = gltf::Interpolation::cubic_spline;
  const double s = std::sqrt(0.5);
  k.times = {0, 1};
  k.values = {0, 0, 0, 0, /**/ 0, 0, 0, 1, /**/ 0, 1, 0, 0,  // key 0: out-tangent pushes towards +Y
              0, 0, 0, 0, /**/ 0, s, 0, s, /**/ 0, 0, 0, 0};
  const auto v = eval(k, {0.3, 0.6});
  for (int i = 0; i < 2; ++i) {
    double len = 0;
    for (int c = 0; c < 4; ++c) len += v[i * 4 + c] * v[i * 4 + c];
    EXPECT_NEAR(std::sqrt(len), 1.0, 1e-15);
  }
}

TEST(GltfSampling, NormalizedIntegerRotationsUseTheSpecFormulas) {
  MiniGltf m;
  m.add_node("root", -1);
  const int times = m.add_floats({0, 1}, "SCALAR", 1);
  const std::vector<std::int16_t> shorts = {0, 0, 23170, 23170, -32768, 0, 0, 32767};
  const int rot = m.add_ints(shorts, 5122, "VEC4", 4, true);
  const std::vector<std::int8_t> bytes = {0, 0, 127, -128, 0, 90, 0, 90};
  const int rot8 = m.add_ints(bytes, 5120, "VEC4", 4, true);
  m.add_animation("a", {{0, "rotation", times, rot, "LINEAR"}});
  const gltf::Document doc = m.parse();
  const gltf::AccessorData a = gltf::read_accessor(doc, rot);
  EXPECT_DOUBLE_EQ(a.values[2], 23170 / 32767.0);
  EXPECT_DOUBLE_EQ(a.values[4], -1.0);  // max(-32768 / 32767, -1)
  EXPECT_DOUBLE_EQ(a.values[7], 1.0);
  const gltf::AccessorData b = gltf::read_accessor(doc, rot8);
  EXPECT_DOUBLE_EQ(b.values[2], 1.0);
  EXPECT_DOUBLE_EQ(b.values[3], -1.0);  // max(-128 / 127, -1)
  EXPECT_DOUBLE_EQ(b.values[5], 90 / 127.0);
}

TEST(GltfSampling, SparseAccessorsOverrideTheirBase) {
  MiniGltf m;
  m.add_node("root", -1);
  const std::vector<float> base = {1, 1, 1, 2, 2, 2, 3, 3, 3};
  const int acc = m.add_floats(base, "VEC3", 3);
  const std::vector<std::uint16_t> indices = {2};
  const std::vector<float> values = {7, 8, 9};
  const int iv = m.add_view(indices.data(), 2);
  const int vv = m.add_view(values.data(), 12);
  m.json["accessors"][acc]["sparse"] = {{"count", 1},
                                        {"indices", {{"bufferView", iv}, {"componentType", 5123}}},
                                        {"values", {{"bufferView", vv}}}};
  // A sparse accessor without a bufferView starts from zeros.
  m.json["accessors"].push_back({{"componentType", 5126},
                                 {"count", 3},
                                 {"type", "VEC3"},
                                 {"sparse",
                                  {{"count", 1},
                                   {"indices", {{"bufferView", iv}, {"componentType", 5123}}},
                                   {"values", {{"bufferView", vv}}}}}});
  const gltf::Document doc = m.parse();
  const auto a = gltf::read_accessor(doc, acc);
  EXPECT_EQ(a.values, (std::vector<double>{1, 1, 1, 2, 2, 2, 7, 8, 9}));
  const auto z = gltf::read_accessor(doc, acc + 1);
  EXPECT_EQ(z.values, (std::vector<double>{0, 0, 0, 0, 0, 0, 7, 8, 9}));
}

// Three nodes: root > hips (animated) > leg (rest only).
MiniGltf chain() {
  MiniGltf m;
  const int root = m.add_node("root", -1);
  const int hips = m.add_node("hips", root, {0, 1, 0});
  m.add_node("", hips, {0, -0.5, 0}, {0, 0, 0.1986693308, 0.9800665778});
  return m;
}

TEST(GltfTakes, UniformGridIsUsedExactlyIncludingSparseSubsets) {
  MiniGltf m = chain();
  std::vector<float> dense, translations;
  for (int k = 0; k <= 24; ++k) {
    dense.push_back(static_cast<float>(k / 24.0 + 0.5));
    translations.insert(translations.end(), {static_cast<float>(k), 1, 0});
  }
  const int t_dense = m.add_floats(dense, "SCALAR", 1);
  const int v_dense = m.add_floats(translations, "VEC3", 3);
  const std::vector<float> sparse = {0.5f, static_cast<float>(12 / 24.0 + 0.5), 1.5f};
  const int t_sparse = m.add_floats(sparse, "SCALAR", 1);
  const int v_sparse =
      m.add_floats({0, 0, 0, 1, 0, 1, 0, 0, 0, 0.7071068f, 0, 0.7071068f}, "VEC4", 4);
  m.add_animation("walk", {{1, "translation", t_dense, v_dense, "LINEAR"},
                           {1, "rotation", t_sparse, v_sparse, "STEP"}});
  const auto doc = std::make_shared<const gltf::Document>(m.parse());
  const gltf::Take take = gltf::extract_take(doc, 0);
  EXPECT_TRUE(take.uniform_grid);
  EXPECT_EQ(take.clip.fps, 24.0);
  ASSERT_EQ(take.clip.frame_count, 25);
  for (int k = 0; k <= 24; ++k)
    EXPECT_EQ(take.layout.frame_times[k], static_cast<double>(dense[k]));
  ASSERT_EQ(take.skeleton.joint_count(), 3);
  EXPECT_EQ(take.skeleton.names[2], "node_2");  // unnamed node
  const int hips = take.skeleton.find("hips");
  for (int f = 0; f <= 24; ++f) {
    EXPECT_EQ(take.clip.at(f, hips).translation.x, f);
    // STEP rotation: identity until 1.0 s, the half turn from 1.0 s, the last key at 1.5 s.
    const Quat q = take.clip.at(f, hips).rotation;
    EXPECT_NEAR(q.w, f < 12 ? 1.0 : f < 24 ? 0.0 : 1.0 / std::sqrt(2.0), 1e-7) << f;
  }
  // The unanimated leg keeps its rest TRS on every frame.
  for (int f = 0; f <= 24; ++f) {
    EXPECT_EQ(take.clip.at(f, 2).translation, take.skeleton.rest[2].translation);
    EXPECT_EQ(take.clip.at(f, 2).rotation, take.skeleton.rest[2].rotation);
  }
}

TEST(GltfTakes, IrregularKeysAreSampledAtTheFallbackRateEndingOnTheLastKey) {
  MiniGltf m = chain();
  const int t = m.add_floats({0.0f, 0.1f, 0.35f}, "SCALAR", 1);
  const int v = m.add_floats({0, 0, 0, 3, 0, 0, 3, 0, 2.5f}, "VEC3", 3);
  m.add_animation("", {{1, "translation", t, v, "LINEAR"}});
  const auto doc = std::make_shared<const gltf::Document>(m.parse());
  const gltf::Take take = gltf::extract_take(doc, 0);
  EXPECT_FALSE(take.uniform_grid);
  EXPECT_EQ(take.name, "animation_0");
  EXPECT_EQ(take.clip.fps, 30.0);
  ASSERT_EQ(take.clip.frame_count, 12);  // 0 .. 10/30, then 0.35
  EXPECT_EQ(take.layout.frame_times.back(), static_cast<double>(0.35f));
  const int hips = take.skeleton.find("hips");
  EXPECT_NEAR(take.clip.at(1, hips).translation.x, 1.0, 1e-6);   // 1/30 s of a 30 units/s ramp
  EXPECT_NEAR(take.clip.at(11, hips).translation.z, 2.5, 1e-7);  // last key exactly
  gltf::ReadOptions options;
  options.sample_fps = 100;
  EXPECT_EQ(gltf::extract_take(doc, 0, options).clip.frame_count, 36);
}

TEST(GltfTakes, ReaderAndEvaluateAgreeOnCubicSplineChannels) {
  MiniGltf m = chain();
  const int t = m.add_floats({0, 1, 2}, "SCALAR", 1);
  const int v = m.add_floats({0, 0, 0, 0, 1, 0, 1, 0, 0,  //
                              0, 0, 1, 2, 1, 0, 0, 0, 0,  //
                              0, 0, 0, 0, 1, 3, 0, 0, 0},
                             "VEC3", 3);
  m.add_animation("c", {{1, "translation", t, v, "CUBICSPLINE"}});
  gltf::ReadOptions options;
  options.sample_fps = 10;  // the keys are on a 1 s grid; this makes no difference to the values
  const auto doc = std::make_shared<const gltf::Document>(m.parse());
  const gltf::Take take = gltf::extract_take(doc, 0, options);
  ASSERT_EQ(take.clip.frame_count, 3);
  const gltf::Keyframes keys = gltf::read_keyframes(*doc, 0, 0, gltf::Path::translation);
  std::vector<double> at(3);
  gltf::evaluate(keys, std::vector<double>{1.0}, at);
  EXPECT_EQ(take.clip.at(1, 1).translation, Vec3(at[0], at[1], at[2]));
  EXPECT_EQ(take.clip.at(1, 1).translation, Vec3(2, 1, 0));
}

TEST(GltfTakes, MalformedSamplersAreRefusedWithTheirName) {
  MiniGltf m = chain();
  const int t = m.add_floats({0, 1}, "SCALAR", 1);
  const int v = m.add_floats({0, 0, 0}, "VEC3", 3);  // one value for two keys
  m.add_animation("bad", {{1, "translation", t, v, "LINEAR"}});
  const auto doc = std::make_shared<const gltf::Document>(m.parse("bad.gltf"));
  try {
    gltf::extract_take(doc, 0);
    FAIL() << "expected InputError";
  } catch (const ikfix::io::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.gltf"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("animation 'bad' sampler 0"), std::string::npos)
        << e.what();
  }
}

TEST(GltfTakes, DecreasingKeyTimesAreRefused) {
  MiniGltf m = chain();
  const int t = m.add_floats({0, 2, 1}, "SCALAR", 1);
  const int v = m.add_floats({0, 0, 0, 1, 1, 1, 2, 2, 2}, "VEC3", 3);
  m.add_animation("bad", {{1, "translation", t, v, "LINEAR"}});
  const auto doc = std::make_shared<const gltf::Document>(m.parse());
  EXPECT_THROW(gltf::extract_take(doc, 0), ikfix::io::InputError);
}

}  // namespace
