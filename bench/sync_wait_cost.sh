#!/usr/bin/env bash
# What the collector's handlers of task_create and sync_region_wait cost (docs/detectors.md,
# "Host waits"): bench/programs/barriers.c (a parallel loop, a target
# nowait and a taskwait per step) under a minimal tool
# (bench/programs/sync_wait_tool.c) without and with the callback, RUNS
# times each, interleaved; prints the fastest wall and CPU (user + system)
# time of each and their ratio.
# usage: bench/sync_wait_cost.sh [RUNS [STEPS [THREADS]]]  (defaults 12, 20000, 1)
set -euo pipefail
runs=${1:-12} steps=${2:-20000} threads=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clang-19 -shared -fPIC -O2 "$here/programs/sync_wait_tool.c" -o "$work/libtool.so"
clang-19 -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu "$here/programs/barriers.c" \
  -o "$work/barriers" -Wl,-rpath,/usr/lib/llvm-19/lib
export LD_LIBRARY_PATH=/usr/lib/llvm-19/lib OMP_NUM_THREADS=$threads OMP_WAIT_POLICY=passive
export OMP_TOOL_LIBRARIES=$work/libtool.so
echo "# $0 $runs $steps $threads  ($(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
for ((k = 0; k < runs; k++)); do
  for mode in without with; do
    if [ $mode = with ]; then export SYNC_WAIT=1; else unset SYNC_WAIT; fi
    { /usr/bin/time -f "$mode %e %U %S" "$work/barriers" "$steps" >/dev/null; } 2>&1 | tail -1
  done
done | awk '{ c = $3 + $4
  if (!($1 in w) || $2 < w[$1]) w[$1] = $2
  if (!($1 in u) || c < u[$1]) u[$1] = c }
  END { printf "fastest wall (s): without %.2f, with %.2f (x%.2f)\n", w["without"], w["with"], w["with"] / w["without"]
        printf "fastest cpu (s):  without %.2f, with %.2f (x%.2f)\n", u["without"], u["with"], u["with"] / u["without"] }'
