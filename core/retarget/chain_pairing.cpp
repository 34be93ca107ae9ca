#include "core/retarget/chain_pairing.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <queue>
#include <set>

namespace ikfix::core {
namespace {

struct Entry {
  double value;
  int index;
};

// A candidate partner: distance first, then the joint index, the greedy's tie order.
struct Nearest {
  double distance = INFINITY;
  int index = INT_MAX;
  bool operator<(const Nearest& o) const {
    return distance < o.distance || (distance == o.distance && index < o.index);
  }
};

std::vector<double> finite_or_zero(const std::vector<double>& values) {
  std::vector<double> out(values);
  for (double& v : out)
    if (!std::isfinite(v)) v = 0.0;
  return out;
}

// Nearest value to a query within an index range of one chain, ties by the smaller index.
// Level L holds the chain cut into blocks of 2^L indices, each block sorted by (value, index);
// a range is a union of O(log n) whole blocks.
class RangeNearest {
 public:
  explicit RangeNearest(const std::vector<double>& values) {
    const int n = static_cast<int>(values.size());
    std::vector<Entry> level(values.size());
    for (int k = 0; k < n; ++k) level[k] = {values[k], k};
    levels_.push_back(level);
    for (int width = 1; width < n; width *= 2) {
      std::vector<Entry> next(level.size());
      for (int start = 0; start < n; start += 2 * width) {
        const int mid = std::min(start + width, n), end = std::min(start + 2 * width, n);
        std::merge(level.begin() + start, level.begin() + mid, level.begin() + mid,
                   level.begin() + end, next.begin() + start, by_value_then_index);
      }
      levels_.push_back(next);
      level = std::move(next);
    }
  }

  // Nearest to `x` among indices first..last (inclusive, first <= last).
  Nearest query(double x, int first, int last) const {
    Nearest best;
    while (first <= last) {
      int lvl = 0;
      while (lvl + 1 < static_cast<int>(levels_.size()) && first % (2 << lvl) == 0 &&
             first + (2 << lvl) - 1 <= last)
        ++lvl;
      const int width = 1 << lvl;
      const auto begin = levels_[lvl].begin() + first;
      const auto end = levels_[lvl].begin() + std::min<std::size_t>(first + width, size());
      best = std::min(best, nearest_in_block(x, begin, end));
      first += width;
    }
    return best;
  }

 private:
  using It = std::vector<Entry>::const_iterator;

  static bool by_value_then_index(const Entry& p, const Entry& q) {
    return p.value < q.value || (p.value == q.value && p.index < q.index);
  }
  std::size_t size() const { return levels_[0].size(); }

  // In a block sorted by (value, index): the distance |x - v| is monotone on each side of x,
  // so the nearest values sit next to x and equal distances form runs of values from there.
  // Each run of equal values starts with its smallest index.
  static Nearest nearest_in_block(double x, It begin, It end) {
    const auto value_less = [](const Entry& e, double v) { return e.value < v; };
    const auto less_value = [](double v, const Entry& e) { return v < e.value; };
    Nearest best;
    const It up = std::lower_bound(begin, end, x, value_less);
    for (It run = up; run != end;) {
      const Nearest here{std::abs(x - run->value), run->index};
      if (best.distance < here.distance) break;
      best = std::min(best, here);
      run = std::upper_bound(run, end, run->value, less_value);
    }
    Nearest below;
    for (It run_end = up; run_end != begin;) {
      const double value = std::prev(run_end)->value;
      const It run = std::lower_bound(begin, run_end, value, value_less);
      const Nearest here{std::abs(x - value), run->index};
      if (below.distance < here.distance) break;
      below = std::min(below, here);
      run_end = run;
    }
    return std::min(best, below);
  }

  std::vector<std::vector<Entry>> levels_;
};

struct HeapEntry {
  Nearest nearest;
  int i;
  // Greedy order: distance, then i, then j.
  bool operator>(const HeapEntry& o) const {
    if (nearest.distance != o.nearest.distance) return nearest.distance > o.nearest.distance;
    if (i != o.i) return i > o.i;
    return nearest.index > o.nearest.index;
  }
};

class ChainGreedy {
 public:
  ChainGreedy(const std::vector<double>& a, const std::vector<double>& b)
      : a_(finite_or_zero(a)), b_nearest_(finite_or_zero(b)) {
    kept_.insert({-1, -1});
    kept_.insert({static_cast<int>(a.size()), static_cast<int>(b.size())});
  }

  void keep(int i, int j) { kept_.insert({i, j}); }

  std::vector<std::pair<int, int>> run() {
    for (int i = 0; i < static_cast<int>(a_.size()); ++i)
      if (!is_kept(i)) requery(i);
    while (!heap_.empty()) {
      const HeapEntry top = heap_.top();
      heap_.pop();
      const auto [first, last] = free_range(top.i);
      if (top.nearest.index >= first && top.nearest.index <= last)
        keep(top.i, top.nearest.index);
      else
        requery(top.i);
    }
    std::vector<std::pair<int, int>> out(std::next(kept_.begin()), std::prev(kept_.end()));
    return out;
  }

 private:
  bool is_kept(int i) const { return kept_.lower_bound({i, INT_MIN})->first == i; }

  // The j range of the free rectangle that holds joint i: between the kept pairs around it.
  std::pair<int, int> free_range(int i) const {
    const auto after = kept_.lower_bound({i, INT_MIN});
    return {std::prev(after)->second + 1, after->second - 1};
  }

  void requery(int i) {
    const auto [first, last] = free_range(i);
    if (first <= last) heap_.push({b_nearest_.query(a_[i], first, last), i});
  }

  std::vector<double> a_;
  RangeNearest b_nearest_;
  std::set<std::pair<int, int>> kept_;  // kept pairs by i, with sentinels at both ends
  std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<>> heap_;
};

}  // namespace

std::vector<std::pair<int, int>> pair_chain(const std::vector<double>& a,
                                            const std::vector<double>& b, ChainAnchor anchor) {
  std::vector<std::pair<int, int>> out;
  const int na = static_cast<int>(a.size()), nb = static_cast<int>(b.size());
  if (na == 0 || nb == 0) return out;
  if (na == nb) {
    for (int i = 0; i < na; ++i) out.emplace_back(i, i);
    return out;
  }
  ChainGreedy greedy(a, b);
  if (anchor == ChainAnchor::First) greedy.keep(0, 0);
  if (anchor == ChainAnchor::Last) greedy.keep(na - 1, nb - 1);
  return greedy.run();
}

}  // namespace ikfix::core
