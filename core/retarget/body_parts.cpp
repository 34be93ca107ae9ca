#include "core/retarget/body_parts.hpp"

#include <algorithm>
#include <cmath>

#include "core/joint_tree.hpp"
#include "core/retarget/bone_map.hpp"

namespace ikfix::core {
namespace {

constexpr Vec3 kUp{0, 1, 0};

struct Walker {
  const Skeleton& s;
  const RestPose& rest;
  const std::vector<JointName>& names;
  std::vector<std::vector<int>>
      kids;  // children that can be body parts (no helpers, no end markers)
  std::vector<std::vector<int>> all_kids;
  std::vector<double> low, high;  // lowest / highest rest point (m) of each joint's body subtree
  // Per joint: the child chain_down takes (-1 at a leaf), and the thigh of the leg
  // leg_from_chain finds on chain_down(j) with its thigh + shin length (-1: none); filled
  // bottom-up so that a leg costs O(1) per branch, not a walk down it.
  std::vector<int> next_down;
  std::vector<int> best_thigh;
  std::vector<double> best_length;
  JointTree tree;  // O(1) ancestor tests

  Walker(const RestPose& r, const std::vector<JointName>& n)
      : s(*r.skeleton), rest(r), names(n), tree(*r.skeleton) {
    const int count = s.joint_count();
    kids.resize(count);
    all_kids.resize(count);
    for (int j = 0; j < count; ++j)
      if (s.parents[j] >= 0) all_kids[s.parents[j]].push_back(j);
    for (int j = 0; j < count; ++j) {
      const int p = s.parents[j];
      if (p < 0) continue;
      const bool leaf = all_kids[j].empty();
      if (!names[j].helper && !(names[j].end_marker && leaf)) kids[p].push_back(j);
    }
    low.resize(count);
    high.resize(count);
    for (int j = count - 1; j >= 0; --j) {
      double lo = pos(j).y, hi = pos(j).y;
      if (const auto t = tail(j)) {
        lo = std::min(lo, t->y);
        hi = std::max(hi, t->y);
      }
      for (int c : kids[j]) {
        lo = std::min(lo, low[c]);
        hi = std::max(hi, high[c]);
      }
      low[j] = lo;
      high[j] = hi;
    }
    next_down.assign(count, -1);
    for (int j = 0; j < count; ++j)
      for (int c : kids[j])
        if (next_down[j] < 0 || low[c] < low[next_down[j]]) next_down[j] = c;
    best_thigh.assign(count, -1);
    best_length.assign(count, -1.0);
    for (int j = count - 1; j >= 0; --j) {
      const int below = next_down[j];
      const double own = pair_length(j);
      // The topmost pair of greatest length wins, as leg_from_chain's scan from the top.
      if (below >= 0 && best_thigh[below] >= 0 && !(own >= best_length[below])) {
        best_thigh[j] = best_thigh[below];
        best_length[j] = best_length[below];
      } else if (own >= 0) {
        best_thigh[j] = j;
        best_length[j] = own;
      }
    }
  }

  // Length of the two bones from j down chain_down(j) (the second may end at an end point);
  // -1 when there are not two.
  double pair_length(int j) const {
    const int n1 = next_down[j];
    if (n1 < 0) return -1.0;
    const int n2 = next_down[n1];
    const std::optional<Vec3> p2 = n2 >= 0 ? std::optional<Vec3>(pos(n2)) : tail(n1);
    if (!p2) return -1.0;
    return glm::length(pos(n1) - pos(j)) + glm::length(*p2 - pos(n1));
  }

  const Vec3& pos(int j) const { return rest.joint_world[j]; }

  // Where joint j's bone ends when it has no body child: its End Site, or an end-marker leaf
  // ("pied gauche_end") standing in for one.
  std::optional<Vec3> tail(int j) const {
    if (rest.end_world[j]) return rest.end_world[j];
    for (int c : all_kids[j])
      if (names[c].end_marker && all_kids[c].empty() && !names[c].helper) return pos(c);
    return std::nullopt;
  }

  // Follows the child reaching lowest (the first of equals), down to a leaf.
  std::vector<int> chain_down(int top) const {
    std::vector<int> chain{top};
    for (int cur = top; next_down[cur] >= 0;) {
      cur = next_down[cur];
      chain.push_back(cur);
    }
    return chain;
  }

  // Extreme lateral offsets (along `left`) of a subtree's joints from `origin`.
  std::pair<double, double> lateral_extent(int top, const Vec3& origin, const Vec3& left) const {
    double lo = 0, hi = 0;
    std::vector<int> stack{top};
    while (!stack.empty()) {
      const int j = stack.back();
      stack.pop_back();
      const double d = glm::dot(pos(j) - origin, left);
      lo = std::min(lo, d);
      hi = std::max(hi, d);
      for (int c : kids[j]) stack.push_back(c);
    }
    return {lo, hi};
  }

