#include "io/bvh/new_writer.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <set>

#include "io/bvh/euler.hpp"
#include "io/bvh/number_format.hpp"
#include "io/end_leaves.hpp"
#include "io/error.hpp"
#include "io/file_util.hpp"

namespace ikfix::io::bvh {
namespace {

using core::Quat;
using core::Transform;
using core::Vec3;

constexpr int kAngleDecimals = 6;
// One printed position step is at most this fraction of the skeleton's size.
constexpr double kPositionResolution = 1e-9;
// A joint whose translation in the file stays this close (relative to the skeleton's size) to its
// OFFSET gets no position channels.
constexpr double kStillTranslation = 2e-7;
// Scales closer than this (relative) count as equal: uniform, and constant over the clip. FBX
// scale curves are floats and exporters leave noise well above float precision on a unit scale
// (see tests/bench/README.md); the FBX reader treats the same 1e-4 as uniform.
constexpr double kSameScale = 1e-4;

// Base letters of U+00C0..U+00FF (Latin-1 letters with accents); "_" where there is none.
constexpr const char* kLatin1[64] = {
    "A", "A", "A", "A", "A", "A", "AE", "C", "E", "E", "E", "E", "I", "I", "I",  "I",
    "D", "N", "O", "O", "O", "O", "O",  "_", "O", "U", "U", "U", "U", "Y", "Th", "ss",
    "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i",  "i",
    "d", "n", "o", "o", "o", "o", "o",  "_", "o", "u", "u", "u", "u", "y", "th", "y"};

std::string safe_name(const std::string& name) {
  std::string out;
  const auto* s = reinterpret_cast<const unsigned char*>(name.data());
  const std::size_t n = name.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      out += std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == ':' ? static_cast<char>(c)
                                                                             : '_';
      ++i;
      continue;
    }
    // A UTF-8 sequence: its length from the lead byte (a stray byte counts as one character).
    std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (i + len > n) len = n - i;
    for (std::size_t k = 1; k < len; ++k)
      if ((s[i + k] & 0xC0) != 0x80) len = k;
    if (len == 2 && c == 0xC3)
      out += kLatin1[s[i + 1] & 0x3F];  // U+00C0 + low 6 bits
    else if (len == 2 && c == 0xC2 && s[i + 1] == 0xA0)
      out += '_';  // no-break space
    else
      out += '_';
    i += len;
  }
  return out;
}

[[noreturn]] void refuse(const NewFileOptions& o, const std::string& cause) {
  throw InputError(o.source_name, "cannot write BVH: " + cause);
}

bool uniform(const Vec3& s) {
  const double m = std::max({std::abs(s.x), std::abs(s.y), std::abs(s.z)});
  return std::abs(s.x - s.y) <= kSameScale * m && std::abs(s.x - s.z) <= kSameScale * m;
}

void append_number(std::string& out, double v, int decimals) {
  char buffer[kNumberBuffer];
  out.append(buffer, format_fixed(v, decimals, buffer));
}

}  // namespace

std::vector<std::string> bvh_safe_names(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  std::set<std::string> used;
  for (std::size_t j = 0; j < names.size(); ++j) {
    std::string name = safe_name(names[j]);
    if (name.empty()) name = "joint_" + std::to_string(j);
    if (used.count(name)) {
      int k = 2;
      while (used.count(name + "_" + std::to_string(k))) ++k;
      name += "_" + std::to_string(k);
    }
    used.insert(name);
    out.push_back(std::move(name));
  }
  return out;
}

