#!/usr/bin/env bash
# `omplens report` on traces of real runs with many findings, next to the
# synthetic ones of bench/analysis.sh.
# usage: bench/real_traces.sh BUILD_DIR [ITERATIONS [DIRECTIVES [STEPS]]]
#        (defaults: 100000 iterations, 2000 directives, 50 steps)
#
# Builds four programs of bench/programs/ for host offload (clang-19
# -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O1) in a temporary
# directory and records each once with `omplens run`:
#   loop      loop_waste.c: one wasteful target region in a loop of
#             ITERATIONS (8 events an iteration, few findings, very many
#             instances);
#   many      many_directives.sh DIRECTIVES STEPS: that many distinct target
#             directives, each in its own function, called STEPS times
#             (round trip and reallocation findings on every directive);
#   items     many_items.sh 300 400: one target construct mapping 300
#             arrays in a loop of 400 steps (round trip and reallocation
#             findings on every item; 300 arguments an execution);
#   unused    many_items.sh 300 200 1: the same construct in a loop of 200
#             steps whose body uses only the first array: 299 items mapped
#             but never used, whose findings span the run (duplicate and
#             reallocation findings on every item), all removed by one
#             change;
#   units     only when UNITS (environment) is set: many_units.sh UNITS 5,
#             a program of UNITS compile units of one directive each, called
#             5 times from main.c (the costs that grow with the files; 2000
#             units take about 3 minutes to build and a few more to record,
#             as the recording's report parses every unit). Its figures are
#             per unit, not held to the per-event targets.
# Then, RUNS times each (environment, default 3; median wall time),
#   omplens report -q -o TMP --outputs summary TRACE   (summary only)
#   omplens report -q -o TMP TRACE                     (every output)
# under /usr/bin/time -v, and prints the ratio full/summary (target <= 5
# on the loop trace), events per second of the full report (target >= 1M;
# also its CPU time, user + system of all threads, which other load on the
# machine disturbs less) and its peak RSS per event (target <= 100 B; the
# larger of the report and its parse helpers, which hold libclang, 50-60
# MB for these programs, a fixed cost that shows on small traces), with
# the same on a second report into the same directory (libclang's parse
# cache warm: no helper starts).
set -euo pipefail
RUNS=${RUNS:-3}
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [ITERATIONS [DIRECTIVES]]" >&2
  exit 64
fi
build=$(cd "$1" && pwd)
iters=${2:-100000}
ndir=${3:-2000}
steps=${4:-50}
here=$(cd "$(dirname "$0")" && pwd)
omplens=$build/bin/omplens
walltime=$build/bench/walltime
for f in "$omplens" "$walltime" "$build/bench/trace_stats"; do
  if [ ! -x "$f" ]; then
    echo "$0: $f is missing: build first (cmake --build $build)" >&2
    exit 66
  fi
done
if [ ! -x /usr/bin/time ]; then
  echo "$0: /usr/bin/time is missing: apt-get install time" >&2
  exit 66
fi
cc=${CC_OFFLOAD:-clang-19}
export LD_LIBRARY_PATH=/usr/lib/llvm-19/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "# command: $0 $build $iters $ndir $steps"
echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: nproc $(nproc)," \
  "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1);" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v n="$(nproc)" '{ if ($1 > n / 4) printf "# WARNING: load average %s on %d CPUs before the run: other work competes, figures are unreliable\n", $1, n }' /proc/loadavg

flags=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O1)
cp "$here/programs/loop_waste.c" "$work/loop.c"
"$here/programs/many_directives.sh" "$ndir" "$steps" >"$work/many.c"
"$here/programs/many_items.sh" 300 400 >"$work/items.c"
"$here/programs/many_items.sh" 300 200 1 >"$work/unused.c"
echo "# building the programs (the one with $ndir directives takes a minute or two)"
(cd "$work" && "$cc" "${flags[@]}" loop.c -o loop && "$cc" "${flags[@]}" many.c -o many &&
  "$cc" "${flags[@]}" items.c -o items && "$cc" "${flags[@]}" unused.c -o unused)

# One report: prints "WALL_NS CPU_NS PEAK_KB".
measure() {
  local out=$1
  shift
  local times
  times=$("$walltime" /usr/bin/time -v -o "$work/time.txt" "$omplens" report -q -o "$out" "$@")
  echo "$times $(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$work/time.txt")"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# one NAME [ARGS...]: records ./NAME ARGS and measures its reports. With
