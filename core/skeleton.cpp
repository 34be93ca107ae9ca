#include "core/skeleton.hpp"

namespace ikfix::core {

int Skeleton::find(std::string_view name) const {
  for (int j = 0; j < joint_count(); ++j)
    if (names[j] == name) return j;
  return -1;
}

std::vector<int> Skeleton::children(int j) const {
  std::vector<int> out;
  for (int c = 0; c < joint_count(); ++c)
    if (parents[c] == j) out.push_back(c);
  return out;
}

bool Skeleton::is_ancestor(int ancestor, int joint) const {
  for (int j = joint; j >= 0; j = parents[j])
    if (j == ancestor) return true;
  return false;
}

std::string Skeleton::validate() const {
  const auto n = names.size();
  if (n == 0) return "skeleton has no joints";
  if (parents.size() != n || rest.size() != n || end_sites.size() != n)
    return "skeleton arrays have different sizes";
  for (std::size_t j = 0; j < n; ++j) {
    if (parents[j] >= static_cast<int>(j))
      return "joint '" + names[j] + "' comes before its parent";
    if (parents[j] < -1) return "joint '" + names[j] + "' has an invalid parent";
    if (!is_finite(rest[j].translation) || !is_finite(rest[j].rotation))
      return "joint '" + names[j] + "' has a non-finite rest transform";
  }
  return {};
}

}  // namespace ikfix::core
