// One main for all benchmarks under tests/bench/ (each file registers its own).
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
