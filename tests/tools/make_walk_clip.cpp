// make_walk_clip — generates the project's own walking clip (data/clips/walk.bvh).
//
// A procedural, kinematically consistent straight walk along +Z on flat ground (y = 0):
// the feet follow a heel-strike -> flat-foot -> heel-rise/toe-off stance (the planted pivot,
// heel or toe ball, never slides) and a lifted swing; the legs are solved from the desired
// ankle positions with an analytic two-bone IK (knees always bend forward); the pelvis bobs,
// sways, rolls and yaws; the trunk counter-rotates and the arms swing opposite to the legs.
//
// Units are centimetres, Y up, the character faces +Z (its left is +X). Rotations are written
// as BVH "Zrotation Yrotation Xrotation" channels that decode as R = Rz(z) * Ry(y) * Rx(x)
// (degrees, column vectors); a joint's translation is OFFSET + position channels.
//
// Usage:
//   make_walk_clip -o data/clips/walk.bvh   write the clip, then re-read and check it
//   make_walk_clip --check file.bvh         re-read a clip, do FK and print the measurements
//
// Exit codes: 0 ok, 1 the check failed, 2 bad usage or unreadable input.
//
// Self-contained on purpose (only glm): it must not depend on the code it helps to test.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <glm/glm.hpp>
#include <iostream>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