  // Side most joints of a chain name (-1 when none or tied).
  int named_side(const std::vector<int>& chain) const {
    int votes[2] = {0, 0};
    for (int j : chain)
      if (j >= 0 && names[j].side >= 0) ++votes[names[j].side];
    if (votes[0] == votes[1]) return -1;
    return votes[0] > votes[1] ? 0 : 1;
  }
};

struct LegCandidate {
  std::vector<int> chain;  // branch child down to the lowest leaf
  LegParts parts;
};

// The leg on chain_down(top): thigh and shin are the two longest consecutive bones of the chain
// (the last bone may end at an End Site; the topmost of equals): the barbarian's 2-bone leg ends
// at the ankle, CMU's starts with LHipJoint. No shin when the chain has no two bones.
LegParts leg_below(const Walker& w, int top) {
  LegParts leg;
  const int thigh = w.best_thigh[top];
  if (thigh < 0) return leg;
  leg.thigh = thigh;
  leg.shin = w.next_down[thigh];
  leg.foot = w.next_down[leg.shin];
  leg.foot_is_shin_end = leg.foot < 0;
  if (leg.foot >= 0) leg.toe = w.next_down[leg.foot];
  if (thigh != top) leg.hip_socket = w.s.parents[thigh];
  return leg;
}

// Thigh + shin (m); the shin ends at the foot joint or at its own end point.
double leg_length(const Walker& w, const LegParts& leg) {
  const Vec3 knee = w.pos(leg.shin);
  std::optional<Vec3> ankle =
      leg.foot >= 0 ? std::optional<Vec3>(w.pos(leg.foot)) : w.tail(leg.shin);
  return glm::length(knee - w.pos(leg.thigh)) + (ankle ? glm::length(*ankle - knee) : 0.0);
}

// A biped stands on these two legs only: no other limb (two or more long bones below the
// pelvis's level, outside the legs) reaches below the knees. A fox's front legs are not its
// "legs" when its hind legs hang as low, and the other way round.
// A limb is counted from a low joint up to where its path meets the pelvis's ancestors (or its
// root): its long bones and helpers are differences of counts from the roots down, and that
// meeting joint is found by bisection along the pelvis's ancestors, so a call is
// O(joints x log depth) whatever the shape.
bool stands_on(const Walker& w, int pelvis, const LegParts& a, const LegParts& b, double leg_len) {
  const double knee_y = std::min(w.pos(a.shin).y, w.pos(b.shin).y);
  const int n = w.s.joint_count();
  // Per joint, on its path from its root (whose own bone does not count): long bones, helpers.
  std::vector<int> long_bones(n, 0), helpers(n, 0), root(n, 0);
  for (int k = 0; k < n; ++k) {
    const int p = w.s.parents[k];
    root[k] = p < 0 ? k : root[p];
    if (p < 0) continue;
    long_bones[k] = long_bones[p] + (glm::length(w.pos(k) - w.pos(p)) > 0.15 * leg_len ? 1 : 0);
    helpers[k] = helpers[p] + (w.names[k].helper ? 1 : 0);
  }
  std::vector<int> up;  // the pelvis's ancestors, root first, the pelvis last
  for (int k = pelvis; k >= 0; k = w.s.parents[k]) up.push_back(k);
  std::reverse(up.begin(), up.end());
  for (int j = 0; j < n; ++j) {
    if (w.names[j].helper || w.tree.is_ancestor(j, pelvis) || w.tree.is_ancestor(a.thigh, j) ||
        w.tree.is_ancestor(b.thigh, j))
      continue;
    if (w.pos(j).y >= knee_y - 0.05 * leg_len) continue;
    // Where j's path up stops: the deepest of the pelvis's ancestors above j, else j's root.
    int stop = root[j];
    if (w.tree.is_ancestor(up.front(), j)) {
      std::size_t lo = 0, hi = up.size();  // up[lo] is above j; up[hi] is not (or past the end)
      while (hi - lo > 1) {
        const std::size_t mid = (lo + hi) / 2;
        (w.tree.is_ancestor(up[mid], j) ? lo : hi) = mid;
      }
      stop = up[lo];
    }
    // IK targets and controls may sit on the floor: a limb under a helper does not count.
    const bool under_helper = helpers[j] - helpers[stop] > 0;
    if (long_bones[j] - long_bones[stop] >= 2 && !under_helper) return false;
  }
  return true;
}

// A branch below a joint that can be one of a pair of legs.
struct LegBranch {
  int top = -1;
  LegParts leg;
  double length = 0;  // thigh + shin, m
  double drop = 0;    // how far below the joint the branch reaches, m
};

// The branches of p that can be legs, in p's child order: hanging below p, with a thigh and a
// shin, reaching at least 0.3 of their length below p (a leg hangs down, even when the "rest"
// pose is a frame of a walk with one foot lifted). O(1) per child.
std::vector<LegBranch> leg_branches(const Walker& w, int p) {
  std::vector<LegBranch> out;
  for (int c : w.kids[p]) {
    LegBranch b;
    b.top = c;
    b.drop = w.pos(p).y - w.low[c];
    if (!(b.drop > 0)) continue;  // a root's many props and helpers drop out here
    b.leg = leg_below(w, c);
    if (b.leg.shin < 0) continue;
    b.length = leg_length(w, b.leg);
    if (b.drop < 0.3 * b.length) continue;
    out.push_back(b);
  }
  return out;
}

// The two mirror branches hanging lowest from one joint: the legs, and that joint the pelvis.
// Branches that cannot be legs are dropped before pairing, so the pairs are those of the few
// leg-like branches of a joint, not of all its children (10^4 props under a root).
bool find_legs(const Walker& w, BodyParts& body, std::array<std::vector<int>, 2>& branches) {
  double best_score = 0;
  int best_a = -1, best_b = -1;
  for (int p = 0; p < w.s.joint_count(); ++p) {
    if (w.names[p].helper || w.kids[p].size() < 2) continue;
    const std::vector<LegBranch> legs = leg_branches(w, p);
    for (std::size_t a = 0; a < legs.size(); ++a)
      for (std::size_t b = a + 1; b < legs.size(); ++b) {
        const LegBranch& la = legs[a];
        const LegBranch& lb = legs[b];
        if (la.drop + lb.drop <= best_score) continue;
        // Mirror legs have the same thigh + shin length.
        if (std::abs(la.length - lb.length) > 0.1 * std::max(la.length, lb.length)) continue;
        // Mirror branches stand apart; two copies of one chain do not.
        const Vec3 gap = w.pos(la.leg.shin) - w.pos(lb.leg.shin);
        if (glm::length(Vec3(gap.x, 0, gap.z)) < 0.05 * std::max(la.drop, lb.drop)) continue;
        if (!stands_on(w, p, la.leg, lb.leg, std::max(la.length, lb.length))) continue;
        best_score = la.drop + lb.drop;
        body.hips = p;
        body.legs = {la.leg, lb.leg};
        best_a = la.top;
        best_b = lb.top;
      }
  }
  if (body.hips < 0) return false;
  branches = {w.chain_down(best_a), w.chain_down(best_b)};
  return true;
}

// Left = up x forward, forward from the feet (ankle -> toe), else from the knees' bend.
Vec3 rest_left(const Walker& w, const BodyParts& body) {
  Vec3 fwd(0.0);
  for (const LegParts& leg : body.legs) {
    if (leg.foot >= 0) {
      std::optional<Vec3> tip =
          leg.toe >= 0 ? std::optional<Vec3>(w.pos(leg.toe)) : w.tail(leg.foot);
      if (tip) fwd += *tip - w.pos(leg.foot);
    } else if (const auto ankle = w.tail(leg.shin)) {
      fwd += w.pos(leg.shin) - 0.5 * (w.pos(leg.thigh) + *ankle);
    }
  }
  fwd.y = 0;
  fwd = safe_normalize(fwd, Vec3(0, 0, 1));
  return safe_normalize(glm::cross(kUp, fwd), Vec3(1, 0, 0));
}

void assign_leg_sides(const Walker& w, BodyParts& body,
                      const std::array<std::vector<int>, 2>& branches) {
  const int sa = w.named_side(branches[0]), sb = w.named_side(branches[1]);
  bool swap = false, by_names = false;
  if (sa >= 0 && sb >= 0 && sa != sb) {
    by_names = true;
    swap = sa == 1;
  } else {
    swap = glm::dot(w.pos(body.legs[0].thigh) - w.pos(body.legs[1].thigh), body.left_ws) < 0;
  }
  if (swap) std::swap(body.legs[0], body.legs[1]);
  for (auto& leg : body.legs) leg.side_from_names = by_names;
}

bool is_finger_named(const JointName& n) {
  for (PartKind k : {PartKind::Thumb, PartKind::Index, PartKind::Middle, PartKind::Ring,
                     PartKind::Pinky, PartKind::Finger})
    if (n.can_mean(k)) return true;
  return false;
}

ArmParts arm_from_branch(const Walker& w, int top) {
  std::vector<int> chain{top};
  for (int cur = top; w.kids[cur].size() == 1 && !is_finger_named(w.names[w.kids[cur][0]]);) {
    cur = w.kids[cur][0];
    chain.push_back(cur);
  }
  ArmParts arm;
  const std::size_t n = chain.size();
  if (n >= 4) {
    arm.hand = chain[n - 1];
    arm.lower = chain[n - 2];
    arm.upper = chain[n - 3];
    arm.clavicle = chain[n - 4];
  } else if (n == 3) {
    // Clavicle, upper arm, forearm (no hand) only when the first is named a clavicle and
    // nothing else; otherwise upper arm, forearm, hand (CesiumMan's arm_joint_L__4_ > 3 > 2).
    const auto& first = w.names[chain[0]];
    if (first.can_mean(PartKind::Clavicle) && !first.can_mean(PartKind::UpperArm)) {
      arm.clavicle = chain[0];
      arm.upper = chain[1];
      arm.lower = chain[2];
    } else {
      arm.upper = chain[0];
      arm.lower = chain[1];
      arm.hand = chain[2];
    }
  } else if (n == 2) {
    arm.upper = chain[0];  // the barbarian's bras > main: its "hand" is the forearm (+ hand)
    arm.lower = chain[1];
  } else {
    arm.upper = chain[0];
  }
  if (arm.hand < 0) return arm;
  const double forearm = arm.lower >= 0 ? glm::length(w.pos(arm.hand) - w.pos(arm.lower)) : 0.0;
  const double scale = forearm > 1e-9 ? forearm : 1.0;
  for (int f : w.kids[arm.hand]) {
    FingerChain finger;
    double along = glm::length(w.pos(f) - w.pos(arm.hand));
    for (int cur = f;;) {
      finger.joints.push_back(cur);
      finger.positions.push_back(along / scale);
      if (w.kids[cur].size() != 1) break;
      const int next = w.kids[cur][0];
      along += glm::length(w.pos(next) - w.pos(cur));
      cur = next;
    }
    for (int j : finger.joints) {
      for (PartKind k :
           {PartKind::Thumb, PartKind::Index, PartKind::Middle, PartKind::Ring, PartKind::Pinky})
        if (w.names[j].can_mean(k)) finger.kind = k;
      if (finger.kind != PartKind::Finger) break;
    }
    arm.fingers.push_back(finger);
  }
  // One unnamed or generic finger chain beside the thumb stands for all fingers (CMU's
  // FingerBase, the max rig's lhand): it maps as the index.
  int generic = 0, index = 0;
  for (const auto& f : arm.fingers) {
    generic += f.kind == PartKind::Finger;
    index += f.kind == PartKind::Index;
  }
  if (generic == 1 && index == 0)
    for (auto& f : arm.fingers)
      if (f.kind == PartKind::Finger) f.kind = PartKind::Index;
  return arm;
}

// Walks up from the pelvis to the joint the arms hang from, then on to the head.
void find_trunk(const Walker& w, BodyParts& body,
                const std::array<std::vector<int>, 2>& leg_branches) {
  int start = -1;
  for (int c : w.kids[body.hips]) {
    if (c == leg_branches[0].front() || c == leg_branches[1].front()) continue;
    if (w.high[c] > w.pos(body.hips).y && (start < 0 || w.high[c] > w.high[start])) start = c;
  }
  if (start < 0) return;
  // About a leg length: twice the mean thigh.
  const double leg_len = glm::length(w.pos(body.legs[0].shin) - w.pos(body.legs[0].thigh)) +
                         glm::length(w.pos(body.legs[1].shin) - w.pos(body.legs[1].thigh));
  const double reach = 0.1 * leg_len;  // arms reach at least this far sideways, even hanging down
  int neck_start = -1;
  std::array<int, 2> arm_tops = {-1, -1};
  std::vector<int> trunk;
  for (int cur = start; cur >= 0 && trunk.size() < 64;) {
    trunk.push_back(cur);
    int left_top = -1, right_top = -1;
    double left_reach = reach, right_reach = reach;
    for (int c : w.kids[cur]) {
      const auto [lo, hi] = w.lateral_extent(c, w.pos(cur), body.left_ws);
      if (hi > left_reach && hi > -lo) left_top = c, left_reach = hi;
      if (-lo > right_reach && -lo > hi) right_top = c, right_reach = -lo;
    }
    // Arms are two different children; one child reaching both ways is the spine going on.
    const bool arms_here = left_top >= 0 && right_top >= 0 && left_top != right_top;
    int next = -1;
    for (int c : w.kids[cur])
      if ((!arms_here || (c != left_top && c != right_top)) &&
          (next < 0 || w.high[c] > w.high[next]))
        next = c;
    if (arms_here) {
      arm_tops = {left_top, right_top};
      neck_start = next;
      break;
    }
    cur = next;
  }
  if (arm_tops[0] < 0) {
    // No arms: the trunk's last joint is the head.
    body.head = trunk.back();
    trunk.pop_back();
    body.spine = trunk;
  } else {
    body.spine = trunk;
    std::vector<int> neck;
    for (int cur = neck_start; cur >= 0;) {
      neck.push_back(cur);
      int next = -1;
      for (int c : w.kids[cur]) {
        const Vec3 d = w.pos(c) - w.pos(cur);
        const bool central = std::abs(glm::dot(d, body.left_ws)) <= 0.3 * glm::length(d) + 1e-12;
        if (central && w.high[c] >= w.pos(cur).y && (next < 0 || w.high[c] > w.high[next]))
          next = c;
      }
      cur = next;
    }
    auto named_head = std::find_if(neck.begin(), neck.end(),
                                   [&](int j) { return w.names[j].can_mean(PartKind::Head); });
    if (named_head == neck.end() && !neck.empty()) named_head = neck.end() - 1;
    if (named_head != neck.end()) {
      body.head = *named_head;
      body.neck.assign(neck.begin(), named_head);
    }
    std::array<ArmParts, 2> arms = {arm_from_branch(w, arm_tops[0]),
                                    arm_from_branch(w, arm_tops[1])};
    const int sa = w.named_side({arms[0].clavicle, arms[0].upper, arms[0].lower, arms[0].hand});
    const int sb = w.named_side({arms[1].clavicle, arms[1].upper, arms[1].lower, arms[1].hand});
    const bool by_names = sa >= 0 && sb >= 0 && sa != sb;
    if (by_names && sa == 1) std::swap(arms[0], arms[1]);
    for (auto& arm : arms) arm.side_from_names = by_names;
    body.arms = arms;
  }
  // Heights along the trunk: spine from the thigh joints (rigs put the pelvis joint above or
  // below them) to the spine top; neck from the spine top to the head.
  const double base = 0.5 * (w.pos(body.legs[0].thigh).y + w.pos(body.legs[1].thigh).y);
  if (!body.spine.empty()) {
    const double top = w.pos(body.spine.back()).y;
    for (int j : body.spine)
      body.spine_heights.push_back(std::abs(top - base) > 1e-12 ? (w.pos(j).y - base) / (top - base)
                                                                : 0.0);
    if (body.head >= 0 && !body.neck.empty()) {
      const double head = w.pos(body.head).y;
      for (int j : body.neck)
        body.neck_heights.push_back(std::abs(head - top) > 1e-12 ? (w.pos(j).y - top) / (head - top)
                                                                 : 0.0);
    }
  }
}

}  // namespace

BodyParts find_body_parts(const RestPose& rest) {
  BodyParts body;
  const Skeleton& s = *rest.skeleton;
  const int n = s.joint_count();
  for (int j = 0; j < n; ++j) body.names.push_back(parse_joint_name(s.names[j]));
  body.excluded.assign(n, 0);
  for (int j = 0; j < n; ++j) body.excluded[j] = body.names[j].helper;
  if (rest.joint_world.size() != static_cast<std::size_t>(n) ||
      rest.end_world.size() != static_cast<std::size_t>(n))
    return body;
  const Walker w(rest, body.names);
  std::array<std::vector<int>, 2> branches;
  if (!find_legs(w, body, branches)) return body;
  body.left_ws = rest_left(w, body);
  assign_leg_sides(w, body, branches);
  find_trunk(w, body, branches);
  // Everything outside the body (control rigs beside it, parentless IK targets and poles,
  // whatever hangs below a helper) is excluded; the pelvis's own ancestors are not body parts
  // but not helpers either, unless named so.
  std::vector<char> in_body(n, 0);
  std::vector<int> stack{body.hips};
  while (!stack.empty()) {
    const int j = stack.back();
    stack.pop_back();
    in_body[j] = 1;
    for (int c : w.all_kids[j])
      if (!body.names[c].helper) stack.push_back(c);
  }
  std::vector<char> above_hips(n, 0);
  for (int a = body.hips; a >= 0; a = s.parents[a]) above_hips[a] = 1;
  for (int j = 0; j < n; ++j)
    if (!in_body[j] && !above_hips[j]) body.excluded[j] = 1;
  return body;
}

}  // namespace ikfix::core
