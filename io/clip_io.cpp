#include "io/clip_io.hpp"

#include <algorithm>
#include <cctype>
#include <memory>
#include <stdexcept>

#include "core/fk.hpp"
#include "core/units.hpp"
#include "io/assimp/assimp_clip.hpp"
#include "io/bvh/bvh.hpp"
#include "io/clip_facts.hpp"
#include "io/end_leaves.hpp"
#include "io/error.hpp"
#include "io/fbx/fbx_clip_io.hpp"
#include "io/gltf/gltf.hpp"
#include "io/gltf/skin.hpp"

namespace ikfix::io {
namespace {

// A BVH document whose decoded values take this many bytes or more drops them once the clip is
// decoded (64 MiB: about 80,000 frames of a 100-channel skeleton).
constexpr std::size_t kReleaseBvhValuesFromBytes = std::size_t{64} << 20;

std::string lower_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext;
}

core::Quat up_axis_rotation(char up_axis) {
  // Z up -> Y up: -90 degrees about X takes +Z to +Y (and +Y to -Z).
  if (up_axis == 'z') return core::axis_angle(core::Vec3(1, 0, 0), -core::kPi / 2);
  return core::identity_quat();
}

void resolve_units(LoadedClip& loaded, const ClipLoadOptions& options,
                   std::optional<double> file_metres_per_unit, const std::string& file_unit_name) {
  loaded.up_axis = options.up_axis.value_or(loaded.up_axis);
  if (options.metres_per_unit) {
    loaded.space.metres_per_unit = *options.metres_per_unit;
    loaded.unit_source = "user";
    loaded.unit_name = "custom";
  } else if (file_metres_per_unit) {
    loaded.space.metres_per_unit = *file_metres_per_unit;
    loaded.unit_source = "file";
    loaded.unit_name = file_unit_name;
  } else {
    const core::UnitGuess guess =
        core::guess_unit_from_height(rest_points_yup(loaded.skeleton, loaded.up_axis));
    loaded.space.metres_per_unit = guess.metres_per_unit;
    loaded.unit_source = "guessed";
    loaded.unit_name = guess.unit;
    loaded.unit_reason = guess.reason;
  }
  loaded.space.to_world_rotation = up_axis_rotation(loaded.up_axis);
}

// The channels of `joints` (flags per channel of `doc`); empty when `joints` is.
std::vector<char> channels_of_joints(const bvh::Document& doc, const std::vector<int>& joints) {
  if (joints.empty()) return {};
  std::vector<char> made(static_cast<std::size_t>(doc.channel_count), 0);
  for (int j : joints) {
    const bvh::Joint& joint = doc.joints[static_cast<std::size_t>(j)];
    std::fill_n(made.begin() + joint.first_value, joint.channels.size(), char{1});
  }
  return made;
}

LoadedClip load_bvh(const std::filesystem::path& path, const ClipLoadOptions& options) {
  LoadedClip loaded;
  loaded.path = path;
  loaded.format = "bvh";
  // The skeleton and the space come from the hierarchy, so the caller is asked which joints it
  // reads before the frame lines are: only their channels' numbers are made (the others' text
  // is checked but not converted).
  JointsToRead wanted;
  bvh::ParseOptions parse_options;
  parse_options.allow_extra_frame_lines = true;
  parse_options.runner = options.runner;
  parse_options.max_joints = max_joints();
  parse_options.channels_to_read = [&](const bvh::Document& hierarchy) {
    loaded.skeleton = bvh::skeleton(hierarchy);
    // BVH never states its unit or up axis: Y up by convention, unit guessed from the height.
    resolve_units(loaded, options, std::nullopt, "");
    if (options.joints_to_read) wanted = options.joints_to_read(loaded);
    for (const std::vector<int>* list : {&wanted.whole, &wanted.translation_only})
      for (int j : *list)
        if (j < 0 || j >= loaded.skeleton.joint_count())
          throw std::invalid_argument("joints_to_read: joint " + std::to_string(j) + " of " +
                                      std::to_string(loaded.skeleton.joint_count()));
    // A translation-only joint's rotation channels' numbers are made as well: a number
    // scanned without being made costs nearly as much, and the flags' test is one more.
    std::vector<int> made = wanted.whole;
    made.insert(made.end(), wanted.translation_only.begin(), wanted.translation_only.end());
    return channels_of_joints(hierarchy, made);
  };
  auto doc = std::make_shared<bvh::Document>(bvh::read_file(path, parse_options));
  if (doc->extra_frame_lines > 0)
    loaded.warnings.push_back(
        std::to_string(doc->extra_frame_lines) + " frame line(s) beyond the declared 'Frames: " +
        std::to_string(doc->frame_count) + "' were ignored (and are kept in the output)");
  loaded.document = doc;
  if (options.take && *options.take != "0")
    throw InputError(path.string(), "BVH files hold one take (0); no take '" + *options.take + "'");
  if (wanted.whole.empty()) {
    loaded.clip = bvh::clip(*doc, options.runner);
  } else {
    loaded.joints_read.assign(loaded.skeleton.joint_count(), kJointUnread);
    for (int j : wanted.translation_only) loaded.joints_read[j] = kJointTranslationOnly;
    for (int j : wanted.whole) loaded.joints_read[j] = kJointRead;
    loaded.clip = bvh::clip_of_joints(*doc, loaded.joints_read, options.runner);
  }
  // Decoded. A large file's values are released: the writer then reads the few it compares
  // from their text (Document::values; the same numbers), which costs it more time than the
  // memory is worth on a clip of ordinary length.
  if (doc->values.size() * sizeof(double) >= kReleaseBvhValuesFromBytes)
    core::UnwrittenResizeVector<double>().swap(doc->values);
  return loaded;
}

// The document's skinned meshes for the take's joints. Bad skin data drops the skin with a
// warning instead of refusing the file: the motion is still good, only the sole is not measured.
void attach_gltf_skin(LoadedClip& loaded, const gltf::Document& doc,
                      const std::vector<int>& joint_nodes) {
  try {
    loaded.skin = gltf::read_skin(doc, joint_nodes);
  } catch (const InputError& e) {
    loaded.warnings.push_back("skinned mesh ignored: " + e.cause());
  }
}

// A take (or the rest pose) as a LoadedClip; for a character, "_end" leaves become end sites.
LoadedClip gltf_loaded(gltf::Take take, const std::shared_ptr<const gltf::Document>& doc, int index,
                       const std::filesystem::path& path, const ClipLoadOptions& options,
                       bool character) {
  if (character) {
    const std::vector<int> kept = fold_end_leaves(take.skeleton);
    take.clip = select_joints(take.clip, kept);
    std::vector<int> nodes;
    for (int j : kept) nodes.push_back(take.layout.joint_nodes[j]);
    take.layout.joint_nodes = std::move(nodes);
  }
  LoadedClip loaded;
  loaded.path = path;
  loaded.format = doc->container == gltf::Container::glb ? "glb" : "gltf";
  loaded.take_name = take.name;
  loaded.take_index = index;
  loaded.take_count = static_cast<int>(doc->animations.size());
  loaded.skeleton = std::move(take.skeleton);
  loaded.clip = std::move(take.clip);
  loaded.warnings = std::move(take.warnings);
  attach_gltf_skin(loaded, *doc, take.layout.joint_nodes);
  resolve_units(loaded, options, 1.0, "m");
  if (loaded.unit_source == "file") loaded.unit_reason = take.unit_note;
  loaded.document = std::make_shared<const gltf::TakeLayout>(std::move(take.layout));
  return loaded;
}

// glTF/GLB: our own reader (io/gltf); one animation is one take. glTF states metres and +Y up.
LoadedClip load_gltf_take(const std::shared_ptr<const gltf::Document>& doc, int index,
                          const std::filesystem::path& path, const ClipLoadOptions& options) {
  return gltf_loaded(gltf::extract_take(doc, index), doc, index, path, options, false);
}

std::shared_ptr<const gltf::Document> read_gltf(const std::filesystem::path& path) {
  auto doc = std::make_shared<const gltf::Document>(gltf::read_file(path));
  if (doc->animations.empty())
    throw InputError(path.string(), "no animation in the file (nothing to fix)");
  return doc;
}

LoadedClip load_gltf(const std::filesystem::path& path, const ClipLoadOptions& options) {
  const auto doc = read_gltf(path);
  const int index = options.take ? gltf::find_animation(*doc, *options.take) : 0;
  return load_gltf_take(doc, index, path, options);
}

// The checks every loaded take passes before it is handed out.
void check_loaded(const std::filesystem::path& path, const LoadedClip& loaded) {
  if (auto problem = loaded.skeleton.validate(); !problem.empty())
    throw InputError(path.string(), problem);
  if (const int limit = max_joints(); limit > 0 && loaded.skeleton.joint_count() > limit)
    throw InputError(path.string(), std::to_string(loaded.skeleton.joint_count()) +
                                        " joints, more than the limit of " + std::to_string(limit) +
                                        " (--max-joints)");
  if (loaded.clip.frame_count == 0) throw InputError(path.string(), "the clip has no frames");
}

bool is_gltf(const LoadedClip& clip) { return clip.format == "gltf" || clip.format == "glb"; }

void save_gltf(const std::filesystem::path& path, std::span<const TakeEdit> edits) {
  const auto* first = static_cast<const gltf::TakeLayout*>(edits[0].loaded->document.get());
  std::vector<gltf::TakeEdit> takes;
  for (const TakeEdit& e : edits) {
    const auto* layout = static_cast<const gltf::TakeLayout*>(e.loaded->document.get());
    if (!is_gltf(*e.loaded) || layout->document != first->document)
      throw InputError(path.string(), "takes to write come from different files");
    takes.push_back({layout, &e.loaded->clip, e.edited, e.changed});
  }
  gltf::save(path, *first->document, takes);
}

// The format a path names by its extension, or "" when it names none.
std::string format_named_by(const std::filesystem::path& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".bvh" || ext == ".fbx" || ext == ".gltf" || ext == ".glb") return ext.substr(1);
  return "";
}

