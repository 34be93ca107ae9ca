#include "core/legs.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>

#include "core/fk.hpp"
#include "core/joint_tree.hpp"
#include "core/legs_in_file.hpp"
#include "core/retarget/joint_names.hpp"

namespace ikfix::core {
namespace {

enum class Role { None, Thigh, Shin, Foot, Toe };

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// Keeps letters only, so "Up_Leg", "upleg" and "UpLeg01" compare equal.
std::string letters_only(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalpha(static_cast<unsigned char>(c))) out.push_back(static_cast<char>(c));
  return out;
}

Role role_of(const std::string& word) {
  static const std::pair<const char*, Role> kWords[] = {
      {"upleg", Role::Thigh}, {"upperleg", Role::Thigh}, {"thigh", Role::Thigh},
      {"hip", Role::Thigh},   {"legupper", Role::Thigh}, {"femur", Role::Thigh},
      {"leg", Role::Shin},    {"knee", Role::Shin},      {"shin", Role::Shin},
      {"calf", Role::Shin},   {"lowerleg", Role::Shin},  {"leglower", Role::Shin},
      {"crus", Role::Shin},   {"foot", Role::Foot},      {"ankle", Role::Foot},
      {"toebase", Role::Toe}, {"toe", Role::Toe},        {"toes", Role::Toe},
      {"ball", Role::Toe},
  };
  for (const auto& [w, r] : kWords)
    if (word == w) return r;
  return Role::None;
}

// Splits a normalized name into (side, role). side: 0 left, 1 right, -1 unknown.
std::pair<int, Role> side_and_role(const std::string& n) {
  struct Affix {
    const char* text;
    int side;
  };
  static const Affix kPrefixes[] = {{"left", 0}, {"right", 1}, {"l_", 0}, {"r_", 1},
                                    {"l.", 0},   {"r.", 1},    {"l ", 0}, {"r ", 1}};
  static const Affix kSuffixes[] = {{"left", 0}, {"right", 1}, {"_l", 0}, {"_r", 1},
                                    {".l", 0},   {".r", 1},    {" l", 0}, {" r", 1}};
  for (const auto& p : kPrefixes)
    if (starts_with(n, p.text)) {
      const Role r = role_of(letters_only(std::string_view(n).substr(std::strlen(p.text))));
      if (r != Role::None) return {p.side, r};
    }
  for (const auto& s : kSuffixes)
    if (ends_with(n, s.text)) {
      const Role r =
          role_of(letters_only(std::string_view(n).substr(0, n.size() - std::strlen(s.text))));
      if (r != Role::None) return {s.side, r};
    }
  // Second Life / Poser style: a bare l or r glued to the role ("lThigh", "rFoot").
  if (n.size() > 1 && (n[0] == 'l' || n[0] == 'r')) {
    const Role r = role_of(letters_only(std::string_view(n).substr(1)));
    if (r != Role::None) return {n[0] == 'l' ? 0 : 1, r};
  }
  return {-1, Role::None};
}

int lowest_common_ancestor(const Skeleton& s, const JointTree& tree, int a, int b) {
  for (int x = a; x >= 0; x = s.parents[x])
    if (tree.is_ancestor(x, b)) return x;
  return -1;
}

// Checks chain order and that the leg hangs down in the rest pose; returns an error or "".
std::string check_leg(const Skeleton& s, const JointTree& tree, const std::vector<Vec3>* rest,
                      const Leg& leg, const char* side) {
  const std::string prefix = std::string(side) + " leg: ";
  if (leg.hip < 0 || leg.knee < 0 || leg.ankle < 0) return prefix + "hip, knee or ankle not found";
  if (!tree.is_ancestor(leg.hip, leg.knee) || leg.hip == leg.knee)
    return prefix + "'" + s.names[leg.knee] + "' is not below '" + s.names[leg.hip] + "'";
  if (!tree.is_ancestor(leg.knee, leg.ankle) || leg.knee == leg.ankle)
    return prefix + "'" + s.names[leg.ankle] + "' is not below '" + s.names[leg.knee] + "'";
  if (leg.toe >= 0 && (!tree.is_ancestor(leg.ankle, leg.toe) || leg.toe == leg.ankle))
    return prefix + "'" + s.names[leg.toe] + "' is not below '" + s.names[leg.ankle] + "'";
  if (rest) {
    const auto& p = *rest;
    const double thigh = glm::length(p[leg.knee] - p[leg.hip]);
    const double shin = glm::length(p[leg.ankle] - p[leg.knee]);
    if (!(thigh > 0) || !(shin > 0)) return prefix + "zero-length thigh or shin";
  }
  return {};
}

// No joint outside the legs below `low_y` (world metres) that ends a chain of two or more bones
// longer than `long_bone` (a quadruped's front leg). Ancestors of the pelvis (a root on the
// floor) do not count. Linear in joints: per joint, the long bones and controls of the chain
// above it are those of its parent's chain plus its own bone.
std::string check_other_limbs(const Skeleton& s, const std::vector<Vec3>& p, const LegRig& rig,
                              double low_y, double long_bone) {
  const int n = s.joint_count(), pelvis = rig.pelvis;
  std::vector<char> above_pelvis(n, 0), in_leg(n, 0);
  for (int a = pelvis; a >= 0; a = s.parents[a]) above_pelvis[a] = 1;
  in_leg[rig.legs[0].hip] = in_leg[rig.legs[1].hip] = 1;
  // The segment joining the chain to a node above the pelvis (an armature or root node that
  // also holds IK controls placed anywhere) is a placement, not a bone of a limb: not counted.
  // A chain hanging from the pelvis itself (a tail) counts all its bones.
  // A chain with a control in it (Kenney's LeftFootCtrl > LeftHeelRoll > LeftToeRoll under its
  // root: names with ctrl, IK, roll, pole, ...) is a rig's foot control, not a limb.
  std::vector<int> long_bones(n, 0);
  std::vector<char> control_chain(n, 0);
  for (int j = 0; j < n; ++j) {
    const int parent = s.parents[j];
    if (parent < 0) continue;
    in_leg[j] = in_leg[j] || in_leg[parent];
    if (parent != pelvis && above_pelvis[parent]) continue;
    long_bones[j] = long_bones[parent] + (glm::length(p[j] - p[parent]) > long_bone ? 1 : 0);
    control_chain[j] = control_chain[parent] || parse_joint_name(s.names[j]).helper;
  }
  for (int j = 0; j < n; ++j) {
    if (in_leg[j] || above_pelvis[j] || p[j].y >= low_y) continue;
    if (long_bones[j] >= 2 && !control_chain[j])
      return "joint '" + s.names[j] +
             "' (not part of the legs) reaches below the knees in the rest pose: "
             "looks like a quadruped or a non-biped rig";
  }
  return {};
}

// A biped stands on two legs: both ankles well below the hips, and no other limb (a chain with
// two or more long bones, e.g. a quadruped's front leg) hangs as low as the knees. Ancestors of
// the pelvis (a root on the floor) and short helpers (IK targets, foot roots) do not count.
std::string check_biped(const Skeleton& s, const std::vector<Vec3>& p,
                        const std::vector<char>& group_nodes, const LegRig& rig) {
  double knee_y = 1e300, leg_len = 0;
  for (const Leg& leg : rig.legs) {
    const double len =
        glm::length(p[leg.knee] - p[leg.hip]) + glm::length(p[leg.ankle] - p[leg.knee]);
    leg_len = std::max(leg_len, len);
    if (p[leg.hip].y - p[leg.ankle].y < 0.5 * len)
      return "the legs do not hang down in the rest pose ('" + s.names[leg.ankle] +
             "' is not below '" + s.names[leg.hip] + "'); not a standing biped";
    knee_y = std::min(knee_y, p[leg.knee].y);
  }
  const int pelvis = rig.pelvis;
  // The trunk is above the legs: an ancestor of the pelvis hanging between hips and feet means
  // the "legs" are something else (arms hanging beside a body). A root on the floor is fine, and
  // a group node (core/legs_in_file.hpp) is no part of the trunk wherever it sits.
  double hip_y = 1e300, ankle_y = 1e300;
  for (const Leg& leg : rig.legs) {
    hip_y = std::min(hip_y, p[leg.hip].y);
    ankle_y = std::min(ankle_y, p[leg.ankle].y);
  }
  for (int a = s.parents[pelvis]; a >= 0; a = s.parents[a])
    if (!(a < static_cast<int>(group_nodes.size()) && group_nodes[a]) &&
        p[a].y < hip_y - 0.25 * leg_len && p[a].y > ankle_y + 0.1 * leg_len)
      return "joint '" + s.names[a] +
             "' (above the legs in the hierarchy) hangs between hips and feet: "
             "these chains are not legs";
  return check_other_limbs(s, p, rig, knee_y - 0.05 * leg_len, 0.15 * leg_len);
}

LegDetection finish(const Skeleton& s, const JointTree& tree, const std::vector<Vec3>* rest,
                    const std::vector<char>& group_nodes, LegRig rig) {
  for (int i = 0; i < 2; ++i)
    if (auto e = check_leg(s, tree, rest, rig.legs[i], kLegSideNames[i]); !e.empty())
      return {{}, e};
  if (tree.is_ancestor(rig.legs[0].hip, rig.legs[1].hip) ||
      tree.is_ancestor(rig.legs[1].hip, rig.legs[0].hip))
    return {{}, "left and right legs overlap in the hierarchy"};
  rig.pelvis = lowest_common_ancestor(s, tree, rig.legs[0].hip, rig.legs[1].hip);
  if (rig.pelvis < 0) return {{}, "the two legs have no common ancestor (pelvis)"};
  if (rest)
    if (auto e = check_biped(s, *rest, group_nodes, rig); !e.empty()) return {{}, e};
  return {rig, {}};
}

// Per joint, the deepest joint of `in_set` strictly above it, or -1.
std::vector<int> nearest_above(const Skeleton& s, const std::vector<char>& in_set) {
  std::vector<int> out(s.joint_count(), -1);
  for (int j = 0; j < s.joint_count(); ++j)
    if (const int p = s.parents[j]; p >= 0) out[j] = in_set[p] ? p : out[p];
  return out;
}

// Per joint, the joint of `in_set` strictly below it with the lowest index, or -1. A joint's
// index is below its descendants', so one pass from the last joint up finds it.
std::vector<int> first_below(const Skeleton& s, const std::vector<char>& in_set) {
  std::vector<int> out(s.joint_count(), -1);
  for (int j = s.joint_count() - 1; j >= 0; --j) {
    const int p = s.parents[j];
    const int here = in_set[j] ? j : out[j];
    if (p >= 0 && here >= 0 && (out[p] < 0 || here < out[p])) out[p] = here;
  }
  return out;
}

std::optional<LegRig> legs_by_name(const Skeleton& s, const JointTree& tree) {
  const int n = s.joint_count();
  // Per side and role (thigh, shin, foot, toe): the joints named so.
  std::vector<char> named[2][4];
  for (auto& side : named)
    for (auto& role : side) role.assign(n, 0);
  for (int j = 0; j < n; ++j) {
    auto [side, role] = side_and_role(normalized_joint_name(s.names[j]));
    if (side >= 0 && role != Role::None) named[side][static_cast<int>(role) - 1][j] = 1;
  }
  LegRig rig;
  rig.method = "names";
  for (int side = 0; side < 2; ++side) {
    // Each named knee: the nearest named thigh above it, the first named foot below it (by
    // index), the first named toe below that. The tightest chain wins: of knees one above the
    // other the lower, else the first in index order.
    const std::vector<int> thigh_above = nearest_above(s, named[side][0]);
    const std::vector<int> foot_below = first_below(s, named[side][2]);
    const std::vector<int> toe_below = first_below(s, named[side][3]);
    Leg best;
    for (int knee = 0; knee < n; ++knee) {
      if (!named[side][1][knee] || thigh_above[knee] < 0 || foot_below[knee] < 0) continue;
      if (best.knee < 0 || tree.is_ancestor(best.knee, knee))
        best = Leg{thigh_above[knee], knee, foot_below[knee], toe_below[foot_below[knee]]};
    }
    if (best.knee < 0) return std::nullopt;
    rig.legs[side] = best;
  }
  return rig;
}

// Per joint j, the chain from j down to its lowest descendant, and on it the thigh-shin window
// whose two bones are longest together (the first from the top among equals). Built in one
// pass from the last joint up: j's chain is j followed by its child's on the way down.
struct DownChains {
  std::vector<int> lowest;         // the chain's last joint
  std::vector<int> next;           // the joint after j on its chain, -1 at its end
  std::vector<int> size;           // joints on the chain
  std::vector<Leg> window;         // hip, knee, ankle and the joint after the ankle (or -1)
  std::vector<double> window_len;  // 0: no window with a positive length
};

DownChains down_chains(const Skeleton& s, const std::vector<Vec3>& p) {
  const int n = s.joint_count();
  DownChains c;
  c.lowest.resize(n);
  for (int j = 0; j < n; ++j) c.lowest[j] = j;
  for (int j = n - 1; j >= 0; --j) {
    const int parent = s.parents[j];
    if (parent >= 0 && p[c.lowest[j]].y < p[c.lowest[parent]].y) c.lowest[parent] = c.lowest[j];
  }
  c.next.assign(n, -1);
  for (int j = 0; j < n; ++j)
    if (s.parents[j] >= 0 && c.lowest[s.parents[j]] == c.lowest[j]) c.next[s.parents[j]] = j;
  c.size.assign(n, 1);
  c.window.assign(n, Leg{});
  c.window_len.assign(n, 0.0);
  for (int j = n - 1; j >= 0; --j) {
    const int j1 = c.next[j];
    const int j2 = j1 >= 0 ? c.next[j1] : -1;
    if (j1 >= 0) c.size[j] = c.size[j1] + 1;
    if (j2 < 0) continue;
    const double len = glm::length(p[j1] - p[j]) + glm::length(p[j2] - p[j1]);
    if (len > 0 && len >= c.window_len[j1]) {
      c.window[j] = Leg{j, j1, j2, c.next[j2]};
      c.window_len[j] = len;
    } else {
      c.window[j] = c.window[j1];
      c.window_len[j] = c.window_len[j1];
    }
  }
  return c;
}

// Two sibling chains that drop about as far (within 10 %): the pair dropping furthest together,
// the first by index among equals. `drops` holds (drop, joint) of the candidates. Sorted by
// drop, the best partner of a chain is the next one down; the pairs that tie with the best sum
// form a run after each chain, whose lowest joint index a sparse table gives.
std::optional<std::pair<int, int>> deepest_sibling_pair(std::vector<std::pair<double, int>> drops,
                                                        double& score) {
  std::sort(drops.begin(), drops.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  const int k = static_cast<int>(drops.size());
  auto valid = [&](int i, int j) {
    const double a = drops[i].first, b = drops[j].first;
    return !(std::abs(a - b) > 0.1 * std::max(a, b));
  };
  bool any = false;
  for (int i = 0; i + 1 < k; ++i)
    if (valid(i, i + 1) && (!any || drops[i].first + drops[i + 1].first > score)) {
      score = drops[i].first + drops[i + 1].first;
      any = true;
    }
  if (!any) return std::nullopt;
  // table[l][i]: the lowest joint index among positions i .. i + 2^l - 1.
  std::vector<std::vector<int>> table(1, std::vector<int>(k));
  for (int i = 0; i < k; ++i) table[0][i] = drops[i].second;
  for (int l = 1; (1 << l) <= k; ++l) {
    table.emplace_back(k - (1 << l) + 1);
    for (int i = 0; i + (1 << l) <= k; ++i)
      table[l][i] = std::min(table[l - 1][i], table[l - 1][i + (1 << (l - 1))]);
  }
  std::optional<std::pair<int, int>> best;
  for (int i = 0; i + 1 < k; ++i) {
    // The partners after i that are valid and reach the best sum: a run starting at i + 1.
    int lo = i + 1, hi = k;  // first position that is not a partner, in (lo, hi]
    if (!(valid(i, lo) && drops[i].first + drops[lo].first == score)) continue;
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      if (valid(i, mid) && drops[i].first + drops[mid].first == score)
        lo = mid;
      else
        hi = mid;
    }
    int l = 0;
    while ((2 << l) <= lo - i) ++l;
    const int partner = std::min(table[l][i + 1], table[l][lo - (1 << l) + 1]);
    const std::pair<int, int> pair = std::minmax(drops[i].second, partner);
    if (!best || pair < *best) best = pair;
  }
  return best;
}

// Topology: two sibling branches (same parent, or same grandparent via a short joint) whose
// chains are the two longest downward chains and mirror each other across the body.
std::optional<LegRig> legs_by_topology(const Skeleton& s, const JointTree& tree,
                                       const std::vector<Vec3>& p) {
  const DownChains chains = down_chains(s, p);
  double best_score = 0;
  LegRig best;
  for (int parent = 0; parent < s.joint_count(); ++parent) {
    std::vector<std::pair<double, int>> drops;
    for (int kid : tree.children(parent)) {
      const double drop = p[parent].y - p[chains.lowest[kid]].y;
      if (chains.size[kid] >= 3 && drop > 0) drops.emplace_back(drop, kid);
    }
    if (drops.size() < 2) continue;
    double score = 0;
    const auto pair = deepest_sibling_pair(std::move(drops), score);
    if (!pair || score <= best_score) continue;
    const Leg la = chains.window[pair->first], lb = chains.window[pair->second];
    // Left is +X when the toes point to +Z (right-handed, Y up): left = up x forward.
    const Vec3 fwd_a = la.toe >= 0 ? p[la.toe] - p[la.ankle] : Vec3(0, 0, 1);
    const Vec3 fwd_b = lb.toe >= 0 ? p[lb.toe] - p[lb.ankle] : Vec3(0, 0, 1);
    Vec3 forward = fwd_a + fwd_b;
    forward.y = 0;
    forward = safe_normalize(forward, Vec3(0, 0, 1));
    const Vec3 left = glm::cross(Vec3(0, 1, 0), forward);
    const bool a_is_left = glm::dot(p[la.hip] - p[lb.hip], left) > 0;
    best_score = score;
    best.legs[0] = a_is_left ? la : lb;
    best.legs[1] = a_is_left ? lb : la;
    best.method = "topology";
  }
  if (best_score <= 0) return std::nullopt;
  return best;
}

}  // namespace

