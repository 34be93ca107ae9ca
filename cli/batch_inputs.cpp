#include "cli/batch_inputs.hpp"

#include <glob.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <stdexcept>
#include <system_error>

#include "io/clip_io.hpp"

namespace ikfix::cli {
namespace {

namespace fs = std::filesystem;

fs::path absolute_normal(const fs::path& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  return (ec ? p : a).lexically_normal();
}

// Deepest folder containing every one of `folders` (absolute, normal).
fs::path common_ancestor(const std::vector<fs::path>& folders) {
  if (folders.empty()) return {};
  std::vector<fs::path> common(folders[0].begin(), folders[0].end());
  for (std::size_t i = 1; i < folders.size(); ++i) {
    std::size_t n = 0;
    auto it = folders[i].begin();
    while (n < common.size() && it != folders[i].end() && *it == common[n]) ++n, ++it;
    common.resize(n);
  }
  fs::path out;
  for (const auto& part : common) out /= part;
  return out;
}

bool is_hidden(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.size() > 1 && name[0] == '.' && name != "..";
}

// walk.ikfix.bvh: what `ikfix run` writes beside its input by default. A folder walk skips
// these, so fixing a library twice never fixes the fixed clips (name them explicitly to include).
bool is_ikfix_output(const fs::path& p) { return p.stem().extension() == ".ikfix"; }

bool has_glob_chars(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

// A set of paths that share one mirror base (one glob, one list, or the plain file arguments).
struct Group {
  std::vector<fs::path> folders;  // walked recursively
  std::vector<fs::path> files;    // taken as they are
  void add(const fs::path& p, bool is_folder) {
    (is_folder ? folders : files).push_back(p.lexically_normal());
  }
  bool empty() const { return folders.empty() && files.empty(); }
};

class Collector {
 public:
  explicit Collector(const fs::path& skip) {
    std::error_code ec;
    if (!skip.empty()) skip_ = fs::weakly_canonical(skip, ec);
  }

  // Every supported clip below `folder`, mirrored relative to `base` (absolute, normal).
  void walk(const fs::path& folder, const fs::path& base) {
    std::error_code ec;
    fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
    if (ec) throw std::invalid_argument(folder.string() + ": cannot list folder: " + ec.message());
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec)
        throw std::invalid_argument(it->path().string() + ": cannot list folder: " + ec.message());
      const fs::path& p = it->path();
      if (is_hidden(p)) {
        if (it->is_directory(ec)) it.disable_recursion_pending();
        continue;
      }
      // Named like a clip but a folder or a dangling link: listed all the same, so that the
      // batch reports it (as a failed clip) instead of skipping it without a word.
      const bool clip_name = io::is_supported_clip(p) && !is_ikfix_output(p);
      if (it->is_directory(ec)) {
        if (!skip_.empty() && fs::weakly_canonical(p, ec) == skip_) it.disable_recursion_pending();
        if (clip_name) add_file(p, base);
        continue;
      }
      if (clip_name && (it->is_regular_file(ec) || it->is_symlink(ec))) add_file(p, base);
    }
  }

  void add_file(const fs::path& input, const fs::path& base) {
    BatchClip clip;
    clip.input = input.lexically_normal();
    clip.relative = absolute_normal(input).lexically_relative(base);
    std::error_code ec;
    clip.size = fs::file_size(input, ec);
    if (ec) clip.size = 0;
    clips_.push_back(std::move(clip));
  }

  void add_group(const Group& group) {
    if (group.empty()) return;
    std::vector<fs::path> parents;
    for (const auto& f : group.files) parents.push_back(absolute_normal(f).parent_path());
    for (const auto& d : group.folders) parents.push_back(absolute_normal(d).parent_path());
    // A single folder (or folders only from one argument) mirrors relative to itself.
    const fs::path base = group.files.empty() && group.folders.size() == 1
                              ? absolute_normal(group.folders[0])
                              : common_ancestor(parents);
    for (const auto& f : group.files) add_file(f, base);
    for (const auto& d : group.folders) walk(d, base);
  }

  std::vector<BatchClip> finish() {
    std::sort(clips_.begin(), clips_.end(), [](const BatchClip& a, const BatchClip& b) {
      return a.input.generic_string() < b.input.generic_string();
    });
    // The same file reached twice (by two arguments, or by two names): keep the first by path.
    std::vector<BatchClip> unique;
    std::map<fs::path, std::size_t> by_file;
    std::map<std::string, std::size_t> by_output;
    for (auto& c : clips_) {
      std::error_code ec;
      const fs::path key = fs::weakly_canonical(c.input, ec);
      if (by_file.count(key)) continue;
      const std::string out = c.relative.lexically_normal().generic_string();
      if (out.empty() || out.rfind("..", 0) == 0)
        throw std::invalid_argument(c.input.string() + ": cannot mirror it under --out-dir");
      if (auto it = by_output.find(out); it != by_output.end())
        throw std::invalid_argument(unique[it->second].input.string() + " and " + c.input.string() +
                                    " would both be written to " + out +
                                    " under --out-dir; pass them in separate runs");
      by_file[key] = unique.size();
      by_output[out] = unique.size();
      unique.push_back(std::move(c));
    }
    return unique;
  }

