// The per-clip fix gives the same result bit for bit whatever runner its per-frame loops use:
// no runner, or a pool of 2 or 3 threads (an odd count splits the frames unevenly). Compared:
// every double of the fixed clip, the changed-joint flags, the planted flags, the ankle targets
// and every field of the diagnostics, on real clips over terrains that exercise the ground
// tilt, toe bends, pivot holds, the pelvis limit and unreachable frames.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/fix/footfix.hpp"
#include "core/fk.hpp"
#include "core/legs.hpp"
#include "core/parallel.hpp"
#include "core/terrain_gen.hpp"
#include "counting_runner.hpp"
#include "io/clip_io.hpp"
#include "test_data.hpp"

namespace ikfix {
namespace {

template <typename T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Every field, doubles compared bit for bit (EXPECT_EQ on a double would let -0.0 == 0.0 pass).
void expect_same_diagnostics(const core::FixDiagnostics& a, const core::FixDiagnostics& b,
                             const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(a.frames, b.frames);
  EXPECT_TRUE(same_bits(a.fps, b.fps));
  EXPECT_EQ(a.solver, b.solver);
  EXPECT_TRUE(same_bits(a.leg_length_m, b.leg_length_m));
  EXPECT_TRUE(same_bits(a.floor_height_m, b.floor_height_m));
  EXPECT_EQ(a.floor_method, b.floor_method);
  EXPECT_TRUE(same_bits(a.max_body_rise_m, b.max_body_rise_m));
  EXPECT_TRUE(same_bits(a.min_body_rise_m, b.min_body_rise_m));
  EXPECT_TRUE(same_bits(a.max_pelvis_drop_m, b.max_pelvis_drop_m));
  EXPECT_TRUE(same_bits(a.mean_pelvis_drop_m, b.mean_pelvis_drop_m));
  EXPECT_EQ(a.heel_lift_frames, b.heel_lift_frames);
  EXPECT_TRUE(same_bits(a.max_heel_lift_rad, b.max_heel_lift_rad));
  EXPECT_EQ(a.pelvis_limit_frames, b.pelvis_limit_frames);
  ASSERT_EQ(a.pelvis_limit.size(), b.pelvis_limit.size());
  for (std::size_t i = 0; i < a.pelvis_limit.size(); ++i) {
    EXPECT_EQ(a.pelvis_limit[i].first, b.pelvis_limit[i].first);
    EXPECT_EQ(a.pelvis_limit[i].last, b.pelvis_limit[i].last);
    EXPECT_TRUE(
        same_bits(a.pelvis_limit[i].max_needed_drop_m, b.pelvis_limit[i].max_needed_drop_m));
    EXPECT_EQ(a.pelvis_limit[i].worst_frame, b.pelvis_limit[i].worst_frame);
  }
  EXPECT_EQ(a.off_terrain_frames, b.off_terrain_frames);
  EXPECT_TRUE(same_bits(a.max_bone_length_change, b.max_bone_length_change));
  for (int l = 0; l < 2; ++l) {
    SCOPED_TRACE("leg " + std::to_string(l));
    const core::LegDiagnostics& x = a.legs[l];
    const core::LegDiagnostics& y = b.legs[l];
    EXPECT_EQ(x.side, y.side);
    EXPECT_EQ(x.frames_in_contact, y.frames_in_contact);
    EXPECT_EQ(x.contact_count, y.contact_count);
    EXPECT_EQ(x.plants, y.plants);
    EXPECT_TRUE(same_bits(x.max_correction_m, y.max_correction_m));
    EXPECT_EQ(x.max_correction_frame, y.max_correction_frame);
    EXPECT_EQ(x.unreachable_frames, y.unreachable_frames);
    ASSERT_EQ(x.unreachable.size(), y.unreachable.size());
    for (std::size_t i = 0; i < x.unreachable.size(); ++i) {
      EXPECT_EQ(x.unreachable[i].first, y.unreachable[i].first);
      EXPECT_EQ(x.unreachable[i].last, y.unreachable[i].last);
      EXPECT_TRUE(same_bits(x.unreachable[i].max_shortfall_m, y.unreachable[i].max_shortfall_m));
      EXPECT_EQ(x.unreachable[i].worst_frame, y.unreachable[i].worst_frame);
      EXPECT_EQ(x.unreachable[i].reason, y.unreachable[i].reason);
    }
    EXPECT_TRUE(same_bits(x.max_shortfall_m, y.max_shortfall_m));
    EXPECT_EQ(x.worst_frame, y.worst_frame);
    EXPECT_TRUE(same_bits(x.mean_iterations, y.mean_iterations));
    EXPECT_EQ(x.max_iterations, y.max_iterations);
    EXPECT_TRUE(same_bits(x.max_residual_m, y.max_residual_m));
    EXPECT_TRUE(same_bits(x.max_penetration_m, y.max_penetration_m));
    ASSERT_EQ(x.plant_moves.size(), y.plant_moves.size());
    for (std::size_t i = 0; i < x.plant_moves.size(); ++i) {
      EXPECT_EQ(x.plant_moves[i].first, y.plant_moves[i].first);
      EXPECT_EQ(x.plant_moves[i].last, y.plant_moves[i].last);
      EXPECT_TRUE(same_bits(x.plant_moves[i].move_m, y.plant_moves[i].move_m));
      EXPECT_TRUE(same_bits(x.plant_moves[i].direction_x, y.plant_moves[i].direction_x));
      EXPECT_TRUE(same_bits(x.plant_moves[i].direction_z, y.plant_moves[i].direction_z));
      EXPECT_EQ(x.plant_moves[i].along, y.plant_moves[i].along);
      EXPECT_TRUE(same_bits(x.plant_moves[i].excess_m, y.plant_moves[i].excess_m));
    }
  }
  EXPECT_EQ(a.warnings, b.warnings);
}

void expect_same_result(const core::FixResult& a, const core::Clip& a_clip,
                        const core::FixResult& b, const core::Clip& b_clip,
                        const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(a_clip.locals.size(), b_clip.locals.size());
  for (std::size_t i = 0; i < a_clip.locals.size(); ++i)
    ASSERT_TRUE(same_bits(a_clip.locals[i], b_clip.locals[i])) << "local transform " << i;
  EXPECT_EQ(a.changed_joints, b.changed_joints);
  EXPECT_EQ(a.changed_rotations, b.changed_rotations);
  for (int l = 0; l < 2; ++l) {
    EXPECT_EQ(a.planted[l], b.planted[l]) << "leg " << l;
    EXPECT_TRUE(same_bits(a.ankle_target_ws[l], b.ankle_target_ws[l])) << "leg " << l;
  }
  expect_same_diagnostics(a.diagnostics, b.diagnostics, what);
}

core::LegRig detect_rig(const io::LoadedClip& clip) {
  return *core::detect_legs_at_rest(clip.skeleton, clip.space.to_world()).rig;
}

// A short clip played `repeat` times over (the root jumps back at each repeat: just more
// motion to fix), so that its per-frame loops are long enough to be split over threads.
io::LoadedClip load_repeated(const std::filesystem::path& path, int repeat) {
  io::LoadedClip clip = io::load_clip(path);
  const std::vector<core::Transform> once(clip.clip.locals.begin(), clip.clip.locals.end());
  for (int r = 1; r < repeat; ++r)
    clip.clip.locals.insert(clip.clip.locals.end(), once.begin(), once.end());
  clip.clip.frame_count *= repeat;
  return clip;
}

// Fixes `path` onto `terrain` with no runner, then with pools of 2 and 3 threads, copying
// (fix_clip) and in place, and expects every result to be the serial one. Returns the serial
// result, for checks that the case exercised what it was meant to.
core::FixResult expect_same_at_any_thread_count(const std::filesystem::path& path,
                                                const core::TerrainMesh& mesh,
                                                core::SolverKind solver, int repeat = 1,
                                                const core::FixSettings& settings = {}) {
  const io::LoadedClip clip = load_repeated(path, repeat);
  const core::Terrain terrain(mesh);
  core::FixInput input;
  input.skeleton = &clip.skeleton;
  input.clip = &clip.clip;
  input.space = clip.space;
  input.rig = detect_rig(clip);
  input.terrain = &terrain;
  input.settings = settings;
  input.settings.solver = solver;

  const core::FixResult serial = core::fix_clip(input);
  core::Clip serial_in_place = clip.clip;
  const core::FixResult serial_in_place_result = core::fix_clip_in_place(input, serial_in_place);
  expect_same_result(serial, serial.clip, serial_in_place_result, serial_in_place,
                     "serial in place");
  for (int threads : {2, 3}) {
    const test::CountingRunner pool(threads);
    core::FixInput pooled = input;
    pooled.runner = &pool;
    const std::string name = path.filename().string() + ", " + std::to_string(threads) + " threads";
    const core::FixResult copied = core::fix_clip(pooled);
    expect_same_result(serial, serial.clip, copied, copied.clip, name + ", fix_clip");
    core::Clip motion = clip.clip;
    const core::FixResult in_place = core::fix_clip_in_place(pooled, motion);
    expect_same_result(serial, serial.clip, in_place, motion, name + ", in place");
    EXPECT_GE(pool.loops(), 2) << name << ": at least the leg solves of both runs went to the pool";
  }
  return serial;
}

TEST(FixThreads, RealWalkOnStairsIsTheSameAtAnyThreadCount) {
  IKFIX_REQUIRE_SHARED_DATA();
  const core::FixResult r =
      expect_same_at_any_thread_count(test::shared_data_dir() / "anim/bvh/cmu_02_01_walk.bvh",
                                      core::make_stairs_terrain({}), core::SolverKind::Fabrik);
  EXPECT_GT(r.diagnostics.legs[0].frames_in_contact, 0);
  EXPECT_GT(r.diagnostics.max_body_rise_m, 0.1) << "the walk climbs the stairs";
}

TEST(FixThreads, RealJumpsOnBumpsWithTwoBoneIsTheSameAtAnyThreadCount) {
  IKFIX_REQUIRE_SHARED_DATA();
  core::BumpsParams bumps;
  bumps.cell = 0.2;
  const core::FixResult r = expect_same_at_any_thread_count(
      test::shared_data_dir() / "anim/bvh/cmu_01_01_forward_jumps.bvh",
      core::make_bumps_terrain(bumps), core::SolverKind::TwoBone);
  EXPECT_GT(r.diagnostics.legs[0].max_correction_m, 0.0);
}

// A cliff too high for the legs: unreachable ranges and the pelvis limit, whose ranges are
// gathered across frames, must come out the same.
TEST(FixThreads, RealWalkOffACliffReportsTheSameUnreachableRanges) {
  IKFIX_REQUIRE_SHARED_DATA();
  core::CliffParams cliff;
  cliff.height = -2.0;
  cliff.start = 1.0;
  const core::FixResult r =
      expect_same_at_any_thread_count(test::shared_data_dir() / "anim/bvh/cmu_02_01_walk.bvh",
                                      core::make_cliff_terrain(cliff), core::SolverKind::Fabrik);
  EXPECT_GT(r.diagnostics.legs[0].unreachable_frames + r.diagnostics.legs[1].unreachable_frames, 0);
  EXPECT_GT(r.diagnostics.pelvis_limit_frames, 0);
}

// The plan passes run the two legs side by side. On this salsa over the stairs the plans do
// not settle within a series, so the passes run every pivot-retiming series, the legs keep and
// replay their best plans and a leg's pivot holds are repaired afterwards.
TEST(FixThreads, RealSalsaOnStairsPlansTheSameAtAnyThreadCount) {
  IKFIX_REQUIRE_SHARED_DATA();
  const core::FixResult r = expect_same_at_any_thread_count(
      test::shared_data_dir() / "anim/bvh/cmu_61_01_salsa_sl_metres.bvh",
      core::make_stairs_terrain({}), core::SolverKind::Fabrik);
  EXPECT_GT(r.diagnostics.legs[0].contact_count, 0);
  EXPECT_GT(r.diagnostics.legs[1].contact_count, 0);
}

// Contacts given (as a retarget gives them) and held on the ground: the passes demote given
// plants that would put a foot into a tread to a constant offset, per leg, and plan again.
TEST(FixThreads, GivenContactsOnStairsPlanTheSameAtAnyThreadCount) {
  IKFIX_REQUIRE_SHARED_DATA();
  const std::filesystem::path path = test::shared_data_dir() / "anim/bvh/cmu_02_01_walk.bvh";
  const core::TerrainMesh stairs = core::make_stairs_terrain({});
  // The contacts the fix itself plans for the walk (twice over: long enough for the legs to be
  // planned on two threads) on flat ground, given back on the stairs.
  const int repeat = 2;
  const io::LoadedClip clip = load_repeated(path, repeat);
  const core::Terrain flat(core::make_flat_terrain({}));
  core::FixInput input;
  input.skeleton = &clip.skeleton;
  input.clip = &clip.clip;
  input.space = clip.space;
  input.rig = detect_rig(clip);
  input.terrain = &flat;
  const core::FixResult on_flat = core::fix_clip(input);
  core::FixSettings settings;
  settings.contacts_override =
      std::array<std::vector<char>, 2>{on_flat.planted[0], on_flat.planted[1]};
  settings.given_plants_on_ground = true;
  const core::FixResult r =
      expect_same_at_any_thread_count(path, stairs, core::SolverKind::Fabrik, repeat, settings);
  EXPECT_EQ(r.planted[0], on_flat.planted[0]) << "given contacts are kept as they are";
  EXPECT_EQ(r.planted[1], on_flat.planted[1]);
}

TEST(FixThreads, BundledWalkOnStairsIsTheSameAtAnyThreadCount) {
  const core::FixResult r =
      expect_same_at_any_thread_count(test::source_dir() / "data/clips/walk.bvh",
                                      core::make_stairs_terrain({}), core::SolverKind::Fabrik, 8);
  EXPECT_GT(r.diagnostics.legs[1].frames_in_contact, 0);
}

}  // namespace
}  // namespace ikfix