namespace {

using glm::dmat3;
using glm::dvec3;

constexpr double kPi = std::numbers::pi;
constexpr double deg(double d) { return d * kPi / 180.0; }
constexpr double toDeg(double r) { return r * 180.0 / kPi; }

// ---------------------------------------------------------------------------------------------
// Clip parameters (cm, s, degrees)

constexpr int kFrames = 120;
constexpr double kFps = 30.0;
constexpr const char* kFrameTimeText = "0.0333333";

constexpr double kSpeed = 130.0;               // walking speed, cm/s
constexpr double kStepLength = 70.0;           // heel to heel, cm
constexpr double kStride = 2.0 * kStepLength;  // one gait cycle, cm
constexpr double kCycle = kStride / kSpeed;    // gait cycle, s (~1.077 s)

// Skeleton (rest pose: legs straight down, feet flat and pointing +Z, arms in a T).
constexpr double kHipHalfWidth = 9.0;  // pelvis centre -> hip joint, sideways
constexpr double kHipDrop = 3.0;       // pelvis centre -> hip joint, down
constexpr double kThigh = 45.0;
constexpr double kShin = 43.0;
constexpr double kAnkleHeight = 8.0;   // ankle above the sole (the ball sits on the sole)
constexpr double kBallForward = 13.0;  // ankle -> toe ball, forward
constexpr double kToeLength = 6.0;     // toe ball -> toe tip
constexpr double kHeelBack = 5.0;      // heel contact point behind the ankle (not a joint)

// Gait timing as fractions of the cycle, 0 = heel strike of that foot.
constexpr double kFootFlat = 0.10;               // heel rocker ends, sole flat
constexpr double kHeelOff = 0.38;                // heel starts to rise, foot rolls over the ball
constexpr double kToeOff = 0.62;                 // ball and toe leave the ground: swing starts
constexpr double kPitchHeelStrike = deg(-15.0);  // foot pitch at heel strike (toes up)
constexpr double kPitchToeOff = deg(55.0);       // foot pitch at toe-off (heel up)
constexpr double kSwingLift = 6.0;  // extra ankle lift in early swing on top of the blend, cm

constexpr double kFootHalfWidth = 7.5;       // foot centre line from the walking line
constexpr double kHeelAheadAtStrike = 28.0;  // heel ahead of the pelvis at its heel strike

// Pelvis motion.
constexpr double kPelvisHeight = 95.6;  // mean Hips height, cm (hip joints 3 cm lower)
constexpr double kMidStance = 0.27;     // cycle phase of the pelvis high point over the left foot
constexpr double kPelvisBob = 1.5;      // amplitude (3 cm peak to peak), twice per cycle
constexpr double kPelvisSway = 1.8;     // sideways toward the stance foot, cm
constexpr double kPelvisYaw = deg(4.0);
constexpr double kPelvisRoll = deg(3.0);
constexpr double kPelvisTilt = deg(4.0);  // anterior tilt, taken back out by the spine

// ---------------------------------------------------------------------------------------------
// Small rotation helpers (glm is column-major: m[col][row]).

dmat3 rotX(double a) {
  const double c = std::cos(a), s = std::sin(a);
  return dmat3(dvec3(1, 0, 0), dvec3(0, c, s), dvec3(0, -s, c));
}
dmat3 rotY(double a) {
  const double c = std::cos(a), s = std::sin(a);
  return dmat3(dvec3(c, 0, -s), dvec3(0, 1, 0), dvec3(s, 0, c));
}
dmat3 rotZ(double a) {
  const double c = std::cos(a), s = std::sin(a);
  return dmat3(dvec3(c, s, 0), dvec3(-s, c, 0), dvec3(0, 0, 1));
}

// R = Rz(z) * Ry(y) * Rx(x); returns degrees (z, y, x).
dvec3 eulerZYX(const dmat3& m) {
  const double r20 = m[0][2], r21 = m[1][2], r22 = m[2][2], r10 = m[0][1], r00 = m[0][0];
  const double y = std::asin(std::clamp(-r20, -1.0, 1.0));
  const double x = std::atan2(r21, r22);
  const double z = std::atan2(r10, r00);
  return {toDeg(z), toDeg(y), toDeg(x)};
}

dmat3 rotationFromChannel(char axis, double degrees) {
  const double a = deg(degrees);
  return axis == 'X' ? rotX(a) : axis == 'Y' ? rotY(a) : rotZ(a);
}

double smoothstep(double u) {
  u = std::clamp(u, 0.0, 1.0);
  return u * u * (3.0 - 2.0 * u);
}

// Cubic Hermite on [0, 1] with end values and end tangents (per unit of s).
template <class T>
T hermite(const T& p0, const T& m0, const T& p1, const T& m1, double s) {
  const double s2 = s * s, s3 = s2 * s;
  return (2 * s3 - 3 * s2 + 1) * p0 + (s3 - 2 * s2 + s) * m0 + (-2 * s3 + 3 * s2) * p1 +
         (s3 - s2) * m1;
}

// ---------------------------------------------------------------------------------------------
// Skeleton

struct Joint {
  std::string name;
  int parent = -1;
  dvec3 offset{0.0};
  bool hasEndSite = false;
  dvec3 endOffset{0.0};
};

enum J {
  Hips,
  LHipJoint,
  LeftUpLeg,
  LeftLeg,
  LeftFoot,
  LeftToeBase,
  RHipJoint,
  RightUpLeg,
  RightLeg,
  RightFoot,
  RightToeBase,
  LowerBack,
  Spine,
  Spine1,
  Neck,
  Head,
  LeftShoulder,
  LeftArm,
  LeftForeArm,
  LeftHand,
  RightShoulder,
  RightArm,
  RightForeArm,
  RightHand,
  kJointCount
};

std::vector<Joint> makeSkeleton() {
  std::vector<Joint> j(kJointCount);
  auto set = [&](int i, const char* name, int parent, dvec3 offset) {
    j[i].name = name;
    j[i].parent = parent;
    j[i].offset = offset;
  };
  auto end = [&](int i, dvec3 offset) {
    j[i].hasEndSite = true;
    j[i].endOffset = offset;
  };
  set(Hips, "Hips", -1, {0, 0, 0});
  for (int side = 0; side < 2; ++side) {
    const double sx = side == 0 ? 1.0 : -1.0;  // left is +X
    const int b = side == 0 ? LHipJoint : RHipJoint;
    set(b + 0, side == 0 ? "LHipJoint" : "RHipJoint", Hips, {0, 0, 0});
    set(b + 1, side == 0 ? "LeftUpLeg" : "RightUpLeg", b + 0, {sx * kHipHalfWidth, -kHipDrop, 0});
    set(b + 2, side == 0 ? "LeftLeg" : "RightLeg", b + 1, {0, -kThigh, 0});
    set(b + 3, side == 0 ? "LeftFoot" : "RightFoot", b + 2, {0, -kShin, 0});
    set(b + 4, side == 0 ? "LeftToeBase" : "RightToeBase", b + 3, {0, -kAnkleHeight, kBallForward});
    end(b + 4, {0, 0, kToeLength});
  }
  set(LowerBack, "LowerBack", Hips, {0, 3, 0});
  set(Spine, "Spine", LowerBack, {0, 12, 0});
  set(Spine1, "Spine1", Spine, {0, 14, 0});
  set(Neck, "Neck", Spine1, {0, 22, 0});
  set(Head, "Head", Neck, {0, 10, 0});
  end(Head, {0, 17, 0});
  for (int side = 0; side < 2; ++side) {
    const double sx = side == 0 ? 1.0 : -1.0;
    const int b = side == 0 ? LeftShoulder : RightShoulder;
    set(b + 0, side == 0 ? "LeftShoulder" : "RightShoulder", Spine1, {sx * 2, 18, 0});
    set(b + 1, side == 0 ? "LeftArm" : "RightArm", b + 0, {sx * 16, 0, 0});
    set(b + 2, side == 0 ? "LeftForeArm" : "RightForeArm", b + 1, {sx * 28, 0, 0});
    set(b + 3, side == 0 ? "LeftHand" : "RightHand", b + 2, {sx * 25, 0, 0});
    end(b + 3, {sx * 10, 0, 0});
  }
  return j;
}

// ---------------------------------------------------------------------------------------------
// Foot trajectory

struct FootPose {
  dvec3 ankle{0.0};
  double pitch = 0.0;     // world rotation of the foot about X (positive: toes down)
  double toeLocal = 0.0;  // toe joint rotation about X relative to the foot
};

double pelvisZ(double t) { return kSpeed * t; }

// First heel strike of each foot: left at t = 0, right half a cycle later (so also at -T/2).
double heelStrikeTime(int side, int stride) {
  return (side == 0 ? 0.0 : 0.5 * kCycle) + stride * kCycle;
}

// Stance pose of a foot in stride k at cycle phase p in [0, kToeOff].
FootPose stancePose(int side, int k, double p) {
  const double x = (side == 0 ? 1.0 : -1.0) * kFootHalfWidth;
  const dvec3 heel(x, 0.0, pelvisZ(heelStrikeTime(side, k)) + kHeelAheadAtStrike);
  FootPose f;
  if (p < kFootFlat) {  // heel rocker: the heel point is the pivot
    const double u = p / kFootFlat;
    f.pitch = kPitchHeelStrike * (1 - u) * (1 - u);
    f.ankle = heel + rotX(f.pitch) * dvec3(0, kAnkleHeight, kHeelBack);
  } else if (p < kHeelOff) {  // flat foot
    f.ankle = heel + dvec3(0, kAnkleHeight, kHeelBack);
  } else {  // heel rise: the toe ball is the pivot, the toes stay flat on the ground
    const double u = (p - kHeelOff) / (kToeOff - kHeelOff);
    f.pitch = kPitchToeOff * u * u;
    const dvec3 ball = heel + dvec3(0, 0, kHeelBack + kBallForward);
    f.ankle = ball + rotX(f.pitch) * dvec3(0, kAnkleHeight, -kBallForward);
    f.toeLocal = -f.pitch;
  }
  return f;
}

// d/dp of the stance pose, one-sided (second order) so it stays inside one stance segment.
FootPose stanceRate(int side, int k, double p, bool fromLeft) {
  const double e = 1e-5 * (fromLeft ? -1.0 : 1.0);
  const FootPose a = stancePose(side, k, p), b = stancePose(side, k, p + e),
                 c = stancePose(side, k, p + 2 * e);
  FootPose d;
  d.ankle = (-3.0 * a.ankle + 4.0 * b.ankle - c.ankle) / (2 * e);
  d.pitch = (-3.0 * a.pitch + 4.0 * b.pitch - c.pitch) / (2 * e);
  d.toeLocal = (-3.0 * a.toeLocal + 4.0 * b.toeLocal - c.toeLocal) / (2 * e);
  return d;
}

FootPose footPose(int side, double t) {
  const double cyc = (t - heelStrikeTime(side, 0)) / kCycle;
  const int k = static_cast<int>(std::floor(cyc));
  const double p = cyc - k;
  if (p <= kToeOff) return stancePose(side, k, p);

  // Swing: C1 blend from this stride's toe-off to the next stride's heel strike.
  const double span = 1.0 - kToeOff;
  const double s = (p - kToeOff) / span;
  const FootPose a = stancePose(side, k, kToeOff), b = stancePose(side, k + 1, 0.0);
  const FootPose da = stanceRate(side, k, kToeOff, true), db = stanceRate(side, k + 1, 0.0, false);
  FootPose f;
  f.ankle = hermite(a.ankle, da.ankle * span, b.ankle, db.ankle * span, s);
  // Extra lift peaking at s = 0.4 (value 1 there), flat at both ends so the blend stays C1.
  f.ankle.y += kSwingLift * s * s * (1 - s) * (1 - s) * (1 - s) / 0.03456;
  f.pitch = hermite(a.pitch, da.pitch * span, b.pitch, db.pitch * span, s);
  // The toes keep their flat world pitch at toe-off and relax back to neutral in early swing.
  f.toeLocal = -f.pitch * (1.0 - smoothstep(s / 0.6));
  return f;
}

// ---------------------------------------------------------------------------------------------
// Two-bone IK: hip at h, ankle target a, knee bending toward `forward`.
// Returns the world rotations of the thigh and the shin (rest: bones along -Y, hinge axis X).

struct LegSolution {
  dmat3 thigh{1.0}, shin{1.0};
  double reach = 0.0;  // |a - h| / (thigh + shin)
};

LegSolution solveLeg(dvec3 h, dvec3 a, dvec3 forward) {
  LegSolution out;
  const dvec3 ha = a - h;
  const double d = glm::length(ha);
  out.reach = d / (kThigh + kShin);
  if (out.reach >= 1.0 || d <= std::abs(kThigh - kShin)) {
    std::cerr << "make_walk_clip: leg IK target out of reach (" << d << " cm)\n";
    std::exit(1);
  }
  const dvec3 u = ha / d;
  const dvec3 hinge = glm::normalize(glm::cross(forward, ha));
  const dvec3 w = glm::cross(u, hinge);  // in the leg plane, toward `forward`
  const double cosA = (kThigh * kThigh + d * d - kShin * kShin) / (2 * kThigh * d);
  const double sinA = std::sqrt(std::max(0.0, 1 - cosA * cosA));
  const dvec3 knee = h + kThigh * (cosA * u + sinA * w);
  auto frame = [&](dvec3 from, dvec3 to) {
    const dvec3 y = glm::normalize(from - to);  // the bone points along -Y
    return dmat3(hinge, y, glm::cross(hinge, y));
  };
  out.thigh = frame(h, knee);
  out.shin = frame(knee, a);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Pose generation

struct Pose {
  dvec3 rootPos{0.0};
  std::vector<dmat3> local;  // per joint
};

struct GenStats {
  double minReach = 1e9, maxReach = 0.0;
};

Pose makePose(const std::vector<Joint>& sk, double t, GenStats& stats) {
  Pose pose;
  pose.local.assign(kJointCount, dmat3(1.0));
  const double ph = t / kCycle;  // left heel strike at integer values

  // Pelvis.
  const double bob = kPelvisBob * std::cos(2 * kPi * 2 * (ph - kMidStance));
  const double sway = kPelvisSway * std::cos(2 * kPi * (ph - kMidStance));
  const double yaw = -kPelvisYaw * std::cos(2 * kPi * ph);  // forward hip follows forward leg
  const double roll = kPelvisRoll * std::cos(2 * kPi * (ph - kMidStance));  // swing hip drops
  pose.rootPos = dvec3(sway, kPelvisHeight + bob, pelvisZ(t));
  const dmat3 hipsWorld = rotY(yaw) * rotX(kPelvisTilt) * rotZ(roll);
  pose.local[Hips] = hipsWorld;

  // Legs.
  for (int side = 0; side < 2; ++side) {
    const int b = side == 0 ? LHipJoint : RHipJoint;
    const dvec3 hip = pose.rootPos + hipsWorld * (sk[b].offset + sk[b + 1].offset);
    const FootPose f = footPose(side, t);
    const LegSolution leg = solveLeg(hip, f.ankle, dvec3(0, 0, 1));
    stats.minReach = std::min(stats.minReach, leg.reach);
    stats.maxReach = std::max(stats.maxReach, leg.reach);
    const dmat3 footWorld = rotX(f.pitch);
    pose.local[b + 1] = glm::transpose(hipsWorld) * leg.thigh;  // LHipJoint stays identity
    pose.local[b + 2] = glm::transpose(leg.thigh) * leg.shin;
    pose.local[b + 3] = glm::transpose(leg.shin) * footWorld;
    pose.local[b + 4] = rotX(f.toeLocal);
  }

  // Trunk: undo the pelvis tilt/roll gradually, counter-rotate the thorax against the pelvis.
  pose.local[LowerBack] = rotY(-0.4 * yaw) * rotZ(-0.5 * roll) * rotX(-0.5 * kPelvisTilt);
  pose.local[Spine] = rotY(-0.45 * yaw) * rotZ(-0.4 * roll) * rotX(-0.2 * kPelvisTilt);
  pose.local[Spine1] = rotY(-0.45 * yaw) * rotX(deg(1.0));
  dmat3 neckWorld = hipsWorld * pose.local[LowerBack] * pose.local[Spine] * pose.local[Spine1];
  pose.local[Neck] = rotX(deg(-2.0));
  neckWorld = neckWorld * pose.local[Neck];
  // Head keeps looking straight ahead, with a small nod that follows the bob.
  pose.local[Head] = glm::transpose(neckWorld) * rotX(deg(2.0 + 0.8 * std::cos(4 * kPi * ph)));

  // Arms: hang from a T-pose, swing opposite to the legs, elbows flex more when forward.
  for (int side = 0; side < 2; ++side) {
    const double sx = side == 0 ? 1.0 : -1.0;
    const int b = side == 0 ? LeftShoulder : RightShoulder;
    const double c = std::cos(2 * kPi * (ph - (side == 0 ? 0.5 : 0.0) - 0.04));
    const double swing = deg(-4.0 + 15.0 * c);  // shoulder, + forward
    const double elbow = deg(20.0 + 12.0 * c);  // flexion
    pose.local[b + 1] = rotX(-swing) * rotZ(-sx * deg(84.0));
    pose.local[b + 2] = rotY(-sx * elbow);
    pose.local[b + 3] = rotY(-sx * deg(5.0));
  }
  return pose;
}

// ---------------------------------------------------------------------------------------------
// BVH writing

std::string fmt4(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  std::string s(buf);
  if (s == "-0.0000") s = "0.0000";
  return s;
}

void writeJoint(std::ostream& os, const std::vector<Joint>& sk, int i, int depth) {
  const std::string ind(2 * depth, ' ');
  const Joint& j = sk[i];
  os << ind << (j.parent < 0 ? "ROOT " : "JOINT ") << j.name << "\n" << ind << "{\n";
  os << ind << "  OFFSET " << fmt4(j.offset.x) << " " << fmt4(j.offset.y) << " " << fmt4(j.offset.z)
     << "\n";
  if (j.parent < 0)
    os << ind << "  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n";
  else
    os << ind << "  CHANNELS 3 Zrotation Yrotation Xrotation\n";
  for (int c = 0; c < kJointCount; ++c)
    if (sk[c].parent == i) writeJoint(os, sk, c, depth + 1);
  if (j.hasEndSite) {
    os << ind << "  End Site\n" << ind << "  {\n";
    os << ind << "    OFFSET " << fmt4(j.endOffset.x) << " " << fmt4(j.endOffset.y) << " "
       << fmt4(j.endOffset.z) << "\n";
    os << ind << "  }\n";
  }
  os << ind << "}\n";
}

int generate(const std::string& path) {
  const std::vector<Joint> sk = makeSkeleton();
  GenStats stats;
  // Channel values per frame, in hierarchy (= enum) order.
  std::vector<std::vector<double>> rows;
  for (int f = 0; f < kFrames; ++f) {
    const Pose pose = makePose(sk, f / kFps, stats);
    std::vector<double> row = {pose.rootPos.x, pose.rootPos.y, pose.rootPos.z};
    for (int i = 0; i < kJointCount; ++i) {
      const dvec3 e = eulerZYX(pose.local[i]);
      // Round-trip guard: the written angles must rebuild the same rotation.
      const dmat3 back = rotZ(deg(e.x)) * rotY(deg(e.y)) * rotX(deg(e.z));
      for (int c = 0; c < 3; ++c)
        if (glm::length(back[c] - pose.local[i][c]) > 1e-9) {
          std::cerr << "make_walk_clip: Euler round trip failed at " << sk[i].name << "\n";
          return 1;
        }
      row.insert(row.end(), {e.x, e.y, e.z});
    }
    rows.push_back(std::move(row));
  }
  // Keep every angle channel continuous (no +-360 jumps between frames).
  for (std::size_t f = 1; f < rows.size(); ++f)
    for (std::size_t c = 3; c < rows[f].size(); ++c) {
      while (rows[f][c] - rows[f - 1][c] > 180.0) rows[f][c] -= 360.0;
      while (rows[f][c] - rows[f - 1][c] < -180.0) rows[f][c] += 360.0;
    }

  std::ostringstream os;
  os << "HIERARCHY\n";
  writeJoint(os, sk, Hips, 0);
  os << "MOTION\nFrames: " << kFrames << "\nFrame Time: " << kFrameTimeText << "\n";
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) os << (c ? " " : "") << fmt4(row[c]);
    os << "\n";
  }
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << os.str();
  out.close();
  if (!out) {
    std::cerr << "make_walk_clip: cannot write " << path << "\n";
    return 2;
  }
  std::printf("wrote %s: %d frames at %.0f fps, %d joints, IK reach %.4f..%.4f of leg length\n",
              path.c_str(), kFrames, kFps, static_cast<int>(kJointCount), stats.minReach,
              stats.maxReach);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// BVH reading + FK + measurements (the --check mode; independent of the generator's state)

struct BvhJoint {
  std::string name;
  int parent = -1;
  dvec3 offset{0.0};
  std::vector<std::string> channels;
  int firstChannel = 0;
  bool isEndSite = false;
};

struct Bvh {
  std::vector<BvhJoint> joints;  // includes end sites (named "<parent>_End")
  int channelCount = 0;
  int frames = 0;
  double frameTime = 0.0;
  std::vector<std::vector<double>> values;
};

bool readBvh(const std::string& path, Bvh& bvh, std::string& err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err = "cannot open " + path;
    return false;
  }
  std::vector<std::string> tok;
  for (std::string s; in >> s;) tok.push_back(s);
  std::size_t i = 0;
  auto next = [&]() -> std::string { return i < tok.size() ? tok[i++] : std::string(); };
  auto num = [&]() { return std::strtod(next().c_str(), nullptr); };
  if (next() != "HIERARCHY") {
    err = "missing HIERARCHY";
    return false;
  }
  std::vector<int> stack;
  int pending = -1;
  while (i < tok.size()) {
    const std::string t = next();
    if (t == "ROOT" || t == "JOINT" || t == "End") {
      BvhJoint j;
      j.isEndSite = t == "End";
      const std::string name = next();
      j.parent = stack.empty() ? -1 : stack.back();
      j.name = j.isEndSite ? bvh.joints[j.parent].name + "_End" : name;
      bvh.joints.push_back(j);
      pending = static_cast<int>(bvh.joints.size()) - 1;
    } else if (t == "{") {
      stack.push_back(pending);
    } else if (t == "}") {
      if (stack.empty()) {
        err = "unbalanced braces";
        return false;
      }
      stack.pop_back();
    } else if (t == "OFFSET") {
      BvhJoint& j = bvh.joints[stack.back()];
      j.offset.x = num();
      j.offset.y = num();
      j.offset.z = num();
    } else if (t == "CHANNELS") {
      BvhJoint& j = bvh.joints[stack.back()];
      const int n = std::atoi(next().c_str());
      j.firstChannel = bvh.channelCount;
      for (int c = 0; c < n; ++c) j.channels.push_back(next());
      bvh.channelCount += n;
    } else if (t == "MOTION") {
      break;
    } else {
      err = "unexpected token " + t;
      return false;
    }
  }
  if (next() != "Frames:") {
    err = "missing Frames:";
    return false;
  }
  bvh.frames = std::atoi(next().c_str());
  if (next() != "Frame" || next() != "Time:") {
    err = "missing Frame Time:";
    return false;
  }
  bvh.frameTime = num();
  for (int f = 0; f < bvh.frames; ++f) {
    std::vector<double> row(bvh.channelCount);
    for (auto& v : row) {
      if (i >= tok.size()) {
        err = "too few motion values";
        return false;
      }
      v = num();
    }
    bvh.values.push_back(std::move(row));
  }
  if (i != tok.size()) {
    err = "trailing data after the motion values";
    return false;
  }
  return true;
}

