#!/usr/bin/env bash
# Analysis speed and memory of `omplens report` on synthetic traces.
# usage: bench/analysis.sh BUILD_DIR [EVENTS[c][r]...]
#        (default: 1000000 10000000 1000000c 1000000r)
#
# For each EVENTS: bench/gen_trace writes a deterministic trace (seed 1, 4
# threads, 4 devices, 30% of copies in with unchanged content) into a
# temporary directory (a trailing c adds gen_trace -c: the entry-call and
# map-argument records of a preloaded collector, omplens run's default; an r
# adds gen_trace -r: directives map random buffers, the stress mix with
# ~66,000 findings per million events); then
#   omplens report -q -o TMP TRACE
# runs RUNS times (environment, default 5; a fresh TMP each time) under
# /usr/bin/time -v (Debian package `time`) inside bench/walltime, and the
# script prints every run's wall and CPU time, then events per second (events /
# median wall time of the whole process) and the largest peak RSS in bytes
# per event. The median, because a shared VM's speed drifts between runs.
# Targets: >= 2M events/s, <= 100 bytes per event. bench/analysis_stages
# then repeats the work stage by stage (read, detect, annotate,
# findings.json, summary) to show where time and memory go. When `omplens
# report` fails (e.g. detectors unfinished), the failure is printed and
# what works is measured: read and detect, or read alone. The trace is in
# the page cache when it is read (it has just been written).
set -euo pipefail
RUNS=${RUNS:-5}

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [EVENTS[c]...]" >&2
  exit 64
fi
build=$(cd "$1" && pwd)
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000 1000000c 1000000r)
omplens=$build/bin/omplens
gen_trace=$build/bench/gen_trace
stages=$build/bench/analysis_stages
walltime=$build/bench/walltime
for f in "$omplens" "$gen_trace" "$stages" "$walltime"; do
  if [ ! -x "$f" ]; then
    echo "$0: $f is missing: build first (cmake --build $build)" >&2
    exit 66
  fi
done
if [ ! -x /usr/bin/time ]; then
  echo "$0: /usr/bin/time is missing: apt-get install time" >&2
  exit 66
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "# command: $0 $build ${sizes[*]}"
echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: nproc $(nproc)," \
  "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1);" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
# A busy machine makes every figure here unreliable: say so next to them.
awk -v n="$(nproc)" '{ if ($1 > n / 4) printf "# WARNING: load average %s on %d CPUs before the run: other work competes, figures are unreliable\n", $1, n }' /proc/loadavg

# Field of /usr/bin/time -v output, by its label.
time_field() {
  sed -n "s/^[[:space:]]*$1: //p" "$work/time.txt"
}

report_one() {
  local n=${1%%[cr]*} calls=() trace=$work/gen-$1.trace
  case $1 in *c*) calls+=(-c) ;; esac
  case $1 in *r*) calls+=(-r) ;; esac
  echo
  echo "## $n events: $gen_trace -n $n -s 1 -t 4 -d 4 -u 30 ${calls[*]:+${calls[*]} }TRACE"
  "$gen_trace" -n "$n" -s 1 -t 4 -d 4 -u 30 ${calls[@]+"${calls[@]}"} "$trace" >"$work/gen.txt"
  sed 's/^/  /' "$work/gen.txt"
  local events trace_bytes
  events=$(awk '/^events/ { print $2; exit }' "$work/gen.txt")
  trace_bytes=$(stat -c %s "$trace")
  echo "  omplens report -q -o TMP TRACE   (trace: $trace_bytes bytes; $RUNS runs)"
  local times ns status=0 walls=() cpus=() rss_kb=0 kb
  for ((run = 0; run < RUNS && status == 0; run++)); do
    rm -rf "$work/out" && mkdir "$work/out"
    times=$("$walltime" /usr/bin/time -v -o "$work/time.txt" "$omplens" report -q -o "$work/out" "$trace") ||
      status=$?
    walls+=("${times%% *}")
    cpus+=("${times##* }")
    kb=$(time_field 'Maximum resident set size (kbytes)')
    [ "$status" != 0 ] || [ "$kb" -le "$rss_kb" ] || rss_kb=$kb
  done
  ns=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{ w[NR] = $1 } END { print w[int((NR + 1) / 2)] }')
  echo "  wall times (s): $(printf '%s\n' "${walls[@]}" | awk '{ printf "%.3f ", $1 / 1e9 }')"
  # User + system time of all threads: how much of the wall time the two
  # CPUs were busy.
  echo "  CPU times (s):  $(printf '%s\n' "${cpus[@]}" | awk '{ printf "%.3f ", $1 / 1e9 }')"
  if [ "$status" != 0 ]; then
    echo "  omplens report FAILED with status $status:"
    "$omplens" report -q -o "$work/out" "$trace" 2>&1 | sed 's/^/    /' || true
    echo "  measuring what works (bench/analysis_stages -d, else -r):"
    { "$stages" -d "$trace" "$work/out" || "$stages" -r "$trace" "$work/out"; } 2>&1 | sed 's/^/    /'
    rm -f "$trace"
    return
  fi
  awk -v n="$events" -v ns="$ns" -v kb="$rss_kb" -v json="$(stat -c %s "$work/out/findings.json")" 'BEGIN {
    eps = n / (ns / 1e9); b = kb * 1024 / n
    printf "  median wall %.3f s, %.2f M events/s (target >= 2M): %s\n", ns / 1e9, eps / 1e6, (eps >= 2e6 ? "met" : "MISSED")
    printf "  peak RSS %.0f bytes, %.1f bytes/event (target <= 100): %s\n", kb * 1024, b, (b <= 100 ? "met" : "MISSED")
    printf "  findings.json %.0f bytes (%.1f bytes/event)\n", json, json / n
  }'
  echo "  stages (bench/analysis_stages TRACE TMP, one process):"
  "$stages" "$trace" "$work/out" | sed 's/^/    /'
  rm -f "$trace"
}

for n in "${sizes[@]}"; do
  report_one "$n"
done

echo "# load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
