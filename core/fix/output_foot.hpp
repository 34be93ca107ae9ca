#pragma once
// Where every point of a leg's foot (foot_model.hpp) will be once written, from what the steps
// planned and before the leg solve: the ankle at its target, turned by its foot rotation, the
// toes carried with it and bent at the ball. This is the write-back's foot (write_back.hpp) on
// every frame whose target is reached.
#include <span>
#include <vector>

#include "core/clip.hpp"
#include "core/fix/sample_legs.hpp"
#include "core/foot_model.hpp"
#include "core/skin.hpp"

namespace ikfix::core {

// The leg of one frame as its solve leaves it: the input's and the solved world transforms of
// the hip (the thigh bone) and the knee (the shin bone), world metres, and the pelvis's shift
// (world metres), which carries the joints under the pelvis outside the legs.
struct SolvedLeg {
  Transform thigh_in, thigh_out, shin_in, shin_out;
  Vec3 pelvis_shift_ws{0.0};
};

// The planned foot of one frame: ankle target (world metres), the ankle's new world rotation,
// and the toes' bend about the ball (axis world, angle radians; 0: not bent). `leg`, when not
// null, is the leg's solve for this target: sole vertices hung on the bones above the ankle (a
// foot skinned to the shin, FootModel::sole_on_shin) are then carried by those bones; null (the
// steps before the solve) carries them with the ankle.
struct PlannedFoot {
  Vec3 ankle_target_ws{0.0};
  Quat foot_rotation{1, 0, 0, 0};
  Vec3 bend_axis_ws{1, 0, 0};
  double bend_angle = 0;
  const SolvedLeg* leg = nullptr;
};

class OutputFoot {
 public:
  // `samples`: the input's world transforms of the fix's subset; `input`: the input motion
  // (locals of the joints outside the subset a sole vertex hangs on); `skin` may be null.
  // `pelvis`: the joint the write-back shifts (LegRig::pelvis), which only a pose with a solved
  // leg (PlannedFoot::leg) needs; -1: none.
  OutputFoot(const FootModel* foot, const Skin* skin, const LegSamples* samples, const Clip* input,
             const Skeleton* skeleton, const Transform& to_world, int pelvis = -1);

  // The foot's points on frame f (FootModel order, world metres) into `out` (resized).
  void pose(int f, const PlannedFoot& planned, std::vector<Vec3>& out) const;
  // Whether point i turns with the toes (a toe-bone point: the toe tip, the sole's vertices
  // weighing mostly on the toe joint and below it); bending moves only these.
  bool on_toe(int i) const { return point_on_toe_[i] != 0; }
  int point_count() const { return foot_->point_count(); }
  // The index of the first point of `kind`, or -1.
  int index_of(FootPointKind kind) const {
    for (int i = 0; i < point_count(); ++i)
      if (foot_->kind(i) == kind) return i;
    return -1;
  }

 private:
  // What carries a joint to where the write-back puts it: the toe (the toe joint and below),
  // the ankle (the ankle and below, but the toe), the shin (the knee and below, but the
  // ankle), the thigh (the hip and below, but the knee), the body (the pelvis and below, but
  // the hip: shifted with the pelvis), or nothing (the joints above the pelvis, which the fix
  // leaves where they are).
  enum Part : unsigned char { kToe, kAnkle, kShin, kThigh, kBody, kStill };
  Transform input_world(int f, int joint) const;
  Vec3 carried(const PlannedFoot& planned, int joint, const Vec3& at_input,
               const Transform (&ankle)[2], const Transform (&toe)[2]) const;

  const FootModel* foot_;
  const Skin* skin_;
  const LegSamples* samples_;
  const Clip* input_;
  const Skeleton* skeleton_;
  Transform to_world_;
  std::vector<char> point_on_toe_;
  // Per joint: the part of the body that carries it (OutputFoot::Part).
  std::vector<unsigned char> part_;
};

}  // namespace ikfix::core
