#include "io/assimp/assimp_clip.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <set>

#include "core/fk.hpp"
#include "core/units.hpp"
#include "io/assimp/assimp_module.hpp"
#include "io/error.hpp"
#include "io/memory_budget.hpp"

namespace ikfix::io::assimp {
namespace {

using core::Quat;
using core::Transform;
using core::Vec3;

std::string lower_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext;
}

// The node's transform as Assimp decomposed it (in the module).
Transform decompose(const Node& n) {
  const Vec3r& s = n.scale;
  const Vec3r& p = n.position;
  const QuatR& r = n.rotation;
  Transform t;
  t.translation = Vec3(p.x, p.y, p.z);
  t.rotation = glm::normalize(Quat(r.w, r.x, r.y, r.z));
  t.scale = Vec3(s.x, s.y, s.z);
  return t;
}

template <typename Key>
std::pair<unsigned, double> segment(const std::vector<Key>& keys, double time, unsigned& cursor) {
  const auto n = static_cast<unsigned>(keys.size());
  if (time <= keys[0].time) return {0, 0.0};
  if (time >= keys[n - 1].time) return {n - 1, 0.0};
  unsigned k = std::min(cursor, n - 1);
  if (keys[k].time > time) k = 0;
  while (k + 1 < n && keys[k + 1].time <= time) ++k;
  cursor = k;
  if (k + 1 >= n) return {k, 0.0};
  return {k, (time - keys[k].time) / (keys[k + 1].time - keys[k].time)};
}

Vec3 sample_vector(const std::vector<VectorKey>& keys, double time, unsigned& cursor,
                   const Vec3& fallback) {
  if (keys.empty()) return fallback;
  const auto [k, s] = segment(keys, time, cursor);
  const Vec3r& a = keys[k].value;
  if (s == 0.0) return Vec3(a.x, a.y, a.z);
  const Vec3r& b = keys[k + 1].value;
  return Vec3(a.x, a.y, a.z) + (Vec3(b.x, b.y, b.z) - Vec3(a.x, a.y, a.z)) * s;
}

Quat sample_rotation(const std::vector<QuatKey>& keys, double time, unsigned& cursor,
                     const Quat& fallback) {
  if (keys.empty()) return fallback;
  const auto [k, s] = segment(keys, time, cursor);
  const QuatR& a = keys[k].value;
  const Quat qa = glm::normalize(Quat(a.w, a.x, a.y, a.z));
  if (s == 0.0) return qa;
  const QuatR& b = keys[k + 1].value;
  const Quat qb = core::align_hemisphere(glm::normalize(Quat(b.w, b.x, b.y, b.z)), qa);
  return glm::normalize(glm::slerp(qa, qb, s));
}

// The animation's frame rate: its smallest key spacing, snapped to a common rate.
double frame_rate(const Animation& anim, double ticks_per_second) {
  double spacing = 0;
  for (const NodeChannel& ch : anim.channels) {
    auto scan = [&](double a, double b) {
      const double d = b - a;
      if (d > 1e-9 && (spacing == 0 || d < spacing)) spacing = d;
    };
    for (std::size_t k = 1; k < ch.rotations.size(); ++k)
      scan(ch.rotations[k - 1].time, ch.rotations[k].time);
    for (std::size_t k = 1; k < ch.positions.size(); ++k)
      scan(ch.positions[k - 1].time, ch.positions[k].time);
  }
  if (spacing <= 0) return 30.0;
  const double raw = ticks_per_second / spacing;
  for (double common : {24.0, 25.0, 30.0, 48.0, 50.0, 60.0, 100.0, 120.0})
    if (std::abs(raw / common - 1.0) < 0.01) return common;
  return std::clamp(raw, 1.0, 1000.0);
}

// The animation --take names (by name, else by index), or the first.
int pick_animation(const Scene& scene, const ClipLoadOptions& options, const std::string& file) {
  const int count = static_cast<int>(scene.animations.size());
  if (count == 0) throw InputError(file, "no animation in the file (nothing to fix)");
  if (!options.take) return 0;
  int index = -1;
  for (int a = 0; a < count; ++a)
    if (*options.take == scene.animations[a].name) index = a;
  if (index < 0) {
    int n = -1;
    const auto r =
        std::from_chars(options.take->data(), options.take->data() + options.take->size(), n);
    if (r.ec == std::errc() && r.ptr == options.take->data() + options.take->size() && n >= 0 &&
        n < count)
      index = n;
  }
  if (index < 0)
    throw InputError(
        file, "no take '" + *options.take + "' (the file has " + std::to_string(count) + ")");
  return index;
}

// Per scene node: whether it is a joint (an animated node, a bone node, or an ancestor of one).
std::vector<bool> joint_nodes(const Scene& scene, const Animation& anim) {
  std::set<std::string> wanted;
  for (const NodeChannel& ch : anim.channels) wanted.insert(ch.node);
  for (const Mesh& mesh : scene.meshes)
    for (const std::string& bone : mesh.bones) wanted.insert(bone);
  std::vector<bool> keep(scene.nodes.size(), false);
  std::function<bool(std::uint32_t)> mark = [&](std::uint32_t n) {
    bool k = wanted.count(scene.nodes[n].name) > 0;
    for (std::uint32_t child : scene.nodes[n].children) k = mark(child) || k;
    keep[n] = k;
    return k;
  };
  mark(0);
  return keep;
}

// The skeleton of the kept nodes, depth first from the root; returns the scene node of each
// joint.
std::vector<std::uint32_t> build_skeleton(const Scene& scene, const std::vector<bool>& keep,
                                          core::Skeleton& sk) {
  std::vector<std::uint32_t> nodes;
  std::function<void(std::uint32_t, int)> add = [&](std::uint32_t n, int parent) {
    if (!keep[n]) return;
    const int j = static_cast<int>(nodes.size());
    nodes.push_back(n);
    sk.names.push_back(scene.nodes[n].name);
    sk.parents.push_back(parent);
    sk.rest.push_back(decompose(scene.nodes[n]));
    sk.end_sites.emplace_back(std::nullopt);
    for (std::uint32_t child : scene.nodes[n].children) add(child, j);
  };
  add(0, -1);
  return nodes;
}

// The animation sampled at its frame rate from time 0 to its duration; joints without a
// channel (or components without keys) keep their rest. `file` names the file in errors.
core::Clip sample_clip(const Animation& anim, const core::Skeleton& sk, const std::string& file) {
  const double tps = anim.ticks_per_second > 0 ? anim.ticks_per_second : 25.0;
  const double fps = frame_rate(anim, tps);
  const int joints = sk.joint_count();
  std::vector<const NodeChannel*> channel(joints, nullptr);
  for (const NodeChannel& ch : anim.channels)
    for (int j = 0; j < joints; ++j)
      if (sk.names[j] == ch.node) channel[j] = &ch;
  core::Clip clip;
  clip.fps = fps;
  clip.joint_count = joints;
  const double frames = std::floor(anim.duration / tps * fps + 1e-6) + 1;
  if (!(frames < 2147483647.0))
    throw InputError(file,
                     "animation of " + std::to_string(anim.duration / tps) + " s: too many frames");
  clip.frame_count = static_cast<int>(frames);
  std::error_code size_error;
  const std::uintmax_t file_bytes = std::filesystem::file_size(file, size_error);
  io::check_clip_memory(file,
                        {size_error ? 0 : file_bytes, static_cast<std::uint64_t>(clip.frame_count),
                         static_cast<std::uint64_t>(joints), 0});
  clip.locals.resize(static_cast<std::size_t>(joints) * clip.frame_count);
  std::vector<std::array<unsigned, 3>> cursors(joints, {0, 0, 0});
  for (int f = 0; f < clip.frame_count; ++f) {
    const double time = f * tps / fps;
    for (int j = 0; j < joints; ++j) {
      Transform t = sk.rest[j];
      if (const NodeChannel* ch = channel[j]) {
        t.translation = sample_vector(ch->positions, time, cursors[j][0], t.translation);
        t.rotation = sample_rotation(ch->rotations, time, cursors[j][1], t.rotation);
        t.scale = sample_vector(ch->scalings, time, cursors[j][2], t.scale);
      }
      clip.at(f, j) = t;
    }
  }
  return clip;
}

// The unit guessed from the rest pose's height (metres when it has none).
core::UnitGuess guess_unit(const core::Skeleton& sk, const Quat& to_world_rotation) {
  std::vector<Transform> world(sk.joint_count());
  core::Transform top;
  top.rotation = to_world_rotation;
  core::forward_kinematics(sk, sk.rest, top, world);
  std::vector<Vec3> points;
  for (const Transform& w : world) points.push_back(w.translation);
  double lo = 1e300, hi = -1e300;
  for (const Vec3& p : points) lo = std::min(lo, p.y), hi = std::max(hi, p.y);
  if (hi - lo > 1e-6) return core::guess_unit_from_height(points);
  core::UnitGuess guess;
  guess.metres_per_unit = 1.0;
  guess.unit = "m";
  guess.reason = "rest pose has no height; assumed metres";
  return guess;
}

// Axes: Assimp already turned the scene Y up; units: the user's, else guessed from the height.
void set_space(const ClipLoadOptions& options, LoadedClip& loaded) {
  loaded.up_axis = options.up_axis.value_or('y');
  if (loaded.up_axis == 'z')
    loaded.space.to_world_rotation = core::axis_angle(Vec3(1, 0, 0), -core::kPi / 2);
  if (options.metres_per_unit) {
    loaded.space.metres_per_unit = *options.metres_per_unit;
    loaded.unit_source = "user";
    loaded.unit_name = "custom";
    return;
  }
  const core::UnitGuess guess = guess_unit(loaded.skeleton, loaded.space.to_world_rotation);
  loaded.space.metres_per_unit = guess.metres_per_unit;
  loaded.unit_source = "guessed";
  loaded.unit_name = guess.unit;
  loaded.unit_reason = guess.reason;
}

}  // namespace

