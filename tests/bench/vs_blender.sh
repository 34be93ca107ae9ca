#!/usr/bin/env bash
# ikfix run (fix included) vs Blender's headless BVH import + export (no fix), side by side in
# one hyperfine run, on the same clip. Prints hyperfine's table and the ratio.
#   tests/bench/vs_blender.sh [clip.bvh] [terrain.obj]
# Needs: blender (apt-get install blender), hyperfine (apt-get install hyperfine), a Release build.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
clip=${1:-$root/../shared/data/anim/bvh/cmu_01_01_forward_jumps.bvh}
terrain=${2:-$root/data/terrain/stairs.obj}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
hyperfine -N -w 2 -r 10 \
  -n blender "blender -b --factory-startup --python $root/tests/bench/blender_bvh_roundtrip.py -- $clip $out/blender.bvh" \
  -n ikfix "$root/build/ikfix -q run $clip --terrain $terrain -o $out/ikfix.bvh"