struct WorldPose {
  std::vector<dvec3> pos;
  std::vector<dmat3> rot;
};

WorldPose forwardKinematics(const Bvh& bvh, int frame) {
  WorldPose w;
  const std::size_t n = bvh.joints.size();
  w.pos.resize(n);
  w.rot.resize(n);
  const auto& row = bvh.values[frame];
  for (std::size_t i = 0; i < n; ++i) {
    const BvhJoint& j = bvh.joints[i];
    dvec3 t = j.offset;
    dmat3 r(1.0);
    for (std::size_t c = 0; c < j.channels.size(); ++c) {
      const std::string& ch = j.channels[c];
      const double v = row[j.firstChannel + c];
      if (ch == "Xposition")
        t.x += v;
      else if (ch == "Yposition")
        t.y += v;
      else if (ch == "Zposition")
        t.z += v;
      else
        r = r * rotationFromChannel(ch[0], v);
    }
    if (j.parent < 0) {
      w.pos[i] = t;
      w.rot[i] = r;
    } else {
      w.pos[i] = w.pos[j.parent] + w.rot[j.parent] * t;
      w.rot[i] = w.rot[j.parent] * r;
    }
  }
  return w;
}

int findJoint(const Bvh& bvh, const std::string& name) {
  for (std::size_t i = 0; i < bvh.joints.size(); ++i)
    if (bvh.joints[i].name == name) return static_cast<int>(i);
  return -1;
}