std::string normalized_joint_name(const std::string& name) {
  std::string n;
  for (char c : name) n.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  // Namespaces ("mixamorig:", "Character1:") end at the last colon.
  if (auto colon = n.rfind(':'); colon != std::string::npos) n = n.substr(colon + 1);
  static const char* kPrefixes[] = {"mixamorig_", "mixamorig",   "bip01_", "bip01 ", "bip001 ",
                                    "bip001_",    "character1_", "def-",   "def_",   "b_",
                                    "jnt_",       "j_",          "bn_",    "bone_"};
  for (const char* p : kPrefixes)
    if (starts_with(n, p)) {
      n = n.substr(std::strlen(p));
      break;
    }
  return n;
}

namespace {

LegDetection detect_with_groups(const LegDetectionInput& input,
                                const std::vector<char>& group_nodes) {
  const Skeleton& s = *input.skeleton;
  const auto* rest = input.rest_world.size() == static_cast<std::size_t>(s.joint_count())
                         ? &input.rest_world
                         : nullptr;
  std::string name_error;
  const JointTree tree(s);
  if (auto rig = legs_by_name(s, tree)) {
    auto result = finish(s, tree, rest, group_nodes, *rig);
    if (result.rig) return result;
    name_error = result.error;
  }
  if (rest) {
    if (auto rig = legs_by_topology(s, tree, *rest)) {
      auto result = finish(s, tree, rest, group_nodes, *rig);
      if (result.rig) return result;
      if (name_error.empty()) name_error = result.error;
    }
  }
  if (!name_error.empty()) return {{}, "no two legs found: " + name_error};
  return {{},
          "no two legs found: no joints named like legs (LeftUpLeg/LeftLeg/LeftFoot, "
          "thigh_l/calf_l/foot_l, "
          "lThigh/lShin/lFoot, ...) and no pair of mirror-symmetric chains hanging from the hips; "
          "name them with --legs"};
}

LegDetectionInput rest_input(const Skeleton& skeleton, const Transform& to_world) {
  LegDetectionInput input;
  input.skeleton = &skeleton;
  std::vector<Transform> world(skeleton.joint_count());
  forward_kinematics(skeleton, skeleton.rest, to_world, world);
  input.rest_world.reserve(world.size());
  for (const Transform& t : world) input.rest_world.push_back(t.translation);
  return input;
}

}  // namespace

