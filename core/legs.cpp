#include "core/legs.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>

#include "core/fk.hpp"
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

int lowest_common_ancestor(const Skeleton& s, int a, int b) {
  for (int x = a; x >= 0; x = s.parents[x])
    if (s.is_ancestor(x, b)) return x;
  return -1;
}

// Checks chain order and that the leg hangs down in the rest pose; returns an error or "".
std::string check_leg(const Skeleton& s, const std::vector<Vec3>* rest, const Leg& leg,
                      const char* side) {
  const std::string prefix = std::string(side) + " leg: ";
  if (leg.hip < 0 || leg.knee < 0 || leg.ankle < 0) return prefix + "hip, knee or ankle not found";
  if (!s.is_ancestor(leg.hip, leg.knee) || leg.hip == leg.knee)
    return prefix + "'" + s.names[leg.knee] + "' is not below '" + s.names[leg.hip] + "'";
  if (!s.is_ancestor(leg.knee, leg.ankle) || leg.knee == leg.ankle)
    return prefix + "'" + s.names[leg.ankle] + "' is not below '" + s.names[leg.knee] + "'";
  if (leg.toe >= 0 && (!s.is_ancestor(leg.ankle, leg.toe) || leg.toe == leg.ankle))
    return prefix + "'" + s.names[leg.toe] + "' is not below '" + s.names[leg.ankle] + "'";
  if (rest) {
    const auto& p = *rest;
    const double thigh = glm::length(p[leg.knee] - p[leg.hip]);
    const double shin = glm::length(p[leg.ankle] - p[leg.knee]);
    if (!(thigh > 0) || !(shin > 0)) return prefix + "zero-length thigh or shin";
  }
  return {};
}

// A biped stands on two legs: both ankles well below the hips, and no other limb (a chain with
// two or more long bones, e.g. a quadruped's front leg) hangs as low as the knees. Ancestors of
// the pelvis (a root on the floor) and short helpers (IK targets, foot roots) do not count.
std::string check_biped(const Skeleton& s, const std::vector<Vec3>& p, const LegRig& rig) {
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
  // the "legs" are something else (arms hanging beside a body). A root on the floor is fine.
  double hip_y = 1e300, ankle_y = 1e300;
  for (const Leg& leg : rig.legs) {
    hip_y = std::min(hip_y, p[leg.hip].y);
    ankle_y = std::min(ankle_y, p[leg.ankle].y);
  }
  for (int a = s.parents[pelvis]; a >= 0; a = s.parents[a])
    if (p[a].y < hip_y - 0.25 * leg_len && p[a].y > ankle_y + 0.1 * leg_len)
      return "joint '" + s.names[a] +
             "' (above the legs in the hierarchy) hangs between hips and feet: "
             "these chains are not legs";
  for (int j = 0; j < s.joint_count(); ++j) {
    const bool in_leg = s.is_ancestor(rig.legs[0].hip, j) || s.is_ancestor(rig.legs[1].hip, j);
    if (in_leg || s.is_ancestor(j, pelvis) || p[j].y >= knee_y - 0.05 * leg_len) continue;
    // The segment joining the chain to a node above the pelvis (an armature or root node that
    // also holds IK controls placed anywhere) is a placement, not a bone of a limb: not counted.
    // A chain hanging from the pelvis itself (a tail) counts all its bones.
    // A chain with a control in it (Kenney's LeftFootCtrl > LeftHeelRoll > LeftToeRoll under its
    // root: names with ctrl, IK, roll, pole, ...) is a rig's foot control, not a limb.
    int long_bones = 0;
    bool control_chain = false;
    for (int k = j; k >= 0 && s.parents[k] >= 0 &&
                    (s.parents[k] == pelvis || !s.is_ancestor(s.parents[k], pelvis));
         k = s.parents[k]) {
      if (glm::length(p[k] - p[s.parents[k]]) > 0.15 * leg_len) ++long_bones;
      control_chain = control_chain || parse_joint_name(s.names[k]).helper;
    }
    if (long_bones >= 2 && !control_chain)
      return "joint '" + s.names[j] +
             "' (not part of the legs) reaches below the knees in the rest pose: "
             "looks like a quadruped or a non-biped rig";
  }
  return {};
}

LegDetection finish(const Skeleton& s, const std::vector<Vec3>* rest, LegRig rig) {
  for (int i = 0; i < 2; ++i)
    if (auto e = check_leg(s, rest, rig.legs[i], kLegSideNames[i]); !e.empty()) return {{}, e};
  if (s.is_ancestor(rig.legs[0].hip, rig.legs[1].hip) ||
      s.is_ancestor(rig.legs[1].hip, rig.legs[0].hip))
    return {{}, "left and right legs overlap in the hierarchy"};
  rig.pelvis = lowest_common_ancestor(s, rig.legs[0].hip, rig.legs[1].hip);
  if (rig.pelvis < 0) return {{}, "the two legs have no common ancestor (pelvis)"};
  if (rest)
    if (auto e = check_biped(s, *rest, rig); !e.empty()) return {{}, e};
  return {rig, {}};
}

