#pragma once
// Leg detection told what the file says about its joints beyond the skeleton: which joints are
// group nodes (io::group_nodes), ancestors of the bones that are no bones. A group node is never
// counted as part of the trunk, wherever it sits (the CMU skeleton files' scaled root named
// after the take lies between the hips and the feet of some clips' rest poses). Apart from
// legs.hpp, which most of the fix includes, since only the commands that read files use it.
#include <vector>

#include "core/legs.hpp"

namespace ikfix::core {

// detect_legs_at_rest (legs.hpp) with `group_nodes`: per joint, 1 for a group node. It may be
// shorter than the skeleton (joints past its end, such as virtual ankles, are not) or empty.
LegDetection detect_legs_at_rest(const Skeleton& skeleton, const Transform& to_world,
                                 const std::vector<char>& group_nodes);

}  // namespace ikfix::core
