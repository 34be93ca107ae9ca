#pragma once
// Pairs the joints of two chains of different lengths (spine, neck, fingers) by a scalar
// position per joint (a height, or a distance along the chain).
#include <utility>
#include <vector>

namespace ikfix::core {

enum class ChainAnchor { None, First, Last };

// Equal lengths pair one to one. Otherwise the anchored ends pair first, then candidates
// (i, j) are taken in increasing order of |a[i] - b[j]|, ties by smaller i then smaller j,
// each kept only if it reuses no joint and crosses no kept pair (order is kept on both sides).
// Joints left over stay unpaired. Returns the pairs sorted by i.
//
// The greedy is computed without listing the na x nb candidates: every kept pair splits the
// free region into two independent rectangles, and each chain joint of `a` keeps its nearest
// partner of `b` inside its rectangle in a heap, found in a merge-sort tree over `b`.
// Time O((n + r) log^2 n) for r re-queries of joints whose partner left their rectangle; memory
// O(n log n). Non-finite positions count as 0.
std::vector<std::pair<int, int>> pair_chain(const std::vector<double>& a,
                                            const std::vector<double>& b, ChainAnchor anchor);

}  // namespace ikfix::core
