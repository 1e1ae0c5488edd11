#!/usr/bin/env bash
# The merged report of an MPI job on synthetic rank traces: time and peak
# memory of `omplens report` over K traces, in one process on all CPUs and
# on one, and distributed over P processes (`mpirun -np P omplens report`).
# usage: bench/ranks.sh BUILD_DIR [EVENTS_PER_RANK] [K...]
#        (default: 20000 events a rank, K = 64 256; P = MPI_PROCS, default
#        the number of CPUs)
#
# bench/gen_trace -R r/K writes rank r's trace (seed r+1; the last rank
# twice the events, so the merged view has an outlier to name) into one
# directory; then `omplens report -q --outputs json,summary -o TMP DIR`
# runs under /usr/bin/time -v: once with every CPU (the traces are read
# and analysed a thread per CPU, each reduced to its part before the next:
# cli/parts.h), once pinned to one CPU (taskset -c 0), and once under
# `mpirun -np P` (skipped without mpirun or build/lib/libomplens-mpi.so).
# Each runs RUNS times (default 3); the script prints the fastest run's
# wall time and its CPU time (user + system, mpirun's children included),
# the largest peak RSS (under mpirun: of the largest process, as
# /usr/bin/time reports its children), and the speedups of all CPUs and
# of the distributed report over one process on one CPU and on all CPUs.
# On a machine that other work shares, wall times vary from run to run:
# the CPU times say what the work costs. OMPLENS_STAGE_TIMES=1 in the
# environment shows the stages.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [EVENTS_PER_RANK] [K...]" >&2
  exit 64
fi
build=$(cd "$1" && pwd)
events=${2:-20000}
shift $(( $# >= 2 ? 2 : 1 ))
jobs=("$@")
[ ${#jobs[@]} -gt 0 ] || jobs=(64 256)
omplens=$build/bin/omplens
gen_trace=$build/bench/gen_trace
for f in "$omplens" "$gen_trace"; do
  [ -x "$f" ] || { echo "$0: $f is missing: build first (cmake --build $build)" >&2; exit 66; }
done
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time is missing: apt-get install time" >&2; exit 66; }
command -v taskset >/dev/null || { echo "$0: taskset is missing (util-linux)" >&2; exit 66; }
procs=${MPI_PROCS:-$(nproc)}
runs=${RUNS:-3}
mpi=()
if command -v mpirun >/dev/null && [ -f "$build/lib/libomplens-mpi.so" ]; then
  [ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mpi=(mpirun --oversubscribe -np "$procs")
else
  echo "# no mpirun or no $build/lib/libomplens-mpi.so: the distributed rows are left out"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "# command: $0 $build $events ${jobs[*]}"
echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC'); nproc $(nproc); load average $(cut -d' ' -f1-3 /proc/loadavg); $runs runs each"

field() { sed -n "s/^[[:space:]]*$1: //p" "$2"; }
seconds() { # h:mm:ss or m:ss.ss -> seconds
  awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }' <<<"$1"
}
run() { # run LABEL PREFIX... : RUNS reports, one line of figures (the fastest run's wall
  local label=$1 i w c best= cpu= rss=0 r; shift # time and CPU time, the largest peak RSS)
  for i in $(seq "$runs"); do
    rm -rf "$work/out"
    /usr/bin/time -v "$@" "$omplens" report -q --outputs json,summary -o "$work/out" "$work/traces" \
      2>"$work/time.txt" || { cat "$work/time.txt" >&2; exit 1; }
    w=$(seconds "$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$work/time.txt")")
    c=$(echo "$(field 'User time (seconds)' "$work/time.txt") + $(field 'System time (seconds)' "$work/time.txt")" | bc -l)
    r=$(field 'Maximum resident set size (kbytes)' "$work/time.txt")
    if [ -z "$best" ] || [ "$(echo "$w < $best" | bc -l)" = 1 ]; then best=$w cpu=$c; fi
    [ "$r" -gt "$rss" ] && rss=$r
  done
  wall=$best
  printf '%-6s %-13s wall %7s s   CPU %6.2f s   peak RSS %8.1f MiB\n' "$k" "$label" "$wall" "$cpu" \
    "$(echo "$rss / 1024" | bc -l)"
}

printf '%-6s %-9s\n' ranks processes
for k in "${jobs[@]}"; do
  rm -rf "$work/traces" && mkdir -p "$work/traces"
  for r in $(seq 0 $(( k - 1 ))); do
    n=$(( r == k - 1 ? 2 * events : events ))
    "$gen_trace" -n "$n" -s $(( r + 1 )) -R "$r/$k" "$work/traces/omplens-app-r$r-$(( 4242 + r )).trace" >/dev/null
  done
  run "1, all CPUs"
  all=$wall
  outliers=$(grep -c '"measure"' "$work/out/findings.json" || true)
  cp "$work/out/findings.json" "$work/one.json"
  run "1, 1 CPU" taskset -c 0
  one=$wall
  line="$k ranks: $(du -sh "$work/traces" | cut -f1) of traces, $outliers outlier entries;"
  line="$line all CPUs over one: $(echo "$all" | awk -v o="$one" '{ printf "%.2f", o / $1 }')x"
  if [ ${#mpi[@]} -gt 0 ]; then
    run "$procs, MPI" "${mpi[@]}"
    cmp -s "$work/one.json" "$work/out/findings.json" ||
      { echo "$0: the distributed findings.json differs from one process's" >&2; exit 1; }
    line="$line; distributed over 1 CPU: $(echo "$wall" | awk -v o="$one" '{ printf "%.2f", o / $1 }')x,"
    line="$line over all CPUs: $(echo "$wall" | awk -v o="$all" '{ printf "%.2f", o / $1 }')x"
  fi
  echo "$line"
done