LegDetection detect_legs(const LegDetectionInput& input) { return detect_with_groups(input, {}); }

LegDetection legs_from_names(const Skeleton& s, const std::array<std::string, 8>& names) {
  LegRig rig;
  rig.method = "user";
  for (int side = 0; side < 2; ++side) {
    int* slots[4] = {&rig.legs[side].hip, &rig.legs[side].knee, &rig.legs[side].ankle,
                     &rig.legs[side].toe};
    for (int k = 0; k < 4; ++k) {
      const std::string& name = names[side * 4 + k];
      if (name.empty()) {
        if (k < 3)
          return {{},
                  std::string(kLegSideNames[side]) + " leg: joint " + std::to_string(k + 1) +
                      " not given"};
        continue;
      }
      *slots[k] = s.find(name);
      if (*slots[k] < 0) return {{}, "no joint named '" + name + "' in the skeleton"};
    }
  }
  return finish(s, JointTree(s), nullptr, {}, rig);
}

LegDetection detect_legs_at_rest(const Skeleton& skeleton, const Transform& to_world) {
  return detect_with_groups(rest_input(skeleton, to_world), {});
}

LegDetection detect_legs_at_rest(const Skeleton& skeleton, const Transform& to_world,
                                 const std::vector<char>& group_nodes) {
  return detect_with_groups(rest_input(skeleton, to_world), group_nodes);
}

}  // namespace ikfix::core