// Writes takes in another format than they were read from, with a from-scratch writer. Only
// what that format holds without loss is done: any format to BVH (one take).
void convert_takes(const std::filesystem::path& path, const std::string& format,
                   std::span<const TakeEdit> edits) {
  const LoadedClip& first = *edits[0].loaded;
  if (format != "bvh")
    throw InputError(path.string(), "cannot write a ." + first.format + " clip as ." + format +
                                        " without losing data (ikfix writes ." + first.format +
                                        " clips as ." + first.format +
                                        (first.format == "bvh" ? "" : " or .bvh") + " only)");
  if (edits.size() > 1)
    throw InputError(path.string(), "a BVH holds one take; " + first.path.string() + " gives " +
                                        std::to_string(edits.size()) + " (name one with --take)");
  bvh::NewFileOptions options;
  options.source_name = path.string();
  options.up_rotation = first.space.to_world_rotation;
  options.root_at_first_branch = true;  // ROOT = the pelvis, as tools expect of a BVH
  bvh::save_new(path, first.skeleton, *edits[0].edited, options);
}

// A clip read for some joints only (LoadedClip::joints_read) holds NaN for the others (or for
// their rotation): writing one of them, or converting the clip (every joint written anew), would
// be a caller's bug.
void refuse_unread_joints(const std::filesystem::path& path, const LoadedClip& loaded,
                          std::span<const char> changed) {
  if (loaded.all_joints_read()) return;
  const auto& names = loaded.skeleton.names;
  if (const std::string format = format_named_by(path); !format.empty() && format != loaded.format)
    throw std::logic_error(path.string() + ": " + loaded.path.string() +
                           " was read for some joints only; converting it needs every joint");
  for (std::size_t j = 0; j < changed.size() && j < loaded.joints_read.size(); ++j)
    if (changed[j] && loaded.joints_read[j] != kJointRead)
      throw std::logic_error(path.string() + ": joint '" + names[j] + "' of " +
                             loaded.path.string() + " was changed but its motion was not read");
}

}  // namespace

