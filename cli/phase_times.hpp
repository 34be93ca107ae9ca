#pragma once
// Wall time of the phases of one command (read, fix, write, ...), for `-v`: where a run's
// milliseconds go, on the user's own files. Not thread-safe: one per job, filled by its thread.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace ikfix::cli {

class PhaseTimes {
 public:
  PhaseTimes();
  // Ends the phase running since the last mark (or construction) and names it.
  void mark(std::string name);
  // "read 5.1 ms, fix 11.0 ms, write 2.3 ms" (milliseconds, one decimal).
  std::string summary() const;

 private:
  std::chrono::steady_clock::time_point last_;
  std::vector<std::pair<std::string, double>> phases_;  // name, milliseconds
};

}  // namespace ikfix::cli
