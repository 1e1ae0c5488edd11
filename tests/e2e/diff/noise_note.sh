#!/bin/sh
# `omplens diff` of two runs whose same kernels took very different times
# (host offload on a shared machine): the diff says the measured speedup
# is that uncertain. BEFORE is a recorded run's findings.json, AFTER the
# same with its kernel time ten times as long.
# usage: noise_note.sh OMPLENS BINARY WORKDIR
set -eu
omplens=$1 bin=$2 work=$3
fail() {
  echo "FAIL: $*" >&2
  cat "$work/diff.txt" >&2 2>/dev/null || true
  exit 1
}
rm -rf "$work" && mkdir -p "$work/before" "$work/after"
"$omplens" run -q -o "$work/rec" -- "$bin" >/dev/null || fail "omplens run failed"
cp "$work/rec/findings.json" "$work/before/findings.json"
sed -E 's/"kernel_ns": ([1-9][0-9]*)/"kernel_ns": \10/' "$work/rec/findings.json" \
  >"$work/after/findings.json"
"$omplens" diff "$work/before" "$work/after" >"$work/diff.txt" || fail "diff failed"
grep -E '^  note: the same [0-9]+ kernels took \+900% time in AFTER' "$work/diff.txt" >/dev/null ||
  fail "no note on the kernels' time"
"$omplens" diff "$work/before" "$work/before" >"$work/same.txt" || fail "diff failed"
! grep -F 'note: the same' "$work/same.txt" || fail "a note where nothing moved"
echo "ok: $(grep -F 'note: the same' "$work/diff.txt")"
