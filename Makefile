# Thin front door over CMake. `make demo` and `make test` are the README's two commands.
BUILD ?= build
JOBS ?= $(shell nproc)
CTEST_LABELS ?= unit|e2e|cli|regression|interop|browser

.PHONY: all configure build cli demo test bench clean

all: build

configure:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Only the ikfix binary (and the Assimp module it loads), not the tests and benchmarks.
cli: configure
	cmake --build $(BUILD) -j $(JOBS) --target ikfix_cli

# The main job on the bundled data: the bundled walk fixed onto 15 cm stairs, with its report.
demo: cli
	$(BUILD)/ikfix run data/clips/walk.bvh --terrain data/terrain/stairs.obj \
	  -o out/walk_on_stairs.bvh --report out/walk_on_stairs.json

test: build
	cd $(BUILD) && ctest -j $(JOBS) --output-on-failure -L '$(CTEST_LABELS)'

bench: build
	$(BUILD)/tests/ikfix_bench

clean:
	rm -rf $(BUILD) out
