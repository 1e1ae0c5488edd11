#!/usr/bin/env bash
# The merged report of an MPI job on synthetic rank traces: time and peak
# memory of `omplens report` over K traces, on all CPUs and on one.
# usage: bench/ranks.sh BUILD_DIR [EVENTS_PER_RANK] [K...]
#        (default: 20000 events a rank, K = 64 256)
#
# bench/gen_trace -R r/K writes rank r's trace (seed r+1; the last rank
# twice the events, so the merged view has an outlier to name) into one
# directory; then `omplens report -q --outputs json,summary -o TMP DIR`
# runs under /usr/bin/time -v, once with every CPU (the traces are read
# and analysed a thread per CPU) and once pinned to one CPU (taskset -c 0),
# and the script prints wall time, peak RSS, and the speedup of all CPUs
# over one. The merged view itself (findings.json's "ranks") is built from
# each rank's analysis; its share is the difference to a plain report.
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

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "# command: $0 $build $events ${jobs[*]}"
echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC'); nproc $(nproc); load average $(cut -d' ' -f1-3 /proc/loadavg)"

field() { sed -n "s/^[[:space:]]*$1: //p" "$2"; }
seconds() { # h:mm:ss or m:ss.ss -> seconds
  awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }' <<<"$1"
}
run() { # run LABEL PREFIX... : one report, one line of figures
  local label=$1; shift
  rm -rf "$work/out"
  /usr/bin/time -v "$@" "$omplens" report -q --outputs json,summary -o "$work/out" "$work/traces" \
    2>"$work/time.txt" || { cat "$work/time.txt" >&2; exit 1; }
  wall=$(seconds "$(field 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$work/time.txt")")
  rss=$(field 'Maximum resident set size (kbytes)' "$work/time.txt")
  printf '%-6s %-9s wall %7s s   peak RSS %8.1f MiB\n' "$k" "$label" "$wall" "$(echo "$rss / 1024" | bc -l)"
}

printf '%-6s %-9s\n' ranks threads
for k in "${jobs[@]}"; do
  rm -rf "$work/traces" && mkdir -p "$work/traces"
  for r in $(seq 0 $(( k - 1 ))); do
    n=$(( r == k - 1 ? 2 * events : events ))
    "$gen_trace" -n "$n" -s $(( r + 1 )) -R "$r/$k" "$work/traces/omplens-app-r$r-$(( 4242 + r )).trace" >/dev/null
  done
  run all
  all=$wall
  outliers=$(grep -c '"measure"' "$work/out/findings.json" || true)
  run "1 CPU" taskset -c 0
  echo "$k ranks: $(du -sh "$work/traces" | cut -f1) of traces, $outliers outlier entries;" \
       "speedup of all CPUs over one: $(echo "$wall / $all" | bc -l | cut -c1-4)x"
done
