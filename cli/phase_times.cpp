#include "cli/phase_times.hpp"

#include <spdlog/fmt/fmt.h>

namespace ikfix::cli {

PhaseTimes::PhaseTimes() : last_(std::chrono::steady_clock::now()) {}

void PhaseTimes::mark(std::string name) {
  const auto now = std::chrono::steady_clock::now();
  phases_.emplace_back(std::move(name),
                       std::chrono::duration<double, std::milli>(now - last_).count());
  last_ = now;
}

std::string PhaseTimes::summary() const {
  std::string out;
  for (const auto& [name, ms] : phases_) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {:.1f} ms", name, ms);
  }
  return out;
}

}  // namespace ikfix::cli
