// The libFuzzer entry point of one harness: IKFIX_FUZZ_TARGET names the target
// (tests/fuzz/fuzz_targets.hpp). An unclean error aborts, which libFuzzer reports as a crash
// and keeps the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    ikfix::fuzz::IKFIX_FUZZ_TARGET(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const ikfix::fuzz::UncleanFailure& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::abort();
  }
  return 0;
}
