#!/usr/bin/env bash
# Collector overhead and trace size on every example binary.
# usage: bench/overhead.sh [--no-preload] BUILD_DIR [RUNS]
#
# For each BUILD_DIR/examples/* binary: one warm-up run of each kind, then
# RUNS (default 11) runs without and RUNS with the collector, interleaved
# (plain, traced, plain, traced, ...). A run's time is the wall time of the
# whole process (bench/walltime: posix_spawn to wait4). Both kinds run with
# the same LD_LIBRARY_PATH; the traced runs add what `omplens run` sets:
# OMP_TOOL_LIBRARIES, OMP_TOOL=enabled, OMPLENS_OUTPUT_DIR and LD_PRELOAD of
# the collector (its entry-point wrappers); --no-preload leaves LD_PRELOAD
# out, as `omplens run --no-preload` does.
# Prints per example the median wall times and their ratio, traced / plain
# (the figure the targets are about); the ratio of the fastest runs and of
# the median CPU times (user + system, idle OpenMP threads spinning
# included), which other load on the machine disturbs less; and the last
# trace's bytes per event (bench/trace_stats), with and without the header.
# Then the geometric means, the worst median ratio and the largest trace
# sizes, overall and among traces of 1000 events or more (the header and
# strings are a fixed cost that dominates the tiny examples).
# Targets: geomean <= 1.03, worst <= 1.25, <= 32 trace bytes per event.
# Environment: EXAMPLES, a glob of binary names, extglob allowed (default: all;
# e.g. EXAMPLES='@(jacobi|round_trip)-O2');
# COLLECTOR, another collector library to measure (default: the build's).
set -euo pipefail

preload=1
if [ "${1:-}" = --no-preload ]; then
  preload=0
  shift
fi
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 [--no-preload] BUILD_DIR [RUNS]" >&2
  exit 64
fi
build=$(cd "$1" && pwd)
runs=${2:-11}
walltime=$build/bench/walltime
trace_stats=$build/bench/trace_stats
collector=${COLLECTOR:-$build/lib/libomplens-collector.so}
llvm_lib=${OMPLENS_LIBOMP_DIR:-/usr/lib/llvm-19/lib}
for f in "$walltime" "$trace_stats" "$collector"; do
  if [ ! -e "$f" ]; then
    echo "$0: $f is missing: build first (cmake --build $1)" >&2
    exit 66
  fi