std::optional<LegRig> legs_by_name(const Skeleton& s) {
  // Candidates per side and role; pick the combination that forms a chain.
  std::vector<int> cand[2][4];
  for (int j = 0; j < s.joint_count(); ++j) {
    auto [side, role] = side_and_role(normalized_joint_name(s.names[j]));
    if (side < 0 || role == Role::None) continue;
    cand[side][static_cast<int>(role) - 1].push_back(j);
  }
  LegRig rig;
  rig.method = "names";
  for (int side = 0; side < 2; ++side) {
    Leg best;
    for (int knee : cand[side][1]) {
      for (int ankle : cand[side][2]) {
        if (!s.is_ancestor(knee, ankle) || knee == ankle) continue;
        // Thigh: a named one above the knee, else the knee's parent (rigs naming only leg+foot).
        int hip = -1;
        for (int h : cand[side][0])
          if (h != knee && s.is_ancestor(h, knee) && (hip < 0 || s.is_ancestor(hip, h))) hip = h;
        if (hip < 0) continue;
        int toe = -1;
        for (int t : cand[side][3])
          if (t != ankle && s.is_ancestor(ankle, t) && (toe < 0 || s.is_ancestor(t, toe))) toe = t;
        // Prefer the tightest chain: knee closest below hip, ankle closest below knee.
        if (best.knee < 0 || (s.is_ancestor(best.knee, knee) && best.knee != knee) ||
            (knee == best.knee && s.is_ancestor(ankle, best.ankle))) {
          best = Leg{hip, knee, ankle, toe};
        }
      }
    }
    if (best.knee < 0) return std::nullopt;
    rig.legs[side] = best;
  }
  return rig;
}

// Topology: two sibling branches (same parent, or same grandparent via a short joint) whose
// chains are the two longest downward chains and mirror each other across the body.
std::optional<LegRig> legs_by_topology(const Skeleton& s, const std::vector<Vec3>& p) {
  const int n = s.joint_count();
  // Lowest descendant of each joint and the path to it.
  std::vector<int> lowest(n);
  for (int j = 0; j < n; ++j) lowest[j] = j;
  for (int j = n - 1; j >= 0; --j) {
    const int parent = s.parents[j];
    if (parent >= 0 && p[lowest[j]].y < p[lowest[parent]].y) lowest[parent] = lowest[j];
  }
  auto chain_from = [&](int top) {
    std::vector<int> chain;
    for (int j = lowest[top]; j >= 0; j = s.parents[j]) {
      chain.push_back(j);
      if (j == top) break;
    }
    std::reverse(chain.begin(), chain.end());
    return chain;
  };
  double best_score = 0;
  LegRig best;
  for (int parent = 0; parent < n; ++parent) {
    const auto kids = s.children(parent);
    for (std::size_t a = 0; a < kids.size(); ++a)
      for (std::size_t b = a + 1; b < kids.size(); ++b) {
        const auto ca = chain_from(kids[a]);
        const auto cb = chain_from(kids[b]);
        if (ca.size() < 3 || cb.size() < 3) continue;
        const double drop_a = p[parent].y - p[ca.back()].y;
        const double drop_b = p[parent].y - p[cb.back()].y;
        if (drop_a <= 0 || drop_b <= 0) continue;
        if (std::abs(drop_a - drop_b) > 0.1 * std::max(drop_a, drop_b)) continue;
        // Two longest adjacent bones along each chain: thigh and shin.
        auto pick = [&](const std::vector<int>& c) {
          Leg leg;
          double best_len = 0;
          for (std::size_t i = 0; i + 2 < c.size(); ++i) {
            const double len =
                glm::length(p[c[i + 1]] - p[c[i]]) + glm::length(p[c[i + 2]] - p[c[i + 1]]);
            if (len > best_len) {
              best_len = len;
              leg = Leg{c[i], c[i + 1], c[i + 2], i + 3 < c.size() ? c[i + 3] : -1};
            }
          }
          return leg;
        };
        Leg la = pick(ca), lb = pick(cb);
        const double score = drop_a + drop_b;
        if (score <= best_score) continue;
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

LegDetection detect_legs(const LegDetectionInput& input) {
  const Skeleton& s = *input.skeleton;
  const auto* rest = input.rest_world.size() == static_cast<std::size_t>(s.joint_count())
                         ? &input.rest_world
                         : nullptr;
  std::string name_error;
  if (auto rig = legs_by_name(s)) {
    auto result = finish(s, rest, *rig);
    if (result.rig) return result;
    name_error = result.error;
  }
  if (rest) {
    if (auto rig = legs_by_topology(s, *rest)) {
      auto result = finish(s, rest, *rig);
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
  return finish(s, nullptr, rig);
}

LegDetection detect_legs_at_rest(const Skeleton& skeleton, const Transform& to_world) {
  LegDetectionInput input;
  input.skeleton = &skeleton;
  std::vector<Transform> world(skeleton.joint_count());
  forward_kinematics(skeleton, skeleton.rest, to_world, world);
  input.rest_world.reserve(world.size());
  for (const Transform& t : world) input.rest_world.push_back(t.translation);
  return detect_legs(input);
}

}  // namespace ikfix::core