# UNITS_OF set (the units trace), figures per compile unit are printed
# instead of the per-event targets, which a trace of 25 events a unit
# does not speak to.
one() {
  local name=$1
  shift
  echo
  echo "## $name: omplens run -q -o REC --outputs summary -- ./$name $*"
  (cd "$work" && "$omplens" run -q -o "rec-$name" --outputs summary -- "./$name" "$@" >/dev/null)
  local trace events
  trace=$(ls "$work/rec-$name"/traces/*/*.trace)
  events=$("$build/bench/trace_stats" "$trace" | awk 'NR == 2 { print $1 }')
  echo "  trace: $(stat -c %s "$trace") bytes, $events events"
  local s=() f=() w=() fc=() wc=() fkb=0 wkb=0 r x
  for ((i = 0; i < RUNS; i++)); do
    rm -rf "$work/o-s" "$work/o-f"
    r=$(measure "$work/o-s" --outputs summary "$trace")
    s+=("${r%% *}")
    r=$(measure "$work/o-f" "$trace")
    read -r x fc[i] _ <<<"$r"
    f+=("$x")
    [ "${r##* }" -le "$fkb" ] || fkb=${r##* }
    r=$(measure "$work/o-f" "$trace") # the same directory again: the parse cache is warm
    read -r x wc[i] _ <<<"$r"
    w+=("$x")
    [ "${r##* }" -le "$wkb" ] || wkb=${r##* }
  done
  local ms mf mw mfc mwc
  ms=$(printf '%s\n' "${s[@]}" | median)
  mf=$(printf '%s\n' "${f[@]}" | median)
  mw=$(printf '%s\n' "${w[@]}" | median)
  mfc=$(printf '%s\n' "${fc[@]}" | median)
  mwc=$(printf '%s\n' "${wc[@]}" | median)
  echo "  summary only (s): $(printf '%s\n' "${s[@]}" | awk '{ printf "%.3f ", $1 / 1e9 }')"
  echo "  full report (s):  $(printf '%s\n' "${f[@]}" | awk '{ printf "%.3f ", $1 / 1e9 }')"
  echo "  again, same -o (s): $(printf '%s\n' "${w[@]}" | awk '{ printf "%.3f ", $1 / 1e9 }')"
  awk -v n="$events" -v s="$ms" -v f="$mf" -v w="$mw" -v fkb="$fkb" -v wkb="$wkb" \
      -v fc="$mfc" -v wc="$mwc" -v u="${UNITS_OF:-0}" 'BEGIN {
    if (u > 0) {
      printf "  per compile unit (%d): full report %.2f ms; again, same -o, %.3f ms\n",
             u, f / 1e6 / u, w / 1e6 / u
      printf "  CPU time of the full report (median): %.3f s; again: %.3f s\n", fc / 1e9, wc / 1e9
      printf "  peak RSS: %.1f MB; again: %.1f MB (%.1f KB a unit)\n", fkb / 1024, wkb / 1024, wkb / u
      exit
    }
    printf "  full / summary: %.2f (target <= 5): %s\n", f / s, (f / s <= 5 ? "met" : "MISSED")
    printf "  full report: %.2f M events/s (target >= 1M): %s; again: %.2f M events/s\n",
           n / (f / 1e9) / 1e6, (n / (f / 1e9) >= 1e6 ? "met" : "MISSED"), n / (w / 1e9) / 1e6
    printf "  CPU time of the full report (median): %.3f s; again: %.3f s\n", fc / 1e9, wc / 1e9
    printf "  peak RSS: %.1f MB, %.1f B/event; again: %.1f MB, %.1f B/event (target <= 100)\n",
           fkb / 1024, fkb * 1024 / n, wkb / 1024, wkb * 1024 / n
  }'
  ls -l "$work/o-f" | awk 'NR > 1 && $5 > 0 { printf "    %-16s %12d bytes\n", $9, $5 }'
}

one loop "$iters"
one many
one items
one unused
if [ -n "${UNITS:-}" ]; then
  echo
  echo "# building the program of $UNITS compile units"
  "$here/programs/many_units.sh" "$work/units-src" "$UNITS" 5
  (cd "$work/units-src" &&
    ls ./*.c | xargs -P "$(nproc)" -I{} "$cc" "${flags[@]}" -c {} -o {}.o &&
    "$cc" "${flags[@]}" ./*.o -o "$work/units")
  UNITS_OF=$UNITS one units
fi
echo "# load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
