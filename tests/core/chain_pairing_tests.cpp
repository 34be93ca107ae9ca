// Pairing chains of different lengths (core/retarget/chain_pairing): the same pairs as the
// greedy's definition (every candidate sorted, each checked against every kept pair) on random
// chains rich in ties, and long chains that the definition could not finish.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "core/retarget/chain_pairing.hpp"

namespace {

using ikfix::core::ChainAnchor;
using ikfix::core::pair_chain;
using Pairs = std::vector<std::pair<int, int>>;

// The greedy as first written: O(na nb) candidates, each checked against every kept pair.
Pairs pair_chain_definition(const std::vector<double>& a, const std::vector<double>& b,
                            ChainAnchor anchor) {
  Pairs out;
  const int na = static_cast<int>(a.size()), nb = static_cast<int>(b.size());
  if (na == 0 || nb == 0) return out;
  if (na == nb) {
    for (int i = 0; i < na; ++i) out.emplace_back(i, i);
    return out;
  }
  if (anchor == ChainAnchor::First) out.emplace_back(0, 0);
  if (anchor == ChainAnchor::Last) out.emplace_back(na - 1, nb - 1);
  struct Candidate {
    double distance;
    int i, j;
  };
  std::vector<Candidate> candidates;
  for (int i = 0; i < na; ++i)
    for (int j = 0; j < nb; ++j) candidates.push_back({std::abs(a[i] - b[j]), i, j});
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& x, const Candidate& y) { return x.distance < y.distance; });
  for (const Candidate& c : candidates) {
    bool ok = true;
    for (const auto& [i, j] : out)
      if (i == c.i || j == c.j || (i < c.i) != (j < c.j)) ok = false;
    if (ok) out.emplace_back(c.i, c.j);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<double> random_chain(std::mt19937& rng, int n, int kind) {
  std::vector<double> v(n);
  std::uniform_int_distribution<int> small(0, 6);
  std::uniform_real_distribution<double> real(-1.0, 2.0);
  for (int k = 0; k < n; ++k) {
    if (kind == 0) v[k] = small(rng);                       // many exact ties and duplicates
    if (kind == 1) v[k] = real(rng);                        // no ties
    if (kind == 2) v[k] = 0.1 * k + 0.05 * small(rng);      // rising, like heights
    if (kind == 3) v[k] = small(rng) == 0 ? 0.1 : 0.3 * k;  // symmetric ties |x-v| both sides
  }
  return v;
}

TEST(ChainPairing, SameAsTheGreedyDefinitionOnRandomChains) {
  std::mt19937 rng(20261202);
  std::uniform_int_distribution<int> length(0, 23);
  for (int trial = 0; trial < 6000; ++trial) {
    const int kind = trial % 4;
    const auto a = random_chain(rng, length(rng), kind);
    const auto b = random_chain(rng, length(rng), kind);
    for (ChainAnchor anchor : {ChainAnchor::None, ChainAnchor::First, ChainAnchor::Last})
      ASSERT_EQ(pair_chain(a, b, anchor), pair_chain_definition(a, b, anchor))
          << "trial " << trial << " na " << a.size() << " nb " << b.size();
  }
}

TEST(ChainPairing, TiesBetweenValuesBelowAndAboveTakeTheSmallerIndex) {
  // 1.0 is 0.5 from both 0.5 (index 1) and 1.5 (index 0): the smaller index wins.
  const Pairs pairs = pair_chain({1.0}, {1.5, 0.5}, ChainAnchor::None);
  EXPECT_EQ(pairs, (Pairs{{0, 0}}));
  EXPECT_EQ(pairs, pair_chain_definition({1.0}, {1.5, 0.5}, ChainAnchor::None));
}

TEST(ChainPairing, NonFiniteRestPositionsCountAsZero) {
  const double nan = std::nan("");
  const Pairs pairs = pair_chain({nan, 2.0}, {INFINITY, 0.1, 2.1}, ChainAnchor::None);
  EXPECT_EQ(pairs, pair_chain_definition({0.0, 2.0}, {0.0, 0.1, 2.1}, ChainAnchor::None));
}

// Chains of thousands of joints: the definition lists 10^7-10^8 candidates and checks each
// against thousands of kept pairs. These finish because the greedy never lists them.
TEST(ChainPairing, LongChainsOfEqualHeightsPairInOrder) {
  const std::vector<double> a(10000, 0.0), b(9999, 0.0);
  const Pairs pairs = pair_chain(a, b, ChainAnchor::Last);
  ASSERT_EQ(pairs.size(), 9999u);
  for (int k = 0; k + 1 < 9999; ++k) EXPECT_EQ(pairs[k], std::make_pair(k, k));
  EXPECT_EQ(pairs.back(), std::make_pair(9999, 9998));
}

TEST(ChainPairing, LongRisingChainsKeepOrderAndUseEachJointOnce) {
  std::vector<double> a(8000), b(5000);
  for (int k = 0; k < 8000; ++k) a[k] = 0.01 * k;
  for (int k = 0; k < 5000; ++k) b[k] = 0.016 * k + 0.003;
  const Pairs pairs = pair_chain(a, b, ChainAnchor::First);
  ASSERT_EQ(pairs.size(), 5000u);
  for (std::size_t k = 1; k < pairs.size(); ++k) {
    EXPECT_LT(pairs[k - 1].first, pairs[k].first);
    EXPECT_LT(pairs[k - 1].second, pairs[k].second);
  }
  // Each target joint takes the source joint nearest in height: 0.016 k + 0.003 against 0.01 i.
  for (const auto& [i, j] : pairs) EXPECT_LE(std::abs(a[i] - b[j]), 0.005 + 1e-12);
}

}  // namespace
