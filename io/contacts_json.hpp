#pragma once
// A clip's foot contacts as a JSON file a person can read and edit (Kovar et al.: a human
// corrects the detector). `ikfix check --contacts-out` writes the contacts the fix would use;
// `--contacts` (or "contacts" in a clip config) feeds an edited file back:
//
//   {
//     "ikfix_contacts": 1,          format version (required)
//     "frames": 343,                the clip's frame count (required; must match the clip)
//     "fps": 120.0,                 informational (optional)
//     "left":  [[16, 75], [148, 210]],
//     "right": [[0, 8], [80, 145]]
//   }
//
// Each leg lists its plants as [first, last] frame ranges: 0-based, inclusive, in order, not
// overlapping. Every frame not in a range is swing.
#include <array>
#include <filesystem>
#include <vector>

namespace ikfix::io {

// Planted flag per frame, [0] left leg, [1] right leg.
using ContactFlags = std::array<std::vector<char>, 2>;

// Reads and validates `path` against a clip of `frame_count` frames. Throws io::InputError
// naming the file and what is wrong (bad JSON, missing or unknown key, wrong frame count, a
// range out of the clip, reversed, out of order or overlapping).
ContactFlags load_contacts(const std::filesystem::path& path, int frame_count);

// Writes `contacts` (one flag per frame per leg, same length) atomically in the format above.
void save_contacts(const std::filesystem::path& path, const ContactFlags& contacts, double fps);

}  // namespace ikfix::io