int check(const std::string& path) {
  Bvh bvh;
  std::string err;
  if (!readBvh(path, bvh, err)) {
    std::cerr << "make_walk_clip: " << path << ": " << err << "\n";
    return 2;
  }
  const int F = bvh.frames;
  const double dt = bvh.frameTime;
  std::vector<WorldPose> world;
  for (int f = 0; f < F; ++f) world.push_back(forwardKinematics(bvh, f));
  bool ok = true;
  std::printf("%s: %d frames, frame time %.7f s (%.2f fps), %zu joints + end sites, %d channels\n",
              path.c_str(), F, dt, 1.0 / dt, bvh.joints.size(), bvh.channelCount);

  // Bone lengths.
  double boneErr = 0.0;
  for (std::size_t i = 0; i < bvh.joints.size(); ++i) {
    const int p = bvh.joints[i].parent;
    if (p < 0) continue;
    const double rest = glm::length(bvh.joints[i].offset);
    for (int f = 0; f < F; ++f)
      boneErr = std::max(boneErr, std::abs(glm::length(world[f].pos[i] - world[f].pos[p]) - rest));
  }
  std::printf("bone lengths: max deviation from rest %.6f cm\n", boneErr);
  ok &= boneErr < 0.01;

  const int hips = findJoint(bvh, "Hips");
  if (hips < 0 || F < 2) {
    std::cerr << "make_walk_clip: " << path << ": needs a Hips joint and at least 2 frames\n";
    return 2;
  }
  const dvec3 start = world[0].pos[hips], stop = world[F - 1].pos[hips];
  double minY = 1e9, maxY = -1e9;
  for (int f = 0; f < F; ++f) {
    minY = std::min(minY, world[f].pos[hips].y);
    maxY = std::max(maxY, world[f].pos[hips].y);
  }
  std::printf(
      "Hips: (%.1f, %.1f, %.1f) -> (%.1f, %.1f, %.1f) cm; walked %.1f cm along +Z "
      "(%.1f cm/s); height %.1f..%.1f (bob %.1f cm)\n",
      start.x, start.y, start.z, stop.x, stop.y, stop.z, stop.z - start.z,
      (stop.z - start.z) / ((F - 1) * dt), minY, maxY, maxY - minY);

  const char* sides[2] = {"Left", "Right"};
  for (int s = 0; s < 2; ++s) {
    const std::string L = sides[s];
    const int up = findJoint(bvh, L + "UpLeg"), knee = findJoint(bvh, L + "Leg"),
              ankle = findJoint(bvh, L + "Foot"), ball = findJoint(bvh, L + "ToeBase"),
              tip = findJoint(bvh, L + "ToeBase_End");
    if (up < 0 || knee < 0 || ankle < 0 || ball < 0 || tip < 0) {
      std::cerr << "make_walk_clip: missing " << L << " leg joints\n";
      return 2;
    }
    // Sole height from the rest pose: how far the ankle sits above the toe ball.
    const double sole = -bvh.joints[ball].offset.y;
    const double heelBack = kHeelBack;  // the generator's heel point, behind the ankle
    // Points: 0 heel (foot-frame point), 1 ankle-minus-sole, 2 toe ball, 3 toe tip.
    std::vector<std::array<dvec3, 4>> pts(F);
    std::vector<double> lowest(F);
    double minKnee = 1e9, maxKnee = -1e9, maxReach = 0.0;
    for (int f = 0; f < F; ++f) {
      const WorldPose& w = world[f];
      pts[f][0] = w.pos[ankle] + w.rot[ankle] * dvec3(0, -sole, -heelBack);
      pts[f][1] = w.pos[ankle] - dvec3(0, sole, 0);
      pts[f][2] = w.pos[ball];
      pts[f][3] = w.pos[tip];
      lowest[f] = std::min({pts[f][0].y, pts[f][1].y, pts[f][2].y, pts[f][3].y});
      // Knee flexion: signed angle thigh -> shin about the thigh's hinge (X) axis.
      const dvec3 u = w.pos[knee] - w.pos[up], v = w.pos[ankle] - w.pos[knee];
      const dvec3 hinge = w.rot[up] * dvec3(1, 0, 0);
      const double flex = toDeg(std::atan2(glm::dot(glm::cross(u, v), hinge), glm::dot(u, v)));
      // Independent of the hinge: the knee must lie in front of the hip-ankle line.
      const dvec3 ha = w.pos[ankle] - w.pos[up];
      const dvec3 kOff = u - ha * (glm::dot(u, ha) / glm::dot(ha, ha));
      const dvec3 fwd = w.rot[hips] * dvec3(0, 0, 1);
      if (glm::dot(kOff, fwd) < -1e-6) {
        std::printf("  %s knee behind the hip-ankle line at frame %d\n", L.c_str(), f);
        ok = false;
      }
      minKnee = std::min(minKnee, flex);
      maxKnee = std::max(maxKnee, flex);
      maxReach = std::max(maxReach, glm::length(ha) / (glm::length(u) + glm::length(v)));
    }
    // Stance frames, found without looking at heights: some foot point is (nearly) still.
    std::vector<bool> stance(F);
    for (int f = 0; f < F; ++f) {
      const int a = std::max(0, f - 1), b = std::min(F - 1, f + 1);
      double slowest = 1e9;
      for (int k = 0; k < 4; ++k)
        slowest = std::min(slowest, glm::length(pts[b][k] - pts[a][k]) / ((b - a) * dt));
      stance[f] = slowest < 15.0;  // cm/s
    }
    double minLow = 1e9, maxLowStance = -1e9, minLowStance = 1e9, maxDrift = 0.0, maxLift = 0.0;
    double maxAnkle = 0.0;
    double driftBy[4] = {0, 0, 0, 0}, exactDrift = 0.0;
    int intervals = 0;
    std::string spans;
    for (int f = 0; f < F; ++f) minLow = std::min(minLow, lowest[f]);
    for (int f = 0; f < F;) {
      if (!stance[f]) {
        maxLift = std::max(maxLift, lowest[f]);
        maxAnkle = std::max(maxAnkle, world[f].pos[ankle].y);
        ++f;
        continue;
      }
      int e = f;
      while (e < F && stance[e]) ++e;
      ++intervals;
      spans += " " + std::to_string(f) + "-" + std::to_string(e - 1);
      double lo = 1e9;
      for (int g = f; g < e; ++g) {
        maxLowStance = std::max(maxLowStance, lowest[g]);
        lo = std::min(lo, lowest[g]);
      }
      minLowStance = std::min(minLowStance, lo);
      // Drift: every point while it touches the ground (within 0.5 mm) must stay put; the
      // pivots proper (within 0.02 mm) are also measured on their own.
      for (int k = 0; k < 4; ++k) {
        int first = -1, firstExact = -1;
        for (int g = f; g < e; ++g) {
          if (pts[g][k].y <= 0.002) {
            if (firstExact < 0) firstExact = g;
            exactDrift = std::max(exactDrift, glm::length(pts[g][k] - pts[firstExact][k]));
          } else {
            firstExact = -1;
          }
          if (pts[g][k].y > 0.05) continue;
          if (first < 0) first = g;
          const double d = glm::length(pts[g][k] - pts[first][k]);
          driftBy[k] = std::max(driftBy[k], d);
          maxDrift = std::max(maxDrift, d);
        }
      }
      f = e;
    }
    std::printf("%s foot: %d stance intervals (frames%s)\n", L.c_str(), intervals, spans.c_str());
    std::printf(
        "  planted drift while on the ground: max %.3f mm (heel %.3f, ankle %.3f, "
        "ball %.3f, toe tip %.3f)\n",
        maxDrift * 10, driftBy[0] * 10, driftBy[1] * 10, driftBy[2] * 10, driftBy[3] * 10);
    std::printf("  pivot drift (points within 0.02 mm of the ground): max %.4f mm\n",
                exactDrift * 10);
    std::printf("  lowest foot point in stance: %.3f..%.3f mm; over all frames min %.3f mm\n",
                minLowStance * 10, maxLowStance * 10, minLow * 10);
    std::printf(
        "  swing: lowest foot point peaks at %.1f cm, ankle at %.1f cm (%.1f cm above "
        "standing)\n",
        maxLift, maxAnkle, maxAnkle - sole);
    std::printf("  knee flexion %.1f..%.1f deg; max hip-ankle reach %.4f of leg length\n", minKnee,
                maxKnee, maxReach);
    ok &= intervals >= 3;
    ok &= maxDrift < 0.5 && exactDrift < 0.01;
    ok &= maxLowStance < 1.0 && minLowStance < 0.1;
    ok &= minLow > -0.1;
    ok &= minKnee > 0.0;
  }
  std::printf("check: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

int usage() {
  std::cerr << "usage: make_walk_clip -o <out.bvh>\n"
               "       make_walk_clip --check <clip.bvh>\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() != 2) return usage();
  if (args[0] == "-o") {
    const int rc = generate(args[1]);
    return rc != 0 ? rc : check(args[1]);
  }
  if (args[0] == "--check") return check(args[1]);
  return usage();
}
