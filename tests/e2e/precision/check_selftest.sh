#!/usr/bin/env bash
# The consistency checker on hand-made findings.json files: each bad_*.json
# is ok_consistent.json with one figure changed and must fail (exit 1) with
# the line below, which names both numbers; each ok_*.json must pass quietly.
# usage: check_selftest.sh CONSISTENCY_CHECK SELFTEST_DIR
set -uo pipefail
check=$1 dir=$2
failures=0

expect() { # FILE STATUS TEXT: run the checker on FILE, want STATUS and TEXT in its output
  local out status
  out=$("$check" "$dir/$1" 2>&1); status=$?
  if [ "$status" != "$2" ]; then
    echo "FAIL: $1: exit status $status, expected $2"; echo "$out"; failures=$((failures + 1))
  elif [ -n "$3" ] && ! grep -qF -- "$3" <<<"$out"; then
    echo "FAIL: $1: expected a line with: $3"; echo "got: $out"; failures=$((failures + 1))
  elif [ -z "$3" ] && [ -n "$out" ]; then
    echo "FAIL: $1: expected no output, got: $out"; failures=$((failures + 1))
  fi
}

expect ok_consistent.json 0 ""
expect ok_omitted.json 0 ""   # an overlap in a finding that lists only some instances
expect ok_fixes.json 0 ""     # schema 6: fixes listed once, named by their place
expect bad_overlap.json 1 "event 5 is an instance of finding #0 duplicate-transfer a.c:10 and of finding #1 round-trip a.c:12"
expect bad_overlap_columns.json 1 "event 5 is an instance of finding #0 duplicate-transfer a.c:10 and of finding #1 round-trip a.c:12"   # schema 5
expect bad_savings.json 1 "findings' savings_ns add up to 1299, but totals.savings_ns is 1399"
expect bad_operations.json 1 "wasteful operations (totals.counts) 5, more than transfers + allocations 2"
expect bad_bytes.json 1 "bytes of the transfer categories 3072, more than totals.transfer_bytes 1000"
expect bad_fix.json 1 "a fix's predicted_savings_ns 1200, more than fixing every finding (totals.predicted_savings_ns) 1000"
expect bad_fix_ref.json 1 "a finding names fix 2, but the fixes listed are 2"
expect bad_totals.json 1 "totals.counts.round-trip 2, but its findings count 1"
expect missing.json 2 "consistency_check: $dir/missing.json"

[ "$failures" = 0 ] || exit 1
echo "ok: consistency_check passes 3 consistent files and fails 9 bad ones as expected"
