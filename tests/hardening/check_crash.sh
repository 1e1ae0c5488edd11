#!/usr/bin/env bash
# Crashes: crash.c dies (abort, segfault or _exit) after 3 target regions.
# The trace it leaves must be readable by `omplens report`, marked
# incomplete, and hold every event recorded before the crash.
# usage: check_crash.sh OMPLENS JSON_GET BINARY MODE EXPECTED_STATUS WORKDIR
set -euo pipefail
omplens=$1 json_get=$2 bin=$3 mode=$4 want_status=$5 work=$6
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work"
ulimit -c 0 # no core file: faster, and nothing left behind

status=0
"$omplens" run -q -o "$work/run" -- "$bin" "$mode" >"$work/run.stdout" 2>"$work/run.stderr" || status=$?
expect_eq "omplens run exit status (the program's, 128+signal when killed)" "$want_status" "$status"
expect_eq "program output before the crash" "crash: $mode after 3 regions" "$(cat "$work/run.stdout")"
if [ "$want_status" -ge 128 ]; then
  expect_match "run says the program was killed" "^omplens: .* was killed by signal $((want_status - 128))" "$work/run.stderr"
fi
expect_eq "run's findings.json: program_exit_status" "$want_status" \
  "$("$json_get" "$work/run/findings.json" program_exit_status)"
expect_eq "run's findings.json: complete" false "$("$json_get" "$work/run/findings.json" processes.0.complete)"

trace=$(one_trace "$work/run/traces") || { fail "no single trace"; finish "crash $mode"; }
status=0
"$omplens" report -o "$work/report" "$trace" >"$work/report.stdout" 2>"$work/report.stderr" || status=$?
expect_eq "omplens report exit status" 0 "$status"
expect_eq "omplens report stderr" "" "$(cat "$work/report.stderr")"
expect_match "summary on stdout" "TRACE INCOMPLETE" "$work/report.stdout"
expect_match "summary.txt" "TRACE INCOMPLETE" "$work/report/summary.txt"
json=$work/report/findings.json
expect_eq "findings.json: processes" 1 "$("$json_get" "$json" processes.#)"
expect_eq "findings.json: complete" false "$("$json_get" "$json" processes.0.complete)"
"$json_get" "$json" processes.0.damage >"$work/damage.json"
expect_match "findings.json: damage" "trace incomplete" "$work/damage.json"
expect_eq "events recorded before the crash" "alloc 3 h2d 3 kernel 3 d2h 3 delete 3" \
  "$(count_kinds "$omplens" "$trace")"
finish "crash $mode: exit $want_status, incomplete trace with all 15 events reported"
