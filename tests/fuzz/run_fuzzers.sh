#!/usr/bin/env bash
# Runs the libFuzzer harnesses of a build made with -DIKFIX_FUZZ=ON (`make sanitize` builds one),
# two at a time, each for SECONDS, and fails on any crash, sanitizer report, hang over 20 s or
# allocation over the limits.
# FUZZ_SEED=N fixes libFuzzer's random seed, so a run explores the same inputs in the same order
# for the same code (CI sets it: a red CI then means the change, not the draw); unset, each run
# draws its own seed and explores further.
#   tests/fuzz/run_fuzzers.sh BUILD_DIR SECONDS [HARNESS...]   (default: all six)
# Corpora live in BUILD_DIR/fuzz/corpus/<harness> (kept between runs, never committed), seeded
# each time from data/ and, when present, ../shared/data; findings go to
# BUILD_DIR/fuzz/findings/<harness>/ and each harness's log to BUILD_DIR/fuzz/logs/.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "$1" && pwd)"
seconds="$2"
shift 2
harnesses=("$@")
((${#harnesses[@]})) || harnesses=(bvh fbx gltf obj json pipeline)
shared="${IKFIX_SHARED_DATA:-$root/../shared/data}"
work="$build/fuzz"
mkdir -p "$work/logs"

# The first FRAMES frame lines of a BVH (Frames: rewritten), so seeds stay small and fast.
cut_bvh() {
  awk -v n="$2" '
    stage == 0 && tolower($1) == "frames:" { print "Frames: " n; stage = 1; next }
    stage == 0 { print; next }
    stage == 1 { print; stage = 2; next }
    { if (count++ < n) print; else exit }' "$1" | tr -d '\r'
}

# Copies the files matching the globs, up to MAX_BYTES each, into a corpus folder.
seed_files() {
  local corpus="$1" max="$2"
  shift 2
  local f
  for f in "$@"; do
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -le "$max" ] && cp -f "$f" "$corpus/seed-$(basename "$f")"
  done
  return 0
}

seed() {
  local name="$1" corpus="$work/corpus/$1" f
  mkdir -p "$corpus"
  case "$name" in
    bvh | pipeline)
      local frames=12
      [ "$name" = pipeline ] && frames=30
      for f in "$root"/data/clips/*.bvh "$shared"/anim/bvh/*.bvh "$shared"/retarget/*.bvh; do
        [ -f "$f" ] && cut_bvh "$f" "$frames" >"$corpus/seed-$(basename "$f")"
      done ;;
    fbx) seed_files "$corpus" 131072 "$shared"/anim/fbx/*.fbx "$shared"/retarget/*.fbx ;;
    gltf) seed_files "$corpus" 131072 "$shared"/anim/gltf/*.gl* "$shared"/retarget/*.glb ;;
    obj) seed_files "$corpus" 131072 "$root"/data/terrain/*.obj ;;
    json)
      printf '\0{"legs": "LeftUpLeg,LeftLeg,LeftFoot,LeftToeBase,RightUpLeg,RightLeg,RightFoot,", "clip_unit": 0.01, "clip_up": "z", "take": 1, "terrain_offset": [0.5, 0, -1], "contacts": "c.json"}' >"$corpus/seed-config"
      printf '\1\x1d{"ikfix_contacts": 1, "frames": 30, "fps": 30.0, "left": [[0, 9], [20, 29]], "right": [[10, 19]]}' >"$corpus/seed-contacts"
      printf '\2{"schema": "ikfix-bone-map-v1", "source": {"file": "a.bvh", "joints": 11}, "target": {"file": "b.bvh", "joints": 11}, "pairs": [{"source": "Hips", "target": "pelvis", "role": "pelvis", "provenance": "user", "confidence": 0.9}, {"source": "LeftFoot", "target": "foot_l", "target_end_site": false}], "unmapped_source": [], "unmapped_target": [], "excluded_target": ["head"], "missing_roles": []}' >"$corpus/seed-map" ;;
  esac
}

max_len() {
  case "$1" in
    fbx | gltf | obj) echo 131072 ;;
    pipeline) echo 16384 ;;
    *) echo 65536 ;;
  esac
}

run_one() {
  local name="$1" findings="$work/findings/$1"
  local dict="$root/tests/fuzz/dict/$name.dict" args=()
  mkdir -p "$findings"
  [ -f "$dict" ] && args+=("-dict=$dict")
  [ -n "${FUZZ_SEED:-}" ] && args+=("-seed=$FUZZ_SEED")
  "$build/fuzz/fuzz_$name" "$work/corpus/$name" "${args[@]}" -max_total_time="$seconds" \
    -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len="$(max_len "$name")" \
    -artifact_prefix="$findings/" -print_final_stats=1 >"$work/logs/$name.log" 2>&1
}

# Scratch files on tmpfs: every execution writes its input (and the pipeline its outputs).
export TMPDIR="${FUZZ_TMPDIR:-/dev/shm}"
[ -w "$TMPDIR" ] || export TMPDIR=/tmp
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
failed=()
pids=()
names=()
wait_first() {
  if ! wait "${pids[0]}"; then failed+=("${names[0]}"); fi
  local runs
  runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/logs/${names[0]}.log" | grep -o '[0-9]*$' || echo '?')"
  echo "fuzz_${names[0]}: ${runs} executions (run for up to ${seconds} s)"
  pids=("${pids[@]:1}")
  names=("${names[@]:1}")
}
for name in "${harnesses[@]}"; do
  seed "$name"
  run_one "$name" &
  pids+=($!)
  names+=("$name")
  ((${#pids[@]} < 2)) || wait_first
done
while ((${#pids[@]})); do wait_first; done
if ((${#failed[@]})); then
  for name in "${failed[@]}"; do
    echo "fuzz_$name FAILED: see $work/logs/$name.log and $work/findings/$name/" >&2
    grep -m3 -E 'ERROR|runtime error|unclean error|SUMMARY' "$work/logs/$name.log" >&2 || true
  done
  exit 1
fi
