#!/usr/bin/env bash
# How well the fixes' predicted speedup matches the speedup of the patched
# program (docs/fixes.md, "Predictions").
# usage: bench/fix_accuracy.sh BUILD_DIR [RUNS]
#
# For every example with findings: records BUILD_DIR/examples/NAME-O0 with
# omplens RECORDS times (default 3), takes the median prediction for all its
# fixes applied together (fix_driver --removed: the what-if model over the
# removed operations) and the merged patch (fix_driver --patch); builds the original and the patched
# source the same way (clang-19 host offload, -g -O0); then runs them
# interleaved (original, patched, original, ...) RUNS times each (default 7)
# after one warm-up each, and compares medians of whole-process wall time.
#
# Columns: run_ms and fixed_ms, the medians; measured, their ratio;
# predicted, the model's speedup of the recorded run; pred@run, the model's
# savings applied to the measured run (run / (run - savings)), which leaves
# out the collector's own overhead in the recorded run; err, pred@run against
# measured; saves, the measured share of run time saved. Target: |err| <=
# 15% where the fix saves >= 10%. It is a benchmark, not a test: it prints,
# and exits 0 unless something cannot be built or run.
# Environment: EXAMPLES (names, space-separated) picks examples; RECORDS the
# recordings per example; CC the compiler (default clang-19).
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 BUILD_DIR [RUNS]" >&2
  exit 64
fi
build=$(cd "$1" && pwd)
runs=${2:-7}
records=${RECORDS:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
cc=${CC:-clang-19}
llvm=${OMPLENS_LLVM_DIR:-/usr/lib/llvm-19}
examples=${EXAMPLES:-dup_resend round_trip repeated_alloc unused_alloc unused_transfer dup_content jacobi mapped_unused}
omplens=$build/bin/omplens
driver=$build/tests/e2e/fixes/fix_driver
[ -x "$driver" ] || driver=$(find "$build" -name fix_driver -type f -perm -u+x 2>/dev/null | head -1)
for f in "$omplens" "$driver"; do
  if [ ! -x "$f" ]; then
    echo "$0: ${f:-fix_driver} is missing: build first (cmake --build $1)" >&2
    exit 66
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
walltime=$build/bench/walltime
if [ ! -x "$walltime" ]; then # bench/ may not be built: this one is standalone
  walltime=$work/walltime
  cc -O2 -o "$walltime" "$src/bench/walltime.c"
fi
cflags=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O0 "-Wl,-rpath,$llvm/lib")

echo "# command: ${EXAMPLES:+EXAMPLES='$EXAMPLES' }$0 $build $runs"
echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: nproc $(nproc)," \
  "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1);" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v n="$(nproc)" '{ if ($1 > n / 4) printf "# WARNING: load average %s on %d CPUs: figures are unreliable\n", $1, n }' /proc/loadavg
echo "# $runs interleaved runs each after one warm-up; medians of whole-process wall time;" \
  "predictions: median of $records recordings"
printf '%-16s %5s %9s %9s %9s %9s %9s %8s %7s  %s\n' example fixes run_ms fixed_ms measured \
  predicted pred@run err saves target

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for name in $examples; do
  bin=$build/examples/$name-O0
  if [ ! -x "$bin" ]; then
    echo "$0: $bin is missing" >&2
    exit 66
  fi
  dir=$work/$name
  mkdir -p "$dir/orig" "$dir/fixed"
  # The prediction of one recording moves with the machine's noise: take
  # the median over several (the patch is the same every time).
  : >"$dir/predictions"
  for r in $(seq "$records"); do
    "$omplens" run -q -o "$dir/rec$r" -- "$bin" >/dev/null
    trace=$(ls -d "$dir/rec$r"/traces/*/)
    "$driver" --removed "$trace" >>"$dir/predictions"
  done
  savings=$(cut -d' ' -f2 "$dir/predictions" | median)
  predicted=$(cut -d' ' -f4 "$dir/predictions" | median)
  "$driver" --base "$src/examples" --patch "$trace" >"$dir/fix.patch" || true
  fixes=$(grep -c '^@@' "$dir/fix.patch" || true)
  cp "$src/examples/$name.c" "$dir/orig/$name.c"
  cp "$src/examples/$name.c" "$dir/fixed/$name.c"
  patch -s -d "$dir/fixed" -p1 --fuzz=0 <"$dir/fix.patch"
  "$cc" "${cflags[@]}" "$dir/orig/$name.c" -o "$dir/orig/$name"
  "$cc" "${cflags[@]}" "$dir/fixed/$name.c" -o "$dir/fixed/$name"
  "$walltime" "$dir/orig/$name" >/dev/null
  "$walltime" "$dir/fixed/$name" >/dev/null
  : >"$dir/orig.times"
  : >"$dir/fixed.times"
  for _ in $(seq "$runs"); do
    "$walltime" "$dir/orig/$name" | cut -d' ' -f1 >>"$dir/orig.times"
    "$walltime" "$dir/fixed/$name" | cut -d' ' -f1 >>"$dir/fixed.times"
  done
  orig=$(median <"$dir/orig.times")
  fixed=$(median <"$dir/fixed.times")
  awk -v n="$name" -v f="$fixes" -v o="$orig" -v p="$fixed" -v s="$savings" -v pr="$predicted" 'BEGIN {
    meas = o / p
    at = (o > s) ? o / (o - s) : 0
    err = at ? (at - meas) / meas * 100 : 0
    saves = (o - p) / o * 100
    target = saves >= 10 ? ((err <= 15 && err >= -15) ? "ok" : "MISSED") : "-"
    printf "%-16s %5d %9.1f %9.1f %9.3f %9.3f %9.3f %7.1f%% %6.1f%%  %s\n", n, f, o / 1e6, p / 1e6,
           meas, pr, at, err, saves, target
  }'
done
