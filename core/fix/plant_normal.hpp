#pragma once
// The ground a planted foot is turned to (step 5, the foot's tilt): one normal for the whole
// plant, the terrain's under the heel on the plant's first frame. A mesh's normal is one per
// face: a heel that moves while planted (lifting as the foot rolls onto its ball) crosses from
// face to face, and turning the foot to each face's normal in turn would tilt it in one frame,
// the held ball's hold then shifting the ankle with it (a pop).
#include <span>
#include <vector>

namespace ikfix::core {

// Per frame, the frame whose ground normal the foot is turned to: the first frame of the plant
// it is in, or itself when not planted.
std::vector<int> plant_first_frames(std::span<const char> planted);

// Marks every frame of a plant (of `planted`) for remaking when its first frame is remade or
// the plant begins elsewhere than in `old_planted` (a frame's tilt reads its plant's first
// frame). Empty `old_planted`: every plant's start counts as changed.
void remake_whole_plants(std::vector<char>& remake, std::span<const char> planted,
                         std::span<const char> old_planted);

}  // namespace ikfix::core
