#!/usr/bin/env bash
# Measures `ikfix batch`: wall time with --jobs 1 and --jobs 2 on one library, and peak memory
# (max RSS) on that library and on 4 times it. Not run by CTest: wall times on a shared machine
# are noisy, so each figure is the median of RUNS runs, and the load average is printed too.
#
#   tests/bench/batch_speed.sh [path/to/ikfix] [runs]      (default: build/ikfix, 3 runs)
#
# The library: every BVH in ../shared/data/anim/bvh plus COPIES copies of the bundled walk.
# Needs /usr/bin/time (Debian package `time`).
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$(realpath "${1:-$here/build/ikfix}")"
runs="${2:-3}"
copies="${COPIES:-20}"
jobs_many="${JOBS:-2}"
shared="$here/../shared/data/anim/bvh"
terrain="$here/data/terrain/stairs.obj"
[[ -x "$bin" ]] || { echo "no ikfix binary at $bin (build first, or pass its path)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time: apt-get install time" >&2; exit 2; }
[[ -d "$shared" ]] || { echo "needs the shared clips in $shared" >&2; exit 2; }

work="$(mktemp -d /tmp/ikfix_batch_bench.XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lib1/walks"
cp "$shared"/*.bvh "$work/lib1/"
for i in $(seq 1 "$copies"); do cp "$here/data/clips/walk.bvh" "$work/lib1/walks/walk_$i.bvh"; done
for k in 1 2 3 4; do mkdir -p "$work/lib4/part$k"; cp -r "$work/lib1/." "$work/lib4/part$k/"; done
count1=$(find "$work/lib1" -name '*.bvh' | wc -l)
count4=$(find "$work/lib4" -name '*.bvh' | wc -l)

# One batch; prints "wall_s max_rss_kb cpu_s" (cpu: user + system, all threads).
measure() {
  local lib="$1" jobs="$2"
  rm -rf "$work/out"
  /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$bin" -q batch "$lib" --terrain "$terrain" \
    --out-dir "$work/out" --jobs "$jobs" --report "$work/report.json"
  awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$work/time.txt"
}
# Control: the same library as two --jobs 1 processes at once (shards 1/2 and 2/2). What the machine
# gives two independent processes right now bounds what --jobs 2 can reach; prints "wall_s".
measure_two_processes() {
  local lib="$1" start end
  rm -rf "$work/out"
  start=$(date +%s.%N)
  "$bin" -q batch "$lib" --terrain "$terrain" --out-dir "$work/out" --jobs 1 --shard 1/2 --report "$work/s1.json" &
  "$bin" -q batch "$lib" --terrain "$terrain" --out-dir "$work/out" --jobs 1 --shard 2/2 --report "$work/s2.json"
  wait
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f\n", b - a }'
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "ikfix batch benchmark: $bin, $runs runs each, median shown"
echo "library 1x: $count1 clips, $(du -sh "$work/lib1" | cut -f1); library 4x: $count4 clips, $(du -sh "$work/lib4" | cut -f1); cores: $(nproc)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "$work/lib1" 1 > /dev/null  # warm the page cache

: > "$work/j1"; : > "$work/jn"; : > "$work/ctl"; : > "$work/rss1"; : > "$work/rss4"; : > "$work/cpu1"; : > "$work/cpun"
for r in $(seq 1 "$runs"); do
  # Alternate the configurations so a burst of load hits both alike.
  read -r wall rss cpu < <(measure "$work/lib1" 1); echo "$wall" >> "$work/j1"; echo "$cpu" >> "$work/cpu1"
  read -r wall rss cpu < <(measure "$work/lib1" "$jobs_many")
  echo "$wall" >> "$work/jn"; echo "$rss" >> "$work/rss1"; echo "$cpu" >> "$work/cpun"
  measure_two_processes "$work/lib1" >> "$work/ctl"
  read -r wall rss cpu < <(measure "$work/lib4" "$jobs_many"); echo "$rss" >> "$work/rss4"
done
j1=$(median < "$work/j1"); jn=$(median < "$work/jn"); ctl=$(median < "$work/ctl")
rss1=$(median < "$work/rss1"); rss4=$(median < "$work/rss4")
echo "wall --jobs 1: $(paste -sd' ' "$work/j1") s -> median $j1 s"
echo "wall --jobs $jobs_many: $(paste -sd' ' "$work/jn") s -> median $jn s"
awk -v a="$j1" -v b="$jn" -v n="$jobs_many" 'BEGIN { printf "speed-up --jobs %s vs --jobs 1: %.2fx\n", n, a / b }'
echo "cpu time (user + sys) --jobs 1: median $(median < "$work/cpu1") s; --jobs $jobs_many: median $(median < "$work/cpun") s"
echo "control, two --jobs 1 processes (shards 1/2 + 2/2) at once: $(paste -sd' ' "$work/ctl") s -> median $ctl s"
awk -v a="$j1" -v b="$ctl" 'BEGIN { printf "speed-up the machine gives two processes now: %.2fx\n", a / b }'
echo "peak RSS --jobs $jobs_many, 1x library: $(paste -sd' ' "$work/rss1") KB -> median $rss1 KB"
echo "peak RSS --jobs $jobs_many, 4x library: $(paste -sd' ' "$work/rss4") KB -> median $rss4 KB"
awk -v a="$rss1" -v b="$rss4" 'BEGIN { printf "peak RSS 4x / 1x: %.2f\n", b / a }'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
