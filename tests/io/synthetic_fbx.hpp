#pragma once
// A small skeleton-only ASCII FBX laid out like the CMU skeleton files: a group node (a Null
// named after the take) with scale 100 and -90 degrees about X holds a Z-up skeleton in metres
// (the file's unit is cm). Written as text by the tests, so what each test changes is visible.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "core/math.hpp"

namespace ikfix::test {

struct SyntheticFbxOptions {
  std::string take = "cartwheels_take";
  // World height (metres, Y up) of the hips; the group node stays at the origin. 0.6 puts the
  // origin between the knees (0.1 m) and the ankles (-0.32 m).
  double hips_height_m = 0.6;
  int frames = 3;                // keys at 30 fps on the hips' X translation
  std::int64_t local_stop = -1;  // LocalStop and ReferenceStop ticks; -1: the last key's time
};

inline constexpr std::int64_t kFbxTicksPerSecond = 46186158000;

// World offset (metres, Y up) -> the skeleton's own axes under the group's -90 degrees about X.
inline core::Vec3 cmu_inner_axes(const core::Vec3& world) {
  return core::Vec3(world.x, -world.z, world.y);
}

inline std::string synthetic_skeleton_fbx(const SyntheticFbxOptions& o) {
  struct Bone {
    std::string name;
    int parent;  // index into the bones, -1: the group node
    core::Vec3 offset_ws;
  };
  std::vector<Bone> bones = {
      {"Hips", -1, {0, o.hips_height_m, 0}}, {"Spine", 0, {0, 0.15, 0}}, {"Head", 1, {0, 0.35, 0}}};
  for (int side = 0; side < 2; ++side) {
    const double x = side == 0 ? 0.1 : -0.1;
    const std::string s = side == 0 ? "Left" : "Right";
    const int first = static_cast<int>(bones.size());
    bones.push_back({s + "UpLeg", 0, {x, -0.05, 0}});
    bones.push_back({s + "Leg", first, {0, -0.45, 0.03}});
    bones.push_back({s + "Foot", first + 1, {0, -0.42, -0.03}});
    bones.push_back({s + "ToeBase", first + 2, {0, -0.06, 0.13}});
  }
  const std::int64_t group_id = 1000, stack_id = 2000, layer_id = 2001, curve_node_id = 2002,
                     curve_id = 2003;
  auto bone_id = [](std::size_t b) { return static_cast<std::int64_t>(3000 + b); };
  const std::int64_t tick = kFbxTicksPerSecond / 30;
  const std::int64_t last_key = tick * (o.frames - 1);
  const std::int64_t stop = o.local_stop >= 0 ? o.local_stop : last_key;
  std::ostringstream f;
  f.precision(17);
  f << "; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n"
       "\tFBXVersion: 7400\n}\nGlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n"
       "\t\tP: \"UpAxis\", \"int\", \"Integer\", \"\",1\n"
       "\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",1\n"
       "\t\tP: \"TimeMode\", \"enum\", \"\", \"\",6\n\t}\n}\nObjects:  {\n";
  f << "\tModel: " << group_id << ", \"Model::" << o.take << "\", \"Null\" {\n"
    << "\t\tVersion: 232\n\t\tProperties70:  {\n"
    << "\t\t\tP: \"Lcl Rotation\", \"Lcl Rotation\", \"\", \"A\",-90,0,0\n"
    << "\t\t\tP: \"Lcl Scaling\", \"Lcl Scaling\", \"\", \"A\",100,100,100\n\t\t}\n\t}\n";
  for (std::size_t b = 0; b < bones.size(); ++b) {
    const core::Vec3 t = cmu_inner_axes(bones[b].offset_ws);
    f << "\tModel: " << bone_id(b) << ", \"Model::" << bones[b].name << "\", \"LimbNode\" {\n"
      << "\t\tVersion: 232\n\t\tProperties70:  {\n"
      << "\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\"," << t.x << "," << t.y
      << "," << t.z << "\n\t\t}\n\t}\n";
  }
  f << "\tAnimationStack: " << stack_id << ", \"AnimStack::" << o.take << "\", \"\" {\n"
    << "\t\tProperties70:  {\n"
    << "\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\"," << stop << "\n"
    << "\t\t\tP: \"ReferenceStop\", \"KTime\", \"Time\", \"\"," << stop << "\n\t\t}\n\t}\n";
  f << "\tAnimationLayer: " << layer_id << ", \"AnimLayer::BaseLayer\", \"\" {\n\t}\n";
  const core::Vec3 hips = cmu_inner_axes(bones[0].offset_ws);
  f << "\tAnimationCurveNode: " << curve_node_id << ", \"AnimCurveNode::T\", \"\" {\n"
    << "\t\tProperties70:  {\n"
    << "\t\t\tP: \"d|X\", \"Number\", \"\", \"A\"," << hips.x << "\n"
    << "\t\t\tP: \"d|Y\", \"Number\", \"\", \"A\"," << hips.y << "\n"
    << "\t\t\tP: \"d|Z\", \"Number\", \"\", \"A\"," << hips.z << "\n\t\t}\n\t}\n";
  f << "\tAnimationCurve: " << curve_id << ", \"AnimCurve::\", \"\" {\n\t\tDefault: 0\n"
    << "\t\tKeyVer: 4009\n\t\tKeyTime: *" << o.frames << " {\n\t\t\ta: ";
  for (int k = 0; k < o.frames; ++k) f << (k ? "," : "") << tick * k;
  f << "\n\t\t}\n\t\tKeyValueFloat: *" << o.frames << " {\n\t\t\ta: ";
  for (int k = 0; k < o.frames; ++k) f << (k ? "," : "") << 0.01 * k;
  f << "\n\t\t}\n\t\tKeyAttrFlags: *1 {\n\t\t\ta: 8452\n\t\t}\n"
    << "\t\tKeyAttrDataFloat: *4 {\n\t\t\ta: 0,0,255790911,0\n\t\t}\n"
    << "\t\tKeyAttrRefCount: *1 {\n\t\t\ta: " << o.frames << "\n\t\t}\n\t}\n}\n";
  f << "Connections:  {\n\tC: \"OO\"," << group_id << ",0\n";
  for (std::size_t b = 0; b < bones.size(); ++b)
    f << "\tC: \"OO\"," << bone_id(b) << ","
      << (bones[b].parent < 0 ? group_id : bone_id(static_cast<std::size_t>(bones[b].parent)))
      << "\n";
  f << "\tC: \"OO\"," << layer_id << "," << stack_id << "\n"
    << "\tC: \"OO\"," << curve_node_id << "," << layer_id << "\n"
    << "\tC: \"OP\"," << curve_node_id << "," << bone_id(0) << ", \"Lcl Translation\"\n"
    << "\tC: \"OP\"," << curve_id << "," << curve_node_id << ", \"d|X\"\n}\n";
  return f.str();
}

}  // namespace ikfix::test
