#!/usr/bin/env bash
# What recording call paths costs a target construct.
# usage: bench/callpath_cost.sh BUILD_DIR [RUNS] [N] [DEPTH]
#
# Builds bench/call_depth.c (clang-19 -O2 -g, host offload) into
# BUILD_DIR/bench, then runs it RUNS times (default 7) each way, interleaved:
# plain, under the build's collector and, when BASE_COLLECTOR names another
# collector library (one built without call paths, say), under that one.
# Each run makes N (default 20000) `target update` constructs, DEPTH
# (default 4) calls below main, from two callers in turn. Prints the median
# wall time of each kind and the collector's added cost per construct, in
# nanoseconds (median minus plain median, over N).
set -euo pipefail
build=$(cd "$1" && pwd)
runs=${2:-7} n=${3:-20000} depth=${4:-4}
here=$(cd "$(dirname "$0")" && pwd)
llvm=${LLVM_DIR:-/usr/lib/llvm-19}
prog=$build/bench/call_depth
clang-19 -O2 -g -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu "$here/call_depth.c" -o "$prog"
collector=$build/lib/libomplens-collector.so
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One run's wall time in ns: KIND is plain, head or base.
run() {
  local lib=
  case $1 in head) lib=$collector ;; base) lib=$BASE_COLLECTOR ;; esac
  rm -f "$out"/*.trace
  if [ -z "$lib" ]; then
    LD_LIBRARY_PATH=$llvm/lib "$build/bench/walltime" "$prog" "$n" "$depth" | cut -d' ' -f1
  else
    LD_LIBRARY_PATH=$llvm/lib OMP_TOOL_LIBRARIES=$lib OMP_TOOL=enabled LD_PRELOAD=$lib \
      OMPLENS_OUTPUT_DIR=$out "$build/bench/walltime" "$prog" "$n" "$depth" | cut -d' ' -f1
  fi
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

kinds="plain head"
[ -n "${BASE_COLLECTOR:-}" ] && kinds="$kinds base"
for k in $kinds; do run "$k" >/dev/null; done # warm-up
for ((i = 0; i < runs; i++)); do
  for k in $kinds; do echo "$(run "$k")" >>"$out/$k.times"; done
done
plain=$(median <"$out/plain.times")
printf '%-6s %10s %14s\n' kind "median ms" "ns/construct"
for k in $kinds; do
  m=$(median <"$out/$k.times")
  awk -v k="$k" -v m="$m" -v p="$plain" -v n="$n" \
    'BEGIN { printf "%-6s %10.2f %14.0f\n", k, m / 1e6, k == "plain" ? 0 : (m - p) / n }'
done
