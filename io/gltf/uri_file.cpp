#include "io/gltf/uri_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "io/error.hpp"
#include "io/file_util.hpp"

namespace ikfix::io::gltf {

namespace {

namespace fs = std::filesystem;

std::atomic<bool> g_allow_outside_uris{false};

bool starts_with_file_scheme(const std::string& uri) {
  if (uri.size() < 5) return false;
  std::string scheme = uri.substr(0, 5);
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return scheme == "file:";
}

// The path below `base` that `relative` names, or why it is refused.
const char* refusal(const fs::path& base, const fs::path& relative) {
  if (relative.is_absolute()) return "an absolute path";
  const fs::path normal = relative.lexically_normal();
  if (!normal.empty() && *normal.begin() == "..") return "a path out of the glTF file's folder";
  std::error_code ec;
  const fs::path real_base = fs::weakly_canonical(base.empty() ? fs::path(".") : base, ec);
  if (ec) return nullptr;
  const fs::path real = fs::weakly_canonical(base / relative, ec);
  if (ec) return nullptr;
  const auto [at_base, at_real] =
      std::mismatch(real_base.begin(), real_base.end(), real.begin(), real.end());
  if (at_base != real_base.end()) return "a link out of the glTF file's folder";
  return nullptr;
}

std::string read_at_most(int fd, std::size_t byte_length) {
  std::string bytes(byte_length, '\0');
  std::size_t used = 0;
  while (used < byte_length) {
    const ssize_t n = ::read(fd, bytes.data() + used, byte_length - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    used += static_cast<std::size_t>(n);
  }
  bytes.resize(used);
  return bytes;
}

}  // namespace

void set_allow_outside_uris(bool allow) { g_allow_outside_uris.store(allow); }

std::string percent_decode(const std::string& s) {
  auto hex = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
  };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
      continue;
    }
    out += s[i];
  }
  return out;
}

std::string read_uri_file(const fs::path& gltf_path, const std::string& source_name,
                          const std::string& uri, std::size_t byte_length,
                          const std::string& where) {
  const std::string named = where + ": uri '" + one_line(uri) + "'";
  const bool allow = g_allow_outside_uris.load();
  std::string decoded = percent_decode(uri);
  if (starts_with_file_scheme(decoded)) {
    if (!allow)
      throw InputError(source_name,
                       named + " refused: a file: uri (--allow-outside-uris reads it)");
    decoded = decoded.substr(decoded.rfind("file://", 0) == 0 ? 7 : 5);
  }
  const fs::path base = gltf_path.parent_path();
  const fs::path relative(decoded);
  if (!allow)
    if (const char* why = refusal(base, relative))
      throw InputError(source_name,
                       named + " refused: " + why + " (--allow-outside-uris reads it)");
  const fs::path file = relative.is_absolute() ? relative : base / relative;
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError(source_name, named + ": cannot read: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(source_name, named + " refused: not a regular file");
  }
  std::string bytes = read_at_most(fd, byte_length);
  ::close(fd);
  note_input(file);
  return bytes;
}

}  // namespace ikfix::io::gltf