bool is_assimp_clip(const std::filesystem::path& path) { return lower_extension(path) == ".dae"; }

LoadedClip load(const std::filesystem::path& path, const ClipLoadOptions& options) {
  const std::string file = path.string();
  ImportRequest request;
  request.file = file;
  request.no_skeleton_meshes = true;
  Scene scene;
  std::string assimp_error;
  if (!import_scene(request, clip_memory_budget(), scene, assimp_error) || scene.nodes.empty())
    throw InputError(file, "Assimp cannot read it: " + one_line(assimp_error));
  const int index = pick_animation(scene, options, file);
  const Animation& anim = scene.animations[index];
  LoadedClip loaded;
  loaded.path = path;
  loaded.format = lower_extension(path).substr(1);
  loaded.take_name = anim.name;
  loaded.take_index = index;
  loaded.take_count = static_cast<int>(scene.animations.size());
  const std::vector<std::uint32_t> nodes =
      build_skeleton(scene, joint_nodes(scene, anim), loaded.skeleton);
  if (nodes.empty()) throw InputError(file, "the animation moves no node");
  loaded.clip = sample_clip(anim, loaded.skeleton, file);
  set_space(options, loaded);
  loaded.warnings.push_back("read through Assimp: " + loaded.format +
                            " files are read-only in ikfix (writing them back is refused)");
  return loaded;
}

}  // namespace ikfix::io::assimp
