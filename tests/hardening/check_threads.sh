#!/usr/bin/env bash
# Concurrency: threads.c launches target regions from 8 host threads at once
# and through `target nowait`. The copies recorded must be exactly those that
# libomptarget prints (tests/e2e/crosscheck.sh), and every event of every
# thread must be there, in every one of RUNS runs.
# usage: check_threads.sh OMPLENS CROSSCHECK BINARY WORKDIR
set -euo pipefail
omplens=$1 crosscheck=$2 bin=$3 work=$4
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work"

RUNS=3
# threads.c: 8 threads x 4 rounds + 4 chains x 4 nowait targets, one of each
# kind per target.
EXPECTED="alloc 48 h2d 48 kernel 48 d2h 48 delete 48"

"$crosscheck" "$omplens" "$bin" "$work/crosscheck" || fail "copies differ from LIBOMPTARGET_INFO=32"
for run in $(seq 1 "$RUNS"); do
  out=$work/run$run
  status=0
  "$omplens" run -q -o "$out" -- "$bin" >"$out.stdout" 2>"$out.stderr" || status=$?
  expect_eq "run $run: exit status" 0 "$status"
  expect_eq "run $run: program output" "threads: ok" "$(cat "$out.stdout")"
  trace=$(one_trace "$out/traces") || { fail "run $run: no single trace"; continue; }
  expect_eq "run $run: events per kind" "$EXPECTED" "$(count_kinds "$omplens" "$trace")"
  # The 8 threads of the parallel region each record their own kernels.
  threads=$("$omplens" dump "$trace" | awk -F'\t' '$3 == "kernel" { t[$12] = 1 } END { print length(t) }')
  [ "$threads" -ge 8 ] || fail "run $run: kernels recorded by $threads host threads, expected at least 8"
  "$omplens" dump "$trace" >/dev/null 2>"$out.damage"
  expect_eq "run $run: damage reported by dump" "" "$(cat "$out.damage")"
done
finish "threads: $RUNS runs, copies match LIBOMPTARGET_INFO, $EXPECTED"