std::vector<core::Vec3> rest_points_yup(const core::Skeleton& skeleton, char up_axis) {
  const int n = skeleton.joint_count();
  std::vector<core::Transform> world(n);
  core::Transform to_world;
  to_world.rotation = up_axis_rotation(up_axis);
  core::forward_kinematics(skeleton, skeleton.rest, to_world, world);
  std::vector<core::Vec3> points;
  points.reserve(2 * static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    points.push_back(world[j].translation);
    if (skeleton.end_sites[j])
      points.push_back(core::transform_point(world[j], *skeleton.end_sites[j]));
  }
  return points;
}

bool is_supported_clip(const std::filesystem::path& path) {
  const std::string ext = lower_extension(path);
  return ext == ".bvh" || ext == ".gltf" || ext == ".glb" || ext == ".fbx" ||
         assimp::is_assimp_clip(path);
}

LoadedClip load_clip(const std::filesystem::path& path, const ClipLoadOptions& options) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path.string(), "no such file");
  const std::string ext = lower_extension(path);
  LoadedClip loaded;
  if (ext == ".bvh") {
    loaded = load_bvh(path, options);
  } else if (ext == ".gltf" || ext == ".glb") {
    loaded = load_gltf(path, options);
  } else if (ext == ".fbx") {
    loaded = fbx::load(path, options);
  } else if (assimp::is_assimp_clip(path)) {
    loaded = assimp::load(path, options);
  } else {
    throw InputError(path.string(), "unsupported clip format '" + ext +
                                        "' (supported: .bvh, .gltf, .glb, .fbx; .dae read-only)");
  }
  check_loaded(path, loaded);
  return loaded;
}