namespace {

void check_tree_inputs(const core::Skeleton& skeleton, const core::Clip& clip,
                       const NewFileOptions& o) {
  const int joints = skeleton.joint_count();
  const int frames = clip.frame_count;
  if (joints == 0) refuse(o, "the skeleton has no joint");
  if (clip.joint_count != joints || clip.locals.size() != static_cast<std::size_t>(joints) * frames)
    refuse(o, "the clip has " + std::to_string(clip.joint_count) + " joints; the skeleton " +
                  std::to_string(joints));
  if (frames < 1) refuse(o, "the clip has no frames");
  if (!(clip.fps > 0) || !std::isfinite(clip.fps))
    refuse(o, "the frame rate is not a positive number");
  const auto axes = o.rotation_axes;
  if (axes[0] == axes[1] || axes[1] == axes[2] || axes[0] == axes[2] ||
      std::any_of(axes.begin(), axes.end(), [](int a) { return a < 0 || a > 2; }))
    refuse(o, "the rotation order needs three different axes");
}

// Refuses a clip BVH cannot hold: non-finite transforms, scales not uniform and constant (to
// kSameScale), or not positive.
void check_tree_values(const core::Skeleton& skeleton, const core::Clip& clip,
                       const NewFileOptions& o) {
  for (int j = 0; j < skeleton.joint_count(); ++j) {
    const Vec3 s0 = clip.at(0, j).scale;
    for (int f = 0; f < clip.frame_count; ++f) {
      const Transform& t = clip.at(f, j);
      if (!core::is_finite(t.translation) || !core::is_finite(t.rotation) ||
          !core::is_finite(t.scale))
        refuse(o, "joint '" + skeleton.names[j] + "' is not finite at frame " + std::to_string(f));
      if (!uniform(t.scale) || !(t.scale.x > 0))
        refuse(o, "joint '" + skeleton.names[j] +
                      "' has a non-uniform or non-positive scale at frame " + std::to_string(f) +
                      "; BVH stores no scale");
      if (glm::length(t.scale - s0) > kSameScale * glm::length(s0))
        refuse(o, "joint '" + skeleton.names[j] + "' has an animated scale (frame " +
                      std::to_string(f) + "); BVH stores no scale");
    }
  }
}

// The file's frame: joints keep their rest world rotation R (up rotation included) as the
// identity of their channels. A joint's translation in the file is in its parent's rest-aligned
// frame, scaled by the parent's accumulated scale (per axis, as core::compose applies it; the
// scales' float noise is kept, so positions stay exact).
class FileFrame {
 public:
  FileFrame(const core::Skeleton& skeleton, const Quat& up_rotation)
      : skeleton_(skeleton), up_(glm::normalize(up_rotation)) {
    rest_world_.resize(skeleton.joint_count());
    for (int j = 0; j < skeleton.joint_count(); ++j) {
      const int p = skeleton.parents[j];
      rest_world_[j] = (p >= 0 ? rest_world_[p] : up_) * glm::normalize(skeleton.rest[j].rotation);
    }
  }

  const Quat& rest_world(int j) const { return rest_world_[j]; }
  Quat parent_rotation(int j) const {
    return skeleton_.parents[j] >= 0 ? rest_world_[skeleton_.parents[j]] : up_;
  }
  // Per joint: the product of the scales of it and its ancestors in `pose`.
  void accumulate(std::span<const Transform> pose, std::vector<Vec3>& accumulated) const {
    accumulated.resize(skeleton_.joint_count());
    for (int j = 0; j < skeleton_.joint_count(); ++j)
      accumulated[j] = (skeleton_.parents[j] >= 0 ? accumulated[skeleton_.parents[j]] : Vec3(1.0)) *
                       pose[j].scale;
  }
  Vec3 file_translation(int j, const Vec3& t, const std::vector<Vec3>& accumulated) const {
    const int p = skeleton_.parents[j];
    return parent_rotation(j) * ((p >= 0 ? accumulated[p] : Vec3(1.0)) * t);
  }

