#include "io/fbx/fbx_clip_io.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/fk.hpp"
#include "core/units.hpp"
#include "io/error.hpp"
#include "io/fbx/clip.hpp"
#include "io/fbx/patch.hpp"
#include "io/fbx/reader.hpp"
#include "io/fbx/skin.hpp"
#include "io/fbx/verify.hpp"
#include "io/fbx/verify_readback.hpp"
#include "io/file_util.hpp"

namespace ikfix::io::fbx {
namespace {

using core::Vec3;

// A skeleton between these joint-to-joint heights is taken to be in the declared unit.
constexpr double kMinPlausibleHeight = 0.3;  // metres
constexpr double kMaxPlausibleHeight = 10.0;
constexpr double kAssumedHeight = 1.5;  // as core::guess_unit_from_height

struct NamedUnit {
  const char* name;
  double metres;
};
constexpr NamedUnit kUnits[] = {{"m", 1.0},     {"cm", 0.01},   {"mm", 0.001},
                                {"in", 0.0254}, {"ft", 0.3048}, {"cmu", 0.0254 / 0.45}};

std::string declared_unit_name(double metres_per_unit) {
  for (const auto& u : kUnits)
    if (std::abs(metres_per_unit / u.metres - 1.0) < 1e-9) return u.name;
  return "custom";
}

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

int find_take(const ClipDocument& cd, const std::string& path,
              const std::optional<std::string>& wanted) {
  const Scene& scene = cd.scene;
  const int count = static_cast<int>(scene.takes.size());
  if (count == 0) throw InputError(path, "no animation: the file has no takes (AnimationStack)");
  if (!wanted) {
    // The first take that animates the skeleton.
    std::string first_error;
    for (int t = 0; t < count; ++t) {
      try {
        take_layer(cd, t);
        return t;
      } catch (const InputError& e) {
        if (first_error.empty()) first_error = e.cause();
      }
    }
    if (count == 1) throw InputError(path, "no animation: " + first_error);
    throw InputError(path, "no animation: none of the " + std::to_string(count) +
                               " takes animates the skeleton (" + first_error + ")");
  }
  for (int t = 0; t < count; ++t)
    if (scene.takes[t].name == *wanted) return t;
  int index = -1;
  const auto r = std::from_chars(wanted->data(), wanted->data() + wanted->size(), index);
  if (r.ec == std::errc() && r.ptr == wanted->data() + wanted->size() && index >= 0 &&
      index < count)
    return index;
  std::string names;
  for (int t = 0; t < count; ++t) names += (t ? ", '" : "'") + scene.takes[t].name + "'";
  throw InputError(path, "no take '" + *wanted + "' (the file has " + std::to_string(count) + ": " +
                             names + ")");
}

// World points of the rest pose in file units, file up axis turned to +Y.
std::vector<Vec3> rest_points(const core::Skeleton& sk, const core::Quat& to_y_up) {
  std::vector<core::Transform> world(sk.names.size());
  core::Transform top;
  top.rotation = to_y_up;
  core::forward_kinematics(sk, sk.rest, top, world);
  std::vector<Vec3> points;
  for (const auto& w : world) points.push_back(w.translation);
  return points;
}

double height_of(const std::vector<Vec3>& points) {
  double lo = 1e300, hi = -1e300;
  for (const Vec3& p : points) {
    lo = std::min(lo, p.y);
    hi = std::max(hi, p.y);
  }
  return hi > lo ? hi - lo : 0.0;
}

// Scale of the group nodes above the first bone (uniform, at rest), and the top group's name.
double group_scale(const ClipDocument& cd, std::string& group_name) {
  const auto& sk = cd.skeleton;
  double scale = 1.0;
  for (std::size_t j = 0; j < sk.names.size(); ++j) {
    const Model& m = cd.scene.models[cd.joint_models[j]];
    if (m.type == "LimbNode" || m.type == "Limb" || m.type == "Root") break;
    const Vec3 s = sk.rest[j].scale;
    if (std::abs(s.x - s.y) > 1e-9 * std::abs(s.x) || std::abs(s.x - s.z) > 1e-9 * std::abs(s.x))
      break;
    scale *= s.x;
    if (group_name.empty() && s.x != 1.0) group_name = m.name;
  }
  return scale;
}

void resolve_space(LoadedClip& loaded, const ClipDocument& cd, const ClipLoadOptions& options) {
  const Scene& scene = cd.scene;
  const std::string path = loaded.path.string();
  // Up axis.
  core::Quat to_y_up = core::identity_quat();
  if (options.up_axis) {
    loaded.up_axis = *options.up_axis;
    if (loaded.up_axis == 'z') to_y_up = core::axis_angle(Vec3(1, 0, 0), -core::kPi / 2);
  } else {
    const int axis = std::clamp(scene.up_axis, 0, 2);
    loaded.up_axis = "xyz"[axis];
    Vec3 up(0.0);
    up[axis] = scene.up_axis_sign < 0 ? -1.0 : 1.0;
    if (axis == 2 && scene.up_axis_sign >= 0)
      to_y_up = core::axis_angle(Vec3(1, 0, 0), -core::kPi / 2);
    else if (!(axis == 1 && scene.up_axis_sign >= 0))
      to_y_up = core::rotation_between(up, Vec3(0, 1, 0));
    if (axis != 1 || scene.up_axis_sign < 0)
      loaded.warnings.push_back(std::string("FBX up axis is ") +
                                (scene.up_axis_sign < 0 ? "-" : "+") + loaded.up_axis);
  }
  loaded.space.to_world_rotation = to_y_up;

  // Unit.
  if (options.metres_per_unit) {
    loaded.space.metres_per_unit = *options.metres_per_unit;
    loaded.unit_source = "user";
    loaded.unit_name = "custom";
    return;
  }
  const double declared = scene.unit_scale_factor * 0.01;
  const double height_units = height_of(rest_points(cd.skeleton, to_y_up));
  const double height_m = height_units * declared;
  if (declared > 0 && std::isfinite(declared) &&
      ((height_m >= kMinPlausibleHeight && height_m <= kMaxPlausibleHeight) ||
       height_units == 0.0)) {
    loaded.space.metres_per_unit = declared;
    loaded.unit_source = "file";
    loaded.unit_name = declared_unit_name(declared);
    return;
  }
  // Declared unit gives no human-sized skeleton: guess, also under the group nodes' scale.
  std::string group;
  const double gscale = group_scale(cd, group);
  const double estimate = kAssumedHeight / height_units;
  double best_ratio = 1e300;
  const NamedUnit* best = nullptr;
  bool best_in_group = false;
  for (int in_group = 0; in_group < (gscale != 1.0 ? 2 : 1); ++in_group)
    for (const auto& u : kUnits) {
      const double m = in_group ? u.metres / gscale : u.metres;
      const double ratio = std::abs(std::log(m / estimate));
      if (ratio < best_ratio) {
        best_ratio = ratio;
        best = &u;
        best_in_group = in_group != 0;
      }
    }
  std::string reason = "UnitScaleFactor " + format("%g", scene.unit_scale_factor) + " (" +
                       declared_unit_name(declared) + ") makes the rest pose " +
                       format("%.3g m tall", height_m) + "; rest height " +
                       format("%.4g units; a %.1f m human gives %.4g m/unit", height_units,
                              kAssumedHeight, estimate);
  loaded.unit_source = "guessed";
  if (best && best_ratio < std::log(1.5)) {
    loaded.space.metres_per_unit = best_in_group ? best->metres / gscale : best->metres;
    loaded.unit_name = best->name;
    if (best_in_group) {
      reason += ", nearest common unit '" + std::string(best->name) + "' under the x" +
                format("%g", gscale) + " scale of group node '" + group + "'";
      loaded.unit_name = std::string(best->name) + " under x" + format("%g", gscale);
    } else {
      reason += ", nearest common unit '" + std::string(best->name) + "'";
    }
  } else {
    loaded.space.metres_per_unit = estimate;
    loaded.unit_name = "custom";
    reason += " (no common unit close)";
  }
  loaded.unit_reason = reason;
}

// The written bytes prove themselves before they replace anything: re-read with our own reader
// always, and through Assimp too when asked.
void check_written(std::string& bytes, const std::string& file, const ClipDocument& cd,
                   const std::vector<PatchedTake>& patched) {
  verify_readback_borrowing(bytes, file, cd, patched);
  if (assimp_check()) verify_with_assimp(bytes, file, cd, patched);
}

}  // namespace

namespace {

// The file's skin, read once for every take of a document. Bad skin data drops the skin with a
// warning instead of refusing the file: the motion is still good, only the sole is not measured.
struct SkinRead {
  std::shared_ptr<const core::Skin> skin;
  std::string warning;
};

SkinRead read_skin_or_warn(const ClipDocument& cd) {
  SkinRead out;
  try {
    out.skin = read_skin(cd);
  } catch (const InputError& e) {
    out.warning = "skinned mesh ignored: " + e.cause();
  }
  return out;
}

void attach_skin(LoadedClip& loaded, const SkinRead& skin) {
  loaded.skin = skin.skin;
  if (!skin.warning.empty()) loaded.warnings.push_back(skin.warning);
}

// Why the frames end before the take's stored range does (take_timing ends them at the last
// key), or "".
std::string cut_range_note(const Take& t, const TakeTiming& timing) {
  const bool local = t.local_stop > t.local_start;
  const std::int64_t stop = local ? t.local_stop : t.reference_stop;
  if (!(local || t.reference_stop > t.reference_start) || stop <= timing.stop) return {};
  auto seconds = [](std::int64_t ticks) {
    std::ostringstream out;
    out << static_cast<double>(ticks) / static_cast<double>(kTicksPerSecond) << " s";
    return out.str();
  };
  return "take '" + t.name + "' declares its end (" + (local ? "LocalStop" : "ReferenceStop") +
         ") at " + seconds(stop) + " but its keys end at " + seconds(timing.stop) +
         "; the frames end there";
}

// One take of an already read document as a LoadedClip sharing `cd`.
LoadedClip load_take(const std::shared_ptr<ClipDocument>& cd, const std::filesystem::path& path,
                     int take, const ClipLoadOptions& options, const SkinRead& skin) {
  const TakeTiming timing = take_timing(*cd, take);
  LoadedClip loaded;
  loaded.path = path;
  loaded.format = "fbx";
  loaded.take_name = cd->scene.takes[take].name;
  loaded.take_index = take;
  loaded.take_count = static_cast<int>(cd->scene.takes.size());
  loaded.clip = sample_take(*cd, take, timing);
  loaded.skeleton = cd->skeleton;
  int inexact = 0;
  std::string first_inexact;
  for (const std::string& why : cd->inexact[take])
    if (!why.empty() && inexact++ == 0) first_inexact = why;
  if (inexact > 0)
    loaded.warnings.push_back(std::to_string(inexact) + " joint(s) are approximated (" +
                              first_inexact + "); fixing legs through them is refused");
  if (std::string note = cut_range_note(cd->scene.takes[take], timing); !note.empty())
    loaded.warnings.push_back(std::move(note));
  if (cd->scene.fps_defaulted)
    loaded.warnings.push_back("GlobalSettings TimeMode " + std::to_string(cd->scene.time_mode) +
                              " names no frame rate; 30 fps assumed");
  resolve_space(loaded, *cd, options);
  attach_skin(loaded, skin);
  loaded.document = cd;
  return loaded;
}

}  // namespace

LoadedClip load(const std::filesystem::path& path, const ClipLoadOptions& options) {
  std::shared_ptr<ClipDocument> cd = read_clip_document(path);
  const int take = find_take(*cd, path.string(), options.take);
  return load_take(cd, path, take, options, read_skin_or_warn(*cd));
}

std::vector<LoadedClip> load_all(const std::filesystem::path& path,
                                 const ClipLoadOptions& options) {
  std::shared_ptr<ClipDocument> cd = read_clip_document(path);
  // Same checks and error as the default take when no take animates the skeleton.
  const int first = find_take(*cd, path.string(), std::nullopt);
  const SkinRead skin = read_skin_or_warn(*cd);
  std::vector<LoadedClip> out;
  out.push_back(load_take(cd, path, first, options, skin));
  for (int t = first + 1; t < static_cast<int>(cd->scene.takes.size()); ++t) {
    try {
      take_layer(*cd, t);
    } catch (const InputError&) {
      continue;  // this take animates nothing of the skeleton
    }
    out.push_back(load_take(cd, path, t, options, skin));
  }
  return out;
}

LoadedClip load_character(const std::filesystem::path& path, const ClipLoadOptions& options) {
  std::shared_ptr<ClipDocument> cd = read_clip_document(path, JointSet::armature);
  const SkinRead skin = read_skin_or_warn(*cd);
  if (options.take)
    return load_take(cd, path, find_take(*cd, path.string(), options.take), options, skin);
  for (int t = 0; t < static_cast<int>(cd->scene.takes.size()); ++t) {
    try {
      take_layer(*cd, t);
    } catch (const InputError&) {
      continue;  // animates nothing of the skeleton
    }
    return load_take(cd, path, t, options, skin);
  }
  // No animation: one frame of the rest pose (the Models' own transform properties).
  LoadedClip loaded;
  loaded.path = path;
  loaded.format = "fbx";
  loaded.take_index = -1;
  loaded.take_count = static_cast<int>(cd->scene.takes.size());
  loaded.skeleton = cd->skeleton;
  loaded.clip.fps = cd->scene.fps;
  loaded.clip.frame_count = 1;
  loaded.clip.joint_count = cd->skeleton.joint_count();
  loaded.clip.locals.assign(cd->skeleton.rest.begin(), cd->skeleton.rest.end());
  resolve_space(loaded, *cd, options);
  attach_skin(loaded, skin);
  loaded.document = cd;
  return loaded;
}

void save(const std::filesystem::path& path, std::span<const TakeEdit> edits) {
  if (edits.empty()) throw InputError(path.string(), "nothing to write");
  const auto* first = static_cast<const ClipDocument*>(edits[0].loaded->document.get());
  for (const TakeEdit& e : edits) {
    const auto* cd = static_cast<const ClipDocument*>(e.loaded->document.get());
    if (e.loaded->take_index < 0)
      throw InputError(path.string(),
                       "the file was loaded without a take (rest pose only); nothing to patch");
    if (e.loaded->format != "fbx" || (cd != first && cd->doc.data != first->doc.data))
      throw InputError(path.string(), "takes to write come from different files");
  }
  // Patch a copy: the loaded document stays as read, for other takes and retries.
  std::vector<TakeJoints> takes;
  for (const TakeEdit& e : edits) takes.push_back({e.loaded->take_index, e.changed});
  ClipDocument work = copy_for_patch(*first, takes);
  std::vector<PatchedTake> patched;
  for (const TakeEdit& e : edits) {
    patched.push_back(patch_take(work, e.loaded->take_index, *e.edited, e.changed));
    patched.back().space = e.loaded->space;
  }
  std::string bytes = write(work.doc);
  check_written(bytes, path.string(), work, patched);
  write_file_atomic(path, bytes);
}

void save_new_take(const std::filesystem::path& path, const LoadedClip& character,
                   const core::Clip& clip, std::span<const char> animated,
                   const std::string& take_name, bool replace_takes) {
  if (character.format != "fbx")
    throw InputError(path.string(), "the character was not read from an FBX file");
  // Add to a copy: the loaded document stays as read.
  ClipDocument work = *static_cast<const ClipDocument*>(character.document.get());
  PatchedTake added = add_take(work, take_name, clip, animated, replace_takes);
  added.space = character.space;
  std::string bytes = write(work.doc);
  check_written(bytes, path.string(), work, {added});
  write_file_atomic(path, bytes);
}

}  // namespace ikfix::io::fbx