LoadedClip load_character(const std::filesystem::path& path, const ClipLoadOptions& given) {
  ClipLoadOptions options = given;
  options.joints_to_read = nullptr;  // documented: every joint
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path.string(), "no such file");
  const std::string ext = lower_extension(path);
  LoadedClip loaded;
  if (ext == ".fbx") {
    loaded = fbx::load_character(path, options);
  } else if (ext == ".gltf" || ext == ".glb") {
    const auto doc = std::make_shared<const gltf::Document>(gltf::read_file(path));
    if (options.take || !doc->animations.empty()) {
      const int index = options.take ? gltf::find_animation(*doc, *options.take) : 0;
      loaded = gltf_loaded(gltf::extract_take(doc, index), doc, index, path, options, true);
    } else {
      loaded = gltf_loaded(gltf::extract_rest_take(doc), doc, -1, path, options, true);
      loaded.take_count = 0;
    }
  } else {
    return load_clip(path, options);  // BVH (and read-only formats): the skeleton and its motion
  }
  check_loaded(path, loaded);
  return loaded;
}

std::vector<LoadedClip> load_takes(const std::filesystem::path& path,
                                   const ClipLoadOptions& options) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path.string(), "no such file");
  const std::string ext = lower_extension(path);
  ClipLoadOptions each = options;
  each.take.reset();
  each.joints_to_read = nullptr;  // documented: every joint of every take
  std::vector<LoadedClip> takes;
  if (ext == ".fbx") {
    takes = fbx::load_all(path, each);
  } else if (ext == ".gltf" || ext == ".glb") {
    // One read; a take that cannot be extracted or has no frames is skipped, unless none is left.
    const auto doc = read_gltf(path);
    std::optional<InputError> first_error;
    for (int i = 0; i < static_cast<int>(doc->animations.size()); ++i) {
      try {
        LoadedClip take = load_gltf_take(doc, i, path, each);
        check_loaded(path, take);
        takes.push_back(std::move(take));
      } catch (const InputError& e) {
        if (!first_error) first_error = e;
      }
    }
    if (takes.empty()) throw *first_error;
    return takes;
  } else {
    takes.push_back(load_clip(path, each));  // single-take formats
    return takes;
  }
  for (const LoadedClip& take : takes) check_loaded(path, take);
  return takes;
}

