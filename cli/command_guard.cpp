#include "cli/command_guard.hpp"

#include <spdlog/spdlog.h>

#include <stdexcept>

#include "cli/exit_codes.hpp"
#include "io/error.hpp"

namespace ikfix::cli {

std::string escape_controls(const std::string& text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

int run_guarded(const std::string& context, const std::function<int()>& command) {
  try {
    return command();
  } catch (const io::InputError& e) {
    spdlog::error("{}", escape_controls(e.what()));
  } catch (const std::invalid_argument& e) {
    spdlog::error("{}", escape_controls(e.what()));
  } catch (const std::exception& e) {
    spdlog::error("{}", escape_controls(context + ": " + e.what()));
  }
  return kExitBadInput;
}

}  // namespace ikfix::cli