done
shopt -s nullglob extglob
# shellcheck disable=SC2206 # EXAMPLES is a glob, meant to expand here
binaries=("$build"/examples/${EXAMPLES:-*})
if [ ${#binaries[@]} -eq 0 ]; then
  echo "$0: no example binaries in $build/examples" >&2
  exit 66
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$llvm_lib

# shellcheck disable=SC2016 # the quotes are part of the printed command
echo "# command: ${EXAMPLES:+EXAMPLES='$EXAMPLES' }${COLLECTOR:+COLLECTOR=$COLLECTOR }$0" \
  "$([ $preload = 1 ] || echo '--no-preload ')$build $runs"
echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: nproc $(nproc)," \
  "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1);" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
# A busy machine makes every figure here unreliable: say so next to them.
awk -v n="$(nproc)" '{ if ($1 > n / 4) printf "# WARNING: load average %s on %d CPUs before the run: other work competes, figures are unreliable\n", $1, n }' /proc/loadavg
echo "# $runs interleaved runs each; times are medians of whole-process wall time;" \
  "collector $([ $preload = 1 ] && echo 'preloaded, as omplens run' || echo 'through OMP_TOOL_LIBRARIES only')"

# Each prints "WALL CPU" of one run, in ns.
run_plain() {
  "$walltime" "$1" || { echo "$0: $1 failed without the collector (status $?)" >&2; exit 70; }
}
# LD_PRELOAD also reaches walltime itself, before its clock starts.
run_traced() {
  rm -rf "$work/trace" && mkdir "$work/trace"
  local preloaded=${LD_PRELOAD:-}
  [ $preload = 0 ] || preloaded=$collector${preloaded:+ $preloaded}
  OMP_TOOL_LIBRARIES=$collector OMP_TOOL=enabled OMPLENS_OUTPUT_DIR=$work/trace \
    LD_PRELOAD=$preloaded "$walltime" "$1" ||
    { echo "$0: $1 failed with the collector (status $?)" >&2; exit 70; }
}

# Median of column $1 of the "WALL CPU" lines on stdin.
median() {
  awk -v c="$1" '{ print $c }' | sort -n |
    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Smallest value of column $1.
minimum() {
  awk -v c="$1" '{ print $c }' | sort -n | head -n 1
}

printf '%-26s %9s %9s %7s %7s %7s %7s %9s %10s\n' example plain_ms traced_ms ratio min_rat \
  cpu_rat events bytes/ev records/ev
: >"$work/ratios"
for bin in "${binaries[@]}"; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  run_plain "$bin" >/dev/null
  run_traced "$bin" >/dev/null
  : >"$work/plain"
  : >"$work/traced"
  for ((i = 0; i < runs; i++)); do
    run_plain "$bin" >>"$work/plain"
    run_traced "$bin" >>"$work/traced"
  done
  plain=$(median 1 <"$work/plain")
  traced=$(median 1 <"$work/traced")
  cpu_ratio=$(awk -v t="$(median 2 <"$work/traced")" -v p="$(median 2 <"$work/plain")" \
    'BEGIN { printf "%.3f", t / p }')
  min_ratio=$(awk -v t="$(minimum 1 <"$work/traced")" -v p="$(minimum 1 <"$work/plain")" \
    'BEGIN { printf "%.3f", t / p }')
  # events, bytes/ev and records/ev of the last traced run's trace
  read -r events bytes_ev records_ev < <("$trace_stats" "$work"/trace/*.trace |
    awk '!/^#/ { print $1, $7, $8; exit }')
  ratio=$(awk -v t="$traced" -v p="$plain" 'BEGIN { printf "%.3f", t / p }')
  echo "$name $ratio $events $bytes_ev $records_ev $cpu_ratio $min_ratio" >>"$work/ratios"
  printf '%-26s %9.1f %9.1f %7s %7s %7s %7s %9s %10s\n' "$name" \
    "$(awk -v v="$plain" 'BEGIN { print v / 1e6 }')" "$(awk -v v="$traced" 'BEGIN { print v / 1e6 }')" \
    "$ratio" "$min_ratio" "$cpu_ratio" "$events" "$bytes_ev" "$records_ev"
done

awk '
  { n++; s += log($2); sc += log($6); sm += log($7); if ($2 > worst) { worst = $2; wname = $1 }
    if ($4 > wb) { wb = $4; wbname = $1 }
    if ($5 > wr) { wr = $5; wrname = $1 }
    if ($3 >= 1000 && $4 > wl) { wl = $4; wlname = $1 } }
  END {
    g = exp(s / n)
    printf "\ngeometric mean ratio %.3f over %d binaries (target <= 1.03): %s\n", g, n, (g <= 1.03 ? "met" : "MISSED")
    printf "worst ratio %.3f (%s) (target <= 1.25): %s\n", worst, wname, (worst <= 1.25 ? "met" : "MISSED")
    printf "geometric mean of the fastest-run ratios %.3f, of the CPU-time ratios %.3f\n", exp(sm / n), exp(sc / n)
    printf "largest trace bytes/event %.1f (%s) (target <= 32): %s\n", wb, wbname, (wb <= 32 ? "met" : "MISSED")
    printf "largest bytes/event without the header %.1f (%s)\n", wr, wrname
    if (wlname != "")
      printf "largest bytes/event of traces with >= 1000 events %.1f (%s) (target <= 32): %s\n", wl, wlname, (wl <= 32 ? "met" : "MISSED")
  }' "$work/ratios"

echo "# load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
