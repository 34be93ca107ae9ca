#pragma once
// Exit codes are part of the interface: CI pipelines depend on them.
namespace ikfix::cli {
inline constexpr int kExitOk = 0;        // success
inline constexpr int kExitFailOn = 1;    // the work ran but a --fail-on condition held
inline constexpr int kExitBadInput = 2;  // bad usage or bad input
}  // namespace ikfix::cli
