#!/usr/bin/env bash
# report --window: window.c re-sends `setup` in a set-up phase and `work` in
# the main phase, with a pause between. A window from the pause on finds
# the main phase's duplicates and not the set-up's, says so in the
# summary, and counts only its events; no window finds both.
# usage: window.sh OMPLENS JSON_GET CC SOURCE WORKDIR
set -uo pipefail
. "$(dirname "$0")/offload_case.sh"
offload_case window "$@"
"$omplens" run -q -o run -- ./window >/dev/null 2>run.err || { cat run.err; exit 1; }
trace=$(ls run/traces/*/*.trace)
setup_line=$(grep -n '/\* SETUP \*/' "$src" | cut -d: -f1)
main_line=$(grep -n '/\* MAIN \*/' "$src" | cut -d: -f1)

# The window starts in the middle of the longest pause between two events.
start=$("$omplens" dump "$trace" | awk -F'\t' '!/^#/ {
  if (n++ && $1 - prev > gap) { gap = $1 - prev; mid = (prev + $1) / 2 } prev = $1 }
  END { printf "%.6f", mid / 1e9 }')

# "LINE CATEGORY COUNT" of each finding of a report.
findings() {
  local json=$1/findings.json n
  n=$("$json_get" "$json" processes.0.findings.#)
  for i in $(seq 0 $((n - 1))); do
    echo "$("$json_get" "$json" "processes.0.findings.$i.location.line")" \
         "$("$json_get" "$json" "processes.0.findings.$i.category")" \
         "$("$json_get" "$json" "processes.0.findings.$i.count")"
  done
}

"$omplens" report -q -o all "$trace" || fail "report without a window failed"
"$omplens" report -q -o main --window "$start:" "$trace" || fail "report --window $start: failed"
findings all >all.txt
findings main >main.txt
grep -qx "$setup_line duplicate-transfer 3" all.txt || fail "no window: the set-up's duplicates are missing"
grep -qx "$main_line duplicate-transfer 3" all.txt || fail "no window: the main phase's duplicates are missing"
! grep -q "^$setup_line " main.txt || fail "window $start:: a finding of the set-up phase"
grep -qx "$main_line duplicate-transfer 3" main.txt || fail "window $start:: the main phase's duplicates are missing"
grep -q "^  window $(printf '%.3f' "$start")-[0-9.]* s of [0-9.]* s$" main/summary.txt ||
  fail "the summary does not name the window: $(sed -n 2p main/summary.txt)"
! grep -q "^  window " all/summary.txt || fail "a window line without --window"
# The devices: their types, and the one the program used.
grep -Eq "devices? \([^)]*generic-64bit[^)]*\), 1 used: device 0$" all/summary.txt ||
  fail "the summary does not say which device was used: $(head -1 all/summary.txt)"
# findings.json says the same: the devices used, and the window.
[ "$("$json_get" all/findings.json processes.0.devices_used.#)" = 1 ] &&
  [ "$("$json_get" all/findings.json processes.0.devices_used.0)" = 0 ] ||
  fail "findings.json does not list device 0 alone as used"
[ -z "$("$json_get" all/findings.json processes.0.window.begin_ns 2>/dev/null)" ] ||
  fail "findings.json names a window without --window"
begin_ns=$("$json_get" main/findings.json processes.0.window.begin_ns)
[ -n "$begin_ns" ] && awk -v b="$begin_ns" -v s="$start" 'BEGIN { exit !(b > s * 1e9 - 1e6 && b < s * 1e9 + 1e6) }' ||
  fail "findings.json's window begins at '$begin_ns' ns, not at $start s"
# Totals count only the window's events: the main phase's 5 transfers.
all_n=$("$json_get" all/findings.json processes.0.totals.transfers)
main_n=$("$json_get" main/findings.json processes.0.totals.transfers)
[ "$all_n" = 9 ] && [ "$main_n" = 5 ] ||
  fail "transfers: $all_n without a window (expected 9), $main_n in it (expected 5)"
# A window before the main phase: the set-up's findings only.
"$omplens" report -q -o setup --window ":$start" "$trace" || fail "report --window :$start failed"
findings setup >setup.txt
grep -qx "$setup_line duplicate-transfer 3" setup.txt && ! grep -q "^$main_line " setup.txt ||
  fail "window :$start: expected the set-up's findings only, got: $(tr '\n' ';' <setup.txt)"
# `run`'s output directory stands for its latest run's traces, as in diff.
"$omplens" report -q -o fromrun run || fail "report of run's output directory failed"
findings fromrun >fromrun.txt
cmp -s all.txt fromrun.txt || fail "report of run's output directory: other findings than its trace's"

[ "$failed" = 0 ] && echo "window: findings, totals and summary of the window as expected"
exit "$failed"
