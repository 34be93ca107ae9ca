#!/usr/bin/env bash
# Byte-compares what two ikfix binaries write for the same inputs: the check a change that must
# not alter outputs (a refactor, a speed cut) passes before it lands, beside the golden-hash test.
#
#   tests/tools/compare_outputs.sh OLD_IKFIX NEW_IKFIX [OUT_DIR]
#
# 21 cases (BVH, skeleton and skinned FBX, GLB, a retarget onto the Kenney character; every
# bundled terrain), each run with `--report` at --threads 1 and 2 (retarget: once; it has no
# --threads): clips and reports. Both binaries write to the same path in turn, so the reports,
# which name their output, compare equal. Needs ../shared/data (IKFIX_SHARED_DATA overrides).
# Prints each file that differs and "N files, D differ"; exits 1 when any differs or a run fails.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OLD_IKFIX NEW_IKFIX [OUT_DIR]" >&2; exit 2; }
old=$(realpath "$1"); new=$(realpath "$2")
repo=$(cd "$(dirname "$0")/../.." && pwd)
shared=${IKFIX_SHARED_DATA:-$repo/../shared/data}
[ -d "$shared/anim" ] || { echo "$0: no shared data at $shared (set IKFIX_SHARED_DATA)" >&2; exit 2; }
out=${3:-$(mktemp -d)}
rm -rf "$out/a" "$out/b" "$out/cur" && mkdir -p "$out/a" "$out/b" "$out/cur"
anim=$shared/anim; terrain=$repo/data/terrain; failed=0

run_case() {  # run_case NAME EXTENSION IKFIX-ARGS...
  local name=$1 ext=$2; shift 2
  local threads="1 2"; [ "$1" = retarget ] && threads=none
  for side in a b; do
    local bin=$old; [ $side = b ] && bin=$new
    for th in $threads; do
      local thread_args=(--threads "$th"); [ "$th" = none ] && thread_args=()
      local stem=$out/cur/$name.$th
      if ! "$bin" -q "$@" -o "$stem.$ext" --report "$stem.json" "${thread_args[@]}" >/dev/null 2>&1; then
        echo "run failed ($side): ikfix $* ${thread_args[*]}"; failed=1
      fi
      mv "$stem.$ext" "$stem.json" "$out/$side/" 2>/dev/null
    done
  done
}

for t in flat slope stairs bumps; do
  run_case cmu0101_$t bvh run "$anim/bvh/cmu_01_01_forward_jumps.bvh" --terrain "$terrain/$t.obj"
  run_case walk_$t bvh run "$repo/data/clips/walk.bvh" --terrain "$terrain/$t.obj"
  run_case boxing_$t bvh run "$anim/bvh/boxing_toes.bvh" --terrain "$terrain/$t.obj"
done
run_case cmu131_stairs bvh run "$anim/bvh/cmu_131_01_start_walk_stop_max.bvh" --terrain "$terrain/stairs.obj"
run_case cmu0103_stairs bvh run "$anim/bvh/cmu_01_03_climb_hang_swing.bvh" --terrain "$terrain/stairs.obj"
run_case fbx0701_slope fbx run "$anim/fbx/cmu_07_01_walk_skeleton.fbx" --terrain "$terrain/slope.obj"
run_case kenney_stairs fbx run "$anim/fbx/kenney_character_maya_7700.fbx" --terrain "$terrain/stairs.obj"
run_case cesium_bumps glb run "$anim/gltf/CesiumMan.glb" --terrain "$terrain/bumps.obj"
run_case rt_kenney fbx retarget "$anim/bvh/cmu_02_01_walk.bvh" --to "$shared/retarget/kenney_rest.fbx" \
  --terrain "$terrain/flat.obj"

files=0; differ=0
for f in "$out"/a/*; do
  files=$((files + 1))
  cmp -s "$f" "$out/b/$(basename "$f")" || { differ=$((differ + 1)); echo "differs: $(basename "$f")"; }
done
echo "$files files, $differ differ ($out)"
[ $differ -eq 0 ] && [ $failed -eq 0 ]