void save_clip(const std::filesystem::path& path, const LoadedClip& loaded,
               const core::Clip& edited, std::span<const char> changed,
               const core::ParallelRunner* runner, std::span<const char> changed_rotations) {
  refuse_unread_joints(path, loaded, changed);
  if (const std::string format = format_named_by(path);
      !format.empty() && format != loaded.format) {
    const TakeEdit edit{&loaded, &edited, changed};
    convert_takes(path, format, {&edit, 1});
    return;
  }
  if (loaded.take_index < 0)
    throw InputError(loaded.path.string(),
                     "loaded without a take (rest pose only): there is no animation to patch");
  if (loaded.format == "bvh") {
    const auto& doc = *static_cast<const bvh::Document*>(loaded.document.get());
    std::unique_ptr<bool[]> flags(new bool[changed.size()]);
    for (std::size_t i = 0; i < changed.size(); ++i) flags[i] = changed[i] != 0;
    bvh::save(path, doc, edited, std::span<const bool>(flags.get(), changed.size()), runner,
              changed_rotations);
    return;
  }
  if (loaded.format == "fbx") {
    const TakeEdit edit{&loaded, &edited, changed};
    fbx::save(path, std::span<const TakeEdit>(&edit, 1));
    return;
  }
  if (is_gltf(loaded)) {
    const TakeEdit edit{&loaded, &edited, changed};
    save_gltf(path, {&edit, 1});
    return;
  }
  if (loaded.format == "dae")
    throw InputError(loaded.path.string(),
                     "ikfix reads Collada (.dae) clips but cannot write them back without losing "
                     "data; write it as BVH instead (an output path ending in .bvh)");
  throw InputError(path.string(), "cannot write format '" + loaded.format + "'");
}

bool save_reads_loaded_motion(const LoadedClip& loaded) { return is_gltf(loaded); }

bool save_converts(const std::filesystem::path& path, const LoadedClip& loaded) {
  const std::string format = format_named_by(path);
  return !format.empty() && format != loaded.format;
}

void save_takes(const std::filesystem::path& path, std::span<const TakeEdit> edits,
                const core::ParallelRunner* runner) {
  if (edits.empty()) throw InputError(path.string(), "nothing to write");
  for (const TakeEdit& e : edits) refuse_unread_joints(path, *e.loaded, e.changed);
  if (const std::string format = format_named_by(path);
      !format.empty() && format != edits[0].loaded->format) {
    convert_takes(path, format, edits);
    return;
  }
  if (is_gltf(*edits[0].loaded)) {
    save_gltf(path, edits);
    return;
  }
  if (edits.size() == 1) {
    save_clip(path, *edits[0].loaded, *edits[0].edited, edits[0].changed, runner);
    return;
  }
  if (edits[0].loaded->format == "fbx") {
    fbx::save(path, edits);
    return;
  }
  throw InputError(path.string(), "format '" + edits[0].loaded->format +
                                      "' holds one take; cannot write " +
                                      std::to_string(edits.size()));
}

void save_new_take(const std::filesystem::path& path, const LoadedClip& character,
                   const core::Clip& clip, std::span<const char> animated,
                   const std::string& take_name, bool replace_takes) {
  if (!character.all_joints_read())
    throw std::logic_error(path.string() + ": " + character.path.string() +
                           " was read for some joints only");
  if (clip.joint_count != character.skeleton.joint_count() ||
      animated.size() != static_cast<std::size_t>(character.skeleton.joint_count()))
    throw InputError(path.string(), "the new take has " + std::to_string(clip.joint_count) +
                                        " joints; the character " +
                                        std::to_string(character.skeleton.joint_count()));
  if (const std::string format = format_named_by(path);
      !format.empty() && format != character.format)
    throw InputError(path.string(), "a take for a ." + character.format +
                                        " character is written as ." + character.format);
  if (character.format == "fbx") {
    fbx::save_new_take(path, character, clip, animated, take_name, replace_takes);
  } else if (is_gltf(character)) {
    const auto* layout = static_cast<const gltf::TakeLayout*>(character.document.get());
    gltf::save_new_animation(path, *layout->document, layout->joint_nodes, clip, animated,
                             take_name, replace_takes);
  } else if (character.format == "bvh") {
    const auto& doc = *static_cast<const bvh::Document*>(character.document.get());
    bvh::NewFileOptions options;
    options.source_name = path.string();
    options.up_rotation = character.space.to_world_rotation;
    // The target's own rotation order, when its root lists three rotations.
    std::array<int, 3> axes{};
    int n = 0;
    for (bvh::ChannelKind k : doc.joints.front().channels)
      if (bvh::is_rotation(k) && n < 3) axes[n++] = bvh::axis_of(k);
    if (n == 3) options.rotation_axes = axes;
    bvh::save_new(path, character.skeleton, clip, options);
  } else {
    throw InputError(path.string(), "cannot add a take to a ." + character.format + " file");
  }
}

}  // namespace ikfix::io
