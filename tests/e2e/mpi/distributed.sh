#!/usr/bin/env bash
# The distributed report: a real 16-rank Open MPI job profiled with
# `omplens run -- mpirun -np 16`, then reported three ways on its 16 traces:
#   single:   omplens report              (one process, one trace at a time)
#   at once:  OMPLENS_REPORT_AT_ONCE=1    (one process, every trace loaded)
#   dist:     mpirun -np 4 omplens report (4 processes, parts sent to rank 0)
# Every output must be the same bytes all three ways (findings.json,
# summary.txt, report.md, report.html, findings.sarif, timeline.json,
# fixes.patch, and the summary printed), each of the 4 ranks must have
# reduced traces, and an unreadable 17th trace must fail the distributed
# report as it fails the single one: its error line once, its exit code.
# Then the same three ways (with 3 processes) on the traces of four
# different example programs, whose fixes.patch holds diffs.
# usage: distributed.sh OMPLENS CC SOURCE WORKDIR EXAMPLES_DIR
set -euo pipefail
omplens=$1 cc=$2 src=$3 work=$4 examples=$5
plugin=$(dirname "$omplens")/../lib/libomplens-mpi.so
if [ ! -f "$plugin" ]; then
  echo "SKIP: $plugin was not built (CMake found no MPI)"
  exit 77
fi
. "$(dirname "$0")/mpi_case.sh"
mpi_case "$cc" "$src" "$work"
# Under AddressSanitizer (the CI's second pass), omplens inside mpirun loads
# Open MPI, whose components leak and are unloaded at MPI_Finalize, so that
# LeakSanitizer cannot even name them: leaks are not checked there (they
# are in the reports of one process). Ignored by builds without ASan.
mpi_asan=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

"$omplens" run -q -o "$work/job" -- mpirun --oversubscribe -np 16 "$work/mpi_ranks" 2 \
  >"$work/job.out" 2>"$work/job.err" || { cat "$work/job.err"; fail "the 16-rank job failed"; }
traces=$(echo "$work"/job/traces/*/)
expect "traces of the job" 16 "$(find "$traces" -name '*.trace' | wc -l)"

# Each way prints its summary; the output directory's name is the only
# difference allowed in what it prints.
report() { # report NAME TRACES [PREFIX...]
  local name=$1 dir=$2; shift 2
  "$@" "$omplens" report -o "$work/$name" "$dir" >"$work/$name.out" 2>"$work/$name.err" ||
    { cat "$work/$name.err"; fail "$name report failed"; }
  sed "s#$work/$name#OUT#g" "$work/$name.out" >"$work/$name.summary"
}
same_reports() { # same_reports SINGLE OTHER...
  local single=$1 way f; shift
  for way in "$@"; do
    for f in findings.json summary.txt report.md report.html findings.sarif timeline.json fixes.patch; do
      [ -f "$work/$single/$f" ] || fail "$single: no $f"
      cmp -s "$work/$single/$f" "$work/$way/$f" || fail "$way: $f differs from the $single report's"
    done
    cmp -s "$work/$single.summary" "$work/$way.summary" || fail "$way: the printed summary differs"
  done
}
report single "$traces"
report once "$traces" env OMPLENS_REPORT_AT_ONCE=1
report dist "$traces" env OMPLENS_STAGE_TIMES=1 ASAN_OPTIONS="$mpi_asan" mpirun --oversubscribe -np 4
same_reports single once dist
grep -q "on 16 of 16 ranks" "$work/single/summary.txt" || fail "no finding merged over 16 ranks"

# Every rank of the distributed report reduced traces (its stage line).
ranks=$(grep -oE "rank [0-9]+ of 4 reduces [1-9][0-9]* traces" "$work/dist.err" | sort -u | wc -l)
expect "ranks that reduced traces" 4 "$ranks"

# An unreadable trace: the same error line and exit code both ways.
bad=$work/bad
mkdir -p "$bad"
cp "$traces"/*.trace "$bad/"
head -c 100 /dev/urandom >"$bad/omplens-mpi_ranks-r99-1.trace"
set +e
"$omplens" report -q -o "$work/bad-single" "$bad" 2>"$work/bad-single.err"
single_rc=$?
ASAN_OPTIONS="$mpi_asan" mpirun --oversubscribe -np 4 "$omplens" report -q -o "$work/bad-dist" "$bad" \
  2>"$work/bad-dist.err"
dist_rc=$?
set -e
expect "exit code of a report with an unreadable trace" 65 "$single_rc"
expect "exit code of the distributed one" 65 "$dist_rc"
expect "its error lines" 1 "$(grep -c '^omplens: cannot read trace .*r99-1.trace' "$work/bad-dist.err")"
expect "omplens lines of the distributed report" 1 "$(grep -c '^omplens:' "$work/bad-dist.err")"

# Four programs' traces, with fixes: the patch and its command too.
mixed=$work/mixed
mkdir -p "$mixed"
for e in jacobi-O0 dup_resend-O2 round_trip-O0 repeated_alloc-O2; do
  "$omplens" run -q -o "$work/run-$e" -- "$examples/$e" >/dev/null 2>&1 ||
    fail "$e did not run under omplens"
  cp "$work/run-$e"/traces/*/*.trace "$mixed/"
done
report mixed-single "$mixed"
report mixed-once "$mixed" env OMPLENS_REPORT_AT_ONCE=1
report mixed-dist "$mixed" env ASAN_OPTIONS="$mpi_asan" mpirun --oversubscribe -np 3
same_reports mixed-single mixed-once mixed-dist
[ -s "$work/mixed-single/fixes.patch" ] || fail "the examples' fixes.patch is empty"
grep -q "apply the suggested changes" "$work/mixed-single.summary" || fail "no patch command printed"
echo "ok: 16 traces reported by 4 processes as by one, byte for byte; 4 programs' too"
