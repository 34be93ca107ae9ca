#pragma once
// How much of a joint's motion a reader made: the flags of io::LoadedClip::joints_read and of
// bvh::clip_of_joints, one per joint.

namespace ikfix::io {

// Not read: NaN translation, rotation and scale in every frame.
inline constexpr char kJointUnread = 0;
// Read: the transform the file gives, bit for bit as a whole read makes it.
inline constexpr char kJointRead = 1;
// Translation (and scale) read as kJointRead makes them; the rotation not converted (NaN in
// every frame). For a joint whose rotation nobody reads: a leaf's moves no joint's translation.
// A BVH reader refuses a value that is not finite, so the rotation it would have made is finite.
inline constexpr char kJointTranslationOnly = 2;

}  // namespace ikfix::io
