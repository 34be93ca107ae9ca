#include "io/end_leaves.hpp"

#include <cctype>

namespace ikfix::io {

bool is_end_leaf_name(std::string_view name) {
  if (name.size() <= 4) return false;
  const std::string_view tail = name.substr(name.size() - 4);
  return tail[0] == '_' && std::tolower(static_cast<unsigned char>(tail[1])) == 'e' &&
         std::tolower(static_cast<unsigned char>(tail[2])) == 'n' &&
         std::tolower(static_cast<unsigned char>(tail[3])) == 'd';
}

std::vector<int> fold_end_leaves(core::Skeleton& skeleton) {
  const int n = skeleton.joint_count();
  std::vector<int> child_count(n, 0);
  for (int j = 0; j < n; ++j)
    if (skeleton.parents[j] >= 0) ++child_count[skeleton.parents[j]];
  std::vector<char> fold(n, 0);
  for (int j = 0; j < n; ++j) {
    const int p = skeleton.parents[j];
    fold[j] = p >= 0 && child_count[j] == 0 && child_count[p] == 1 &&
              is_end_leaf_name(skeleton.names[j]) && !skeleton.end_sites[p];
  }
  std::vector<int> kept;
  std::vector<int> new_index(n, -1);
  core::Skeleton out;
  for (int j = 0; j < n; ++j) {
    if (fold[j]) continue;
    new_index[j] = static_cast<int>(kept.size());
    kept.push_back(j);
    out.names.push_back(skeleton.names[j]);
    out.parents.push_back(skeleton.parents[j] >= 0 ? new_index[skeleton.parents[j]] : -1);
    out.rest.push_back(skeleton.rest[j]);
    out.end_sites.push_back(skeleton.end_sites[j]);
  }
  for (int j = 0; j < n; ++j)
    if (fold[j]) out.end_sites[new_index[skeleton.parents[j]]] = skeleton.rest[j].translation;
  skeleton = std::move(out);
  return kept;
}

core::Clip select_joints(const core::Clip& clip, std::span<const int> kept) {
  core::Clip out;
  out.fps = clip.fps;
  out.frame_count = clip.frame_count;
  out.joint_count = static_cast<int>(kept.size());
  out.locals.reserve(static_cast<std::size_t>(out.frame_count) * kept.size());
  for (int f = 0; f < clip.frame_count; ++f)
    for (int j : kept) out.locals.push_back(clip.at(f, j));
  return out;
}

}  // namespace ikfix::io
