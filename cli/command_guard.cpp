#include "cli/command_guard.hpp"

#include <spdlog/spdlog.h>

#include <stdexcept>

#include "cli/exit_codes.hpp"
#include "io/error.hpp"

namespace ikfix::cli {

int run_guarded(const std::string& context, const std::function<int()>& command) {
  try {
    return command();
  } catch (const io::InputError& e) {
    spdlog::error("{}", e.what());
  } catch (const std::invalid_argument& e) {
    spdlog::error("{}", e.what());
  } catch (const std::exception& e) {
    spdlog::error("{}: {}", context, e.what());
  }
  return kExitBadInput;
}

}  // namespace ikfix::cli