 private:
  const core::Skeleton& skeleton_;
  Quat up_;
  std::vector<Quat> rest_world_;
};

// The hierarchy as written: OFFSETs, end sites, which joints have position channels, and the
// decimals positions are printed with (they follow the skeleton's size).
struct TreeLayout {
  std::vector<Vec3> offsets;
  std::vector<Vec3> sites;  // end site offset of each leaf (zero for the others)
  std::vector<std::vector<int>> children;
  std::vector<int> roots;
  std::vector<char> has_position;
  double size = 1.0;  // extent of the rest pose with end sites
  int position_decimals = 0;
};

// Rest offsets, children, roots, end sites and size of the rest pose.
TreeLayout rest_layout(const core::Skeleton& skeleton, const FileFrame& frame) {
  const int joints = skeleton.joint_count();
  std::vector<Vec3> accumulated;
  frame.accumulate(skeleton.rest, accumulated);
  TreeLayout layout;
  layout.offsets.resize(joints);
  layout.children.resize(joints);
  std::vector<Vec3> rest_points(joints);
  Vec3 lo(1e300), hi(-1e300);
  for (int j = 0; j < joints; ++j) {
    const int p = skeleton.parents[j];
    layout.offsets[j] = frame.file_translation(j, skeleton.rest[j].translation, accumulated);
    rest_points[j] = (p >= 0 ? rest_points[p] : Vec3(0.0)) + layout.offsets[j];
    lo = glm::min(lo, rest_points[j]);
    hi = glm::max(hi, rest_points[j]);
    if (p >= 0)
      layout.children[p].push_back(j);
    else
      layout.roots.push_back(j);
  }
  layout.sites.assign(joints, Vec3(0.0));
  for (int j = 0; j < joints; ++j) {
    if (!layout.children[j].empty()) continue;
    Vec3& site = layout.sites[j];
    if (skeleton.end_sites[j]) {
      site = frame.rest_world(j) * (accumulated[j] * *skeleton.end_sites[j]);  // as given, even 0
    } else {
      site = 0.25 * layout.offsets[j];
      if (site == Vec3(0.0)) site = Vec3(0.0, 0.1 * glm::length(hi - lo), 0.0);
    }
    lo = glm::min(lo, rest_points[j] + site);
    hi = glm::max(hi, rest_points[j] + site);
  }
  layout.size = joints > 1 ? glm::length(hi - lo) : 1.0;
  layout.position_decimals = std::clamp(
      static_cast<int>(
          std::ceil(-std::log10(kPositionResolution * (layout.size > 0 ? layout.size : 1.0)))),
      0, 15);
  return layout;
}

// Roots and joints whose translation moves get position channels. A joint whose translation
// stays constant over the clip but away from its rest translation gets that constant as its
// OFFSET instead: other tools read non-root position channels differently (Blender as
// armature-space positions, Assimp as the whole local translation), so the file has as few as
// possible. A root's position channels hold its whole translation and its OFFSET is zero: that
// is how other readers take a root's channels (Blender and Assimp use them as the position
// itself), and offset + channel (ikfix's reader) gives the same.
void choose_position_channels(const core::Skeleton& skeleton, const core::Clip& clip,
                              const FileFrame& frame, TreeLayout& layout) {
  const int joints = skeleton.joint_count();
  for (int r : layout.roots) layout.offsets[r] = Vec3(0.0);
  layout.has_position.assign(joints, 0);
  for (int j = 0; j < joints; ++j) layout.has_position[j] = skeleton.parents[j] < 0;
  std::vector<Vec3> frame_scales, first_translation(joints);
  std::vector<char> constant(joints, 1);
  const double still = kStillTranslation * layout.size;
  for (int f = 0; f < clip.frame_count; ++f) {
    frame.accumulate(clip.frame(f), frame_scales);
    for (int j = 0; j < joints; ++j) {
      const Vec3 t = frame.file_translation(j, clip.at(f, j).translation, frame_scales);
      if (f == 0) first_translation[j] = t;
      if (glm::length(t - first_translation[j]) > still) constant[j] = 0;
    }
  }
  for (int j = 0; j < joints; ++j) {
    if (layout.has_position[j]) continue;
    if (!constant[j])
      layout.has_position[j] = 1;
    else if (glm::length(first_translation[j] - layout.offsets[j]) > still)
      layout.offsets[j] = first_translation[j];
  }
}

void append_vector(std::string& text, const Vec3& v, int decimals) {
  for (int a = 0; a < 3; ++a) {
    text += ' ';
    append_number(text, v[a], decimals);
  }
}

// Indentation: one tab per level, up to this many (a chain tens of thousands of joints deep
// would otherwise make the hierarchy's text grow with the square of its depth).
constexpr int kMaxIndentTabs = 64;

std::string indent(int depth) {
  return std::string(static_cast<std::size_t>(std::min(depth, kMaxIndentTabs)), '\t');
}

// Joint j's opening lines at `depth` (keyword and name, brace, OFFSET, CHANNELS), listing it in
// `out.joints`.
void open_joint(const core::Skeleton& skeleton, const TreeLayout& layout,
                const std::array<int, 3>& axes, int j, int depth, NewFile& out) {
  static const char* const kRotation[3] = {"Xrotation", "Yrotation", "Zrotation"};
  std::string& text = out.text;
  out.joints.push_back(j);
  const std::string pad = indent(depth);
  text += pad + (skeleton.parents[j] < 0 ? "ROOT " : "JOINT ") + out.names[j] + "\n" + pad + "{\n";
  text += pad + "\tOFFSET";
  append_vector(text, layout.offsets[j], layout.position_decimals);
  text += "\n" + pad + "\tCHANNELS " +
          (layout.has_position[j] ? "6 Xposition Yposition Zposition" : "3");
  for (int a : axes) text += std::string(" ") + kRotation[a];
  text += "\n";
}

// Joint j's closing lines at `depth`: its End Site when it is a leaf, the brace.
void close_joint(const TreeLayout& layout, int j, int depth, NewFile& out) {
  std::string& text = out.text;
  const std::string pad = indent(depth);
  if (layout.children[j].empty()) {
    text += pad + "\tEnd Site\n" + pad + "\t{\n" + pad + "\t\tOFFSET";
    append_vector(text, layout.sites[j], layout.position_decimals);
    text += "\n" + pad + "\t}\n";
  }
  text += pad + "}\n";
}

// Writes the tree under `root` depth first, listing the joints in `out.joints` in file order.
// Iterative (a stack of the open joints): a hierarchy may be as deep as it has joints.
void write_tree_of(const core::Skeleton& skeleton, const TreeLayout& layout,
                   const std::array<int, 3>& axes, int root, NewFile& out) {
  struct Open {
    int joint;
    std::size_t next_child;
  };
  std::vector<Open> open{{root, 0}};
  open_joint(skeleton, layout, axes, root, 0, out);
  while (!open.empty()) {
    const int j = open.back().joint;
    const int depth = static_cast<int>(open.size()) - 1;
    const std::vector<int>& children = layout.children[j];
    if (open.back().next_child < children.size()) {
      const int child = children[open.back().next_child++];
      open_joint(skeleton, layout, axes, child, depth + 1, out);
      open.push_back({child, 0});
      continue;
    }
    close_joint(layout, j, depth, out);
    open.pop_back();
  }
}

// "MOTION", the frame count and the frame time (seconds, shortest round-trip fixed notation).
void write_motion_header(std::string& text, int frames, double fps) {
  text += "MOTION\nFrames: " + std::to_string(frames) + "\nFrame Time: ";
  char buffer[kNumberBuffer];
  const auto r = std::to_chars(buffer, buffer + kNumberBuffer, 1.0 / fps, std::chars_format::fixed);
  text.append(buffer, r.ptr);
  text += "\n";
}

// One line per frame: per joint in file order, position channels (translation - OFFSET, in the
// file's frame) then Euler angles in degrees of the rotation relative to the rest, continuous
// with the previous frame's.
void write_frames(const core::Skeleton& skeleton, const core::Clip& clip, const NewFileOptions& o,
                  const FileFrame& frame, const TreeLayout& layout, NewFile& out) {
  const int joints = skeleton.joint_count();
  std::string& text = out.text;
  std::vector<std::array<double, 3>> previous(joints, std::array<double, 3>{0.0, 0.0, 0.0});
  std::vector<Quat> rest_inverse(joints);
  for (int j = 0; j < joints; ++j)
    rest_inverse[j] = glm::conjugate(glm::normalize(skeleton.rest[j].rotation));
  std::vector<Vec3> frame_scales;
  for (int f = 0; f < clip.frame_count; ++f) {
    frame.accumulate(clip.frame(f), frame_scales);
    bool first = true;
    for (int j : out.joints) {
      const Transform& t = clip.at(f, j);
      if (!first) text += ' ';
      first = false;
      if (layout.has_position[j]) {
        const Vec3 delta =
            frame.file_translation(j, t.translation, frame_scales) - layout.offsets[j];
        for (int a = 0; a < 3; ++a) {
          if (a) text += ' ';
          append_number(text, delta[a], layout.position_decimals);
        }
        text += ' ';
      }
      const Quat rp = frame.parent_rotation(j);
      const Quat b = rp * glm::normalize(t.rotation) * rest_inverse[j] * glm::conjugate(rp);
      const std::array<double, 3> angles = euler_from_quat_deg(b, o.rotation_axes, previous[j]);
      previous[j] = angles;
      for (int a = 0; a < 3; ++a) {
        if (!std::isfinite(angles[a]))
          refuse(o, "joint '" + skeleton.names[j] + "' has a non-finite rotation at frame " +
                        std::to_string(f));
        if (a) text += ' ';
        append_number(text, angles[a], kAngleDecimals);
      }
    }
    text += '\n';
  }
}

// write_new without the root chain option: every joint of `skeleton` is written.
NewFile write_tree(const core::Skeleton& skeleton, const core::Clip& clip,
                   const NewFileOptions& o) {
  check_tree_inputs(skeleton, clip, o);
  check_tree_values(skeleton, clip, o);
  const FileFrame frame(skeleton, o.up_rotation);
  TreeLayout layout = rest_layout(skeleton, frame);
  choose_position_channels(skeleton, clip, frame, layout);
  NewFile out;
  out.names = bvh_safe_names(skeleton.names);
  out.text += "HIERARCHY\n";
  for (int r : layout.roots) write_tree_of(skeleton, layout, o.rotation_axes, r, out);
  write_motion_header(out.text, clip.frame_count, clip.fps);
  write_frames(skeleton, clip, o, frame, layout, out);
  return out;
}

// The skeleton and clip with the single root's chain of one-child joints above the first joint
// that branches (or ends) folded into that joint: its rest and every frame become the composed
// transforms of the chain, so its world transforms stay exactly what FK gives. `kept` receives
// the old index of each joint left.
void fold_root_chain(core::Skeleton& skeleton, core::Clip& clip, std::vector<int>& kept) {
  const int n = skeleton.joint_count();
  kept.resize(n);
  for (int j = 0; j < n; ++j) kept[j] = j;
  int roots = 0;
  for (int j = 0; j < n; ++j) roots += skeleton.parents[j] < 0;
  if (roots != 1) return;
  std::vector<int> child_count(n, 0), first_child(n, -1);
  for (int j = n - 1; j >= 0; --j)
    if (const int p = skeleton.parents[j]; p >= 0) ++child_count[p], first_child[p] = j;
  std::vector<int> chain;
  int top = 0;
  while (child_count[top] == 1 && !skeleton.end_sites[top]) {
    chain.push_back(top);
    top = first_child[top];
  }
  if (chain.empty()) return;
  core::Skeleton folded;
  kept.clear();
  std::vector<int> new_index(n, -1);
  std::vector<char> in_chain(n, 0);
  for (int j : chain) in_chain[j] = 1;
  for (int j = 0; j < n; ++j) {
    if (in_chain[j]) continue;
    new_index[j] = static_cast<int>(kept.size());
    kept.push_back(j);
    folded.names.push_back(skeleton.names[j]);
    folded.parents.push_back(j == top ? -1 : new_index[skeleton.parents[j]]);
    folded.end_sites.push_back(skeleton.end_sites[j]);
    Transform rest = skeleton.rest[j];
    if (j == top)
      for (auto it = chain.rbegin(); it != chain.rend(); ++it)
        rest = core::compose(skeleton.rest[*it], rest);
    folded.rest.push_back(rest);
  }
  core::Clip out = select_joints(clip, kept);
  const int top_slot = new_index[top];
  for (int f = 0; f < clip.frame_count; ++f) {
    Transform& t = out.at(f, top_slot);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) t = core::compose(clip.at(f, *it), t);
  }
  skeleton = std::move(folded);
  clip = std::move(out);
}

}  // namespace

NewFile write_new(const core::Skeleton& skeleton, const core::Clip& clip,
                  const NewFileOptions& options) {
  if (!options.root_at_first_branch) return write_tree(skeleton, clip, options);
  if (clip.joint_count != skeleton.joint_count() ||
      clip.locals.size() != static_cast<std::size_t>(clip.joint_count) * clip.frame_count)
    refuse(options, "the clip has " + std::to_string(clip.joint_count) + " joints; the skeleton " +
                        std::to_string(skeleton.joint_count()));
  core::Skeleton folded = skeleton;
  core::Clip folded_clip = clip;
  std::vector<int> kept;
  fold_root_chain(folded, folded_clip, kept);
  NewFile file = write_tree(folded, folded_clip, options);
  for (int& j : file.joints) j = kept[static_cast<std::size_t>(j)];
  file.names = bvh_safe_names(skeleton.names);
  return file;
}

NewFile save_new(const std::filesystem::path& path, const core::Skeleton& skeleton,
                 const core::Clip& clip, const NewFileOptions& options) {
  NewFile file = write_new(skeleton, clip, options);
  write_file_atomic(path, file.text);
  return file;
}

}  // namespace ikfix::io::bvh