 private:
  fs::path skip_;
  std::vector<BatchClip> clips_;
};

// Adds an existing path to `group`; a missing one is a usage error naming `where`.
void add_existing(Group& group, const fs::path& p, const std::string& where) {
  std::error_code ec;
  const auto status = fs::status(p, ec);
  if (!fs::exists(status)) throw std::invalid_argument(where + ": no such file or folder");
  group.add(p, fs::is_directory(status));
}

Group expand_glob(const std::string& pattern) {
  glob_t found{};
  const int rc = ::glob(pattern.c_str(), 0, nullptr, &found);
  Group group;
  if (rc == 0) {
    for (std::size_t i = 0; i < found.gl_pathc; ++i) {
      const fs::path p = found.gl_pathv[i];
      std::error_code ec;
      if (fs::is_directory(p, ec))
        group.add(p, true);
      else if (fs::is_regular_file(p, ec) && io::is_supported_clip(p))
        group.add(p, false);
    }
  }
  ::globfree(&found);
  if (rc != 0 && rc != GLOB_NOMATCH)
    throw std::invalid_argument(pattern + ": cannot expand the pattern");
  if (group.empty()) throw std::invalid_argument(pattern + ": matches no clip");
  return group;
}

Group read_list(const fs::path& list) {
  std::error_code ec;
  if (fs::is_directory(list, ec))
    throw std::invalid_argument("@" + list.string() + ": is a folder, not a list file");
  std::ifstream in(list);
  if (!in) throw std::invalid_argument("@" + list.string() + ": cannot read the list file");
  Group group;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto last = line.find_last_not_of(" \t\r");
    const fs::path entry = line.substr(first, last - first + 1);
    const fs::path p = entry.is_absolute() ? entry : list.parent_path() / entry;
    add_existing(group, p, list.string() + ":" + std::to_string(number) + ": " + entry.string());
  }
  if (in.bad()) throw std::invalid_argument("@" + list.string() + ": read error");
  if (group.empty()) throw std::invalid_argument("@" + list.string() + ": the list names no clip");
  return group;
}

}  // namespace

std::vector<BatchClip> expand_batch_inputs(const std::vector<std::string>& arguments,
                                           const fs::path& skip) {
  Collector collector(skip);
  Group plain_files;
  for (const auto& arg : arguments) {
    if (arg.empty()) throw std::invalid_argument("an empty input path");
    std::error_code ec;
    if (arg[0] == '@') {
      collector.add_group(read_list(arg.substr(1)));
    } else if (fs::exists(arg, ec)) {
      if (fs::is_directory(arg, ec)) {
        Group folder;
        folder.add(arg, true);
        collector.add_group(folder);
      } else {
        plain_files.add(arg, false);
      }
    } else if (has_glob_chars(arg)) {
      collector.add_group(expand_glob(arg));
    } else {
      throw std::invalid_argument(arg + ": no such file or folder");
    }
  }
  collector.add_group(plain_files);
  return collector.finish();
}

Shard parse_shard(const std::string& text) {
  const auto bad = [&] {
    return std::invalid_argument("--shard: '" + text + "' is not I/N with 1 <= I <= N");
  };
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw bad();
  Shard s;
  const char* begin = text.data();
  const char* mid = begin + slash;
  const char* end = begin + text.size();
  auto [p1, e1] = std::from_chars(begin, mid, s.index);
  auto [p2, e2] = std::from_chars(mid + 1, end, s.count);
  if (e1 != std::errc() || p1 != mid || e2 != std::errc() || p2 != end || s.count < 1 ||
      s.index < 1 || s.index > s.count)
    throw bad();
  return s;
}

std::vector<BatchClip> select_shard(const std::vector<BatchClip>& clips, const Shard& shard) {
  if (shard.count <= 1) return clips;
  std::vector<std::size_t> order(clips.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Largest first; equal sizes keep path order (the list is sorted by path).
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return clips[a].size > clips[b].size; });
  std::vector<std::uintmax_t> bytes(shard.count, 0);
  std::vector<int> owner(clips.size(), 0);
  for (std::size_t i : order) {
    int best = 0;
    for (int s = 1; s < shard.count; ++s)
      if (bytes[s] < bytes[best]) best = s;
    owner[i] = best;
    bytes[best] += std::max<std::uintmax_t>(clips[i].size, 1);
  }
  std::vector<BatchClip> out;
  for (std::size_t i = 0; i < clips.size(); ++i)
    if (owner[i] == shard.index - 1) out.push_back(clips[i]);
  return out;
}

void set_output_format(std::vector<BatchClip>& clips, const std::string& format) {
  std::map<std::string, std::size_t> by_output;
  for (std::size_t i = 0; i < clips.size(); ++i) {
    clips[i].relative.replace_extension("." + format);
    const std::string out = clips[i].relative.generic_string();
    if (auto [it, added] = by_output.emplace(out, i); !added)
      throw std::invalid_argument(clips[it->second].input.string() + " and " +
                                  clips[i].input.string() + " would both be written to " + out +
                                  " under --out-dir with --format " + format +
                                  "; pass them in separate runs");
  }
}

}  // namespace ikfix::cli
