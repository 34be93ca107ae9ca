#pragma once
// What `ikfix check` measures on a clip as it is (before or after a fix): contacts, sliding,
// float and penetration against a terrain (of the ankle and toe joints, and of every point of
// the foot as a viewer sees it: core/foot_model.hpp), bone lengths, knee angles, jerk, rotation
// speed.
// All lengths metres, speeds m/s, angles radians, frames 0-based.
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/clip.hpp"
#include "core/fix/contacts.hpp"
#include "core/foot_model.hpp"
#include "core/legs.hpp"
#include "core/parallel.hpp"
#include "core/skeleton.hpp"
#include "core/skin.hpp"
#include "core/terrain.hpp"

namespace ikfix::core {

// A metric's worst value and where it happened (ACL's worst_track / worst_time).
struct Worst {
  double value = 0;
  int frame = -1;
  int leg = -1;       // 0 left, 1 right, -1 not a leg metric
  std::string point;  // "ankle", "toe", "pelvis", a joint name, ...
  void offer(double v, int f, int l, const std::string& p) {
    if (frame < 0 || v > value) *this = Worst{v, f, l, p};
  }
};

struct PlantMetrics {
  int first = 0, last = 0;
  // Horizontal speed of the pivot: the slowest point (heel or toe) that is itself planted, from
  // differences between frames where that point is planted (see measure_clip).
  double mean_slide_mps = 0, max_slide_mps = 0;
  double mean_float_m = 0;  // lowest point above its planted level
  // Mean height of the foot's lowest point (every FootModel point) above the terrain: the gap a
  // viewer sees under a planted foot (0 where a point is inside).
  double ground_gap_m = 0;
  double max_penetration_m = 0;  // heel/toe/ankle joint below the terrain surface
  // Deepest point of the foot (every FootModel point) inside the terrain solid, metres, by
  // nearest-surface depth (see FootPenetration).
  double max_foot_penetration_m = 0;
};

struct LegMetrics {
  std::string side;
  int frames_in_contact = 0;
  std::vector<PlantMetrics> plants;
  double knee_angle_min_rad = 0, knee_angle_max_rad = 0;  // interior angle, pi = straight
  double foot_jerk_mean = 0;                              // m/s^3, ankle
  Worst foot_jerk_max;  // m/s^3: the ankle's largest single-frame jerk (jerk_per_frame)
  // The foot measured (FootModel): where its toe tip came from, the toe's length at rest
  // (metres, ball to tip; 0 without a tip) and how many skinned sole vertices it has.
  ToeTipSource toe_tip = ToeTipSource::None;
  double toe_length_m = 0;
  int sole_vertices = 0;
};

// Every point of each foot (FootModel: ankle, heel, ball, toe tip, sole vertices) inside the
// terrain solid, metres, the point named ("ankle", "heel", "ball", "toe_tip", "sole"). `nearest`
// is the distance to the nearest surface, risers and walls included (Terrain::solid_depth);
// `vertical` the depth straight down from the surface. Planted: frames the foot is planted (the
// contacts above). A metric with no point inside is 0 with frame -1.
struct FootPenetration {
  Worst nearest, vertical;                  // any frame
  Worst planted_nearest, planted_vertical;  // planted frames only
};

struct ClipMetrics {
  int frames = 0;
  double fps = 0;
  LegMetrics legs[2];
  Worst penetration;  // any frame, heel (ankle) or toe joint below the terrain
  FootPenetration foot_penetration;
  Worst planted_penetration;     // same, planted frames only
  Worst slide;                   // m/s, planted points
  Worst float_height;            // m, per plant mean float
  Worst ground_gap;              // m, per plant PlantMetrics::ground_gap_m
  double mean_slide_mps = 0;     // over all planted point-frames
  double mean_float_m = 0;       // over all plants
  double mean_ground_gap_m = 0;  // over all plants
  Worst bone_length_change;      // relative to the rest pose (every bone, every frame; the
                                 // segments ending at the pelvis and its ancestors move with the
                                 // root motion and are not counted; a bone under 1 mm at rest is
                                 // measured against 1 mm)
  Worst knee_limit_violation;    // radians outside [min_knee_angle, pi]
  Worst rotation_speed;          // rad/s, frame-to-frame change of a leg joint's local rotation
  double foot_jerk_mean = 0;     // m/s^3, mean over both ankles
  double pelvis_jerk_mean = 0;
  Worst foot_jerk_max;    // m/s^3, either ankle's largest single-frame jerk, its frame and leg
  Worst pelvis_jerk_max;  // m/s^3, the pelvis's largest single-frame jerk, its frame
  int non_finite = 0;     // NaN/Inf values in the clip
};

// What a bone's length change is relative to: its rest length `rest_m`, or 1 mm for a shorter
// bone. A zero-length segment (an FBX finger base at its hand's head) is a few float roundings
// long at rest, so its change relative to that is noise; against a millimetre it still shows
// when the bone really grows.
inline double bone_length_scale_m(double rest_m) { return rest_m > 1e-3 ? rest_m : 1e-3; }

struct MetricsInput {
  const Skeleton* skeleton = nullptr;
  const Clip* clip = nullptr;
  ClipSpace space;
  LegRig rig;
  const Terrain* terrain = nullptr;
  // The character's skinned mesh (may be null): its sole vertices are measured with the foot.
  const Skin* skin = nullptr;
  ContactSettings contacts;            // for a leg of reference_leg_length; scaled inside
  double reference_leg_length = 0.85;  // metres
  double min_knee_angle = 25.0 * kPi / 180.0;
  // When set, called with each frame's world transform of every joint (forward_kinematics of the
  // clip and space above), which the measures compute anyway: once per frame, in any order and
  // from several threads at once (`runner`); the span is valid during the call only.
  using WorldVisitor = std::function<void(int frame, std::span<const Transform> world_ws)>;
  WorldVisitor with_world;
  // When set, receives per leg and frame the height (metres) of the foot's lowest point (every
  // FootModel point with ground under it) above the terrain, NaN where none has ground:
  // (*lowest_above_out)[leg * frame_count + frame]. Also computed anyway.
  std::vector<double>* lowest_above_out = nullptr;
  // Per joint (empty: none), non-zero where `clip` holds no rotation (NaN) for a joint whose
  // rotation the caller knows to be finite (a BVH joint read for its translation only): not
  // counted as non-finite, and never read. Only a leaf the measures do not follow (the feet's
  // joints), without `with_world`, may be so flagged (std::logic_error otherwise).
  std::span<const char> rotation_not_read;
  // Threads the measures may use (null: this thread only); the metrics are the same bit for bit.
  const ParallelRunner* runner = nullptr;
};

// Jerk magnitude (m/s^3 for metres) per frame of a point's path sampled at `fps`: the central
// third difference (p[f+2] - 2 p[f+1] + 2 p[f-1] - p[f-2]) fps^3 / 2. Frames 0, 1, n-2 and n-1
// (and every frame of a path shorter than 5) have none and get 0.
std::vector<double> jerk_per_frame(const std::vector<Vec3>& p, double fps);

// Contacts are detected on the measured motion itself, heights taken above the terrain.
ClipMetrics measure_clip(const MetricsInput& input);

// Horizontal speed (m/s) of one foot point on frame f of a foot `plant`, from differences only
// between frames where that point itself is `planted` inside the plant: central inside its own
// contact, one-sided on its first and last frame. -1 when the point is not planted on f or is
// planted on f alone. `point`: world positions per frame (metres, Y up).
double planted_point_speed(const std::vector<Vec3>& point, const std::vector<char>& planted,
                           const Interval& plant, int f, double fps);

// Sliding (m/s) on frame f of a foot `plant`: the speed of the foot's pivot, i.e. of the points
// planted on f (`point_planted`, 0 heel, 1 toe) the one that moves least; -1 when neither has a
// speed there. `pivot` is set to that point (unchanged when -1). `heel`, `toe`: world positions
// per frame (metres, Y up).
double plant_slide(const std::vector<Vec3>& heel, const std::vector<Vec3>& toe,
                   const std::vector<char> (&point_planted)[2], const Interval& plant, int f,
                   double fps, int& pivot);

// The worst plant_slide over every plant of `planted` (m/s; 0 when nothing slides): what
// `ikfix check` reports as the worst sliding for a foot whose contacts are these.
double worst_plant_slide(const std::vector<Vec3>& heel, const std::vector<Vec3>& toe,
                         const std::vector<char>& planted,
                         const std::vector<char> (&point_planted)[2], double fps);

// Where that worst sliding is: its speed (m/s, 0 when nothing slides), frame (-1 when nothing
// slides) and point (0 heel, 1 toe: the point plant_slide took on that frame).
struct PlantSlideAt {
  double speed = 0;
  int frame = -1;
  int point = -1;
};
PlantSlideAt worst_plant_slide_at(const std::vector<Vec3>& heel, const std::vector<Vec3>& toe,
                                  const std::vector<char>& planted,
                                  const std::vector<char> (&point_planted)[2], double fps);

}  // namespace ikfix::core
