#!/usr/bin/env bash
# Host waits: waits.c runs a synchronous target and a `target nowait` that
# overlaps host work, 4 times each. In findings.json the synchronous
# directive's host wait is the sum of its regions' own durations in the
# trace (the region slices of timeline.json, each with host_wait_ns equal
# to its duration), at least its kernels' time; the nowait directive's is
# zero and its slices carry no host_wait_ns. The totals add the
# directives' waits; summary, report.md and report.html show them.
# usage: waits.sh OMPLENS JSON_GET CC SOURCE WORKDIR
set -uo pipefail
. "$(dirname "$0")/offload_case.sh"
offload_case waits "$@"
"$omplens" run -q -o run -- ./waits >/dev/null 2>run.err || { cat run.err; exit 1; }
sync_line=$(grep -n '/\* SYNC \*/' "$src" | cut -d: -f1)
nowait_line=$(grep -n '/\* NOWAIT \*/' "$src" | cut -d: -f1)
json=run/findings.json tl=run/timeline.json

# Per directive line: "LINE WAITS WAIT_NS KERNEL_NS"; and the waits' sum.
n=$("$json_get" "$json" processes.0.directives.#) || n=0
sum=0
for ((i = 0; i < n; i++)); do
  d=processes.0.directives.$i
  w=$("$json_get" "$json" "$d.profile.host_waits.ns")
  sum=$((sum + w))
  echo "$("$json_get" "$json" "$d.location.line")" "$("$json_get" "$json" "$d.profile.host_waits.count")" \
    "$w" "$("$json_get" "$json" "$d.profile.kernels.ns")"
done >profile.txt
# Per region slice of the timeline: "LINE DUR_NS HOST_WAIT_NS|-" (dur is
# in microseconds with three decimals: exact nanoseconds).
m=$("$json_get" "$tl" traceEvents.#)
for ((i = 0; i < m; i++)); do
  e=traceEvents.$i
  [ "$("$json_get" "$tl" "$e.cat" 2>/dev/null)" = region ] || continue
  dir=$("$json_get" "$tl" "$e.args.directive")
  dur=$("$json_get" "$tl" "$e.dur")
  wait=$("$json_get" "$tl" "$e.args.host_wait_ns" 2>/dev/null) || wait=-
  echo "${dir##*:}" "$(awk -v d="$dur" 'BEGIN { printf "%.0f", d * 1000 }')" "$wait"
done >slices.txt

read -r _ s_count s_wait s_kernel < <(grep "^$sync_line " profile.txt)
read -r _ n_count n_wait n_kernel < <(grep "^$nowait_line " profile.txt)
s_dur=$(awk -v l="$sync_line" '$1 == l { s += $2 } END { print s + 0 }' slices.txt)
[ "${s_count:-}" = 4 ] || fail "synchronous directive: ${s_count:-no} waits, expected 4"
[ "${s_wait:-0}" = "$s_dur" ] && [ "$s_dur" -gt 0 ] ||
  fail "synchronous directive waited ${s_wait:-?} ns; its regions last $s_dur ns"
[ "${s_wait:-0}" -ge "${s_kernel:-1}" ] ||
  fail "synchronous directive waited ${s_wait:-?} ns, less than its kernels' ${s_kernel:-?} ns"
[ "${n_count:-x}" = 0 ] && [ "${n_wait:-x}" = 0 ] && [ "${n_kernel:-0}" -gt 0 ] ||
  fail "nowait directive: ${n_count:-?} waits of ${n_wait:-?} ns (kernels ${n_kernel:-?} ns), expected none"
awk -v l="$nowait_line" '$1 == l && $3 != "-" { bad = 1 } END { exit bad }' slices.txt ||
  fail "a nowait region's slice has host_wait_ns"
awk '$3 != "-" && $3 != $2 { bad = 1 } END { exit bad }' slices.txt ||
  fail "a synchronous region's host_wait_ns is not its duration: $(tr '\n' ';' <slices.txt)"
total=$("$json_get" "$json" processes.0.totals.host_wait_ns)
[ "$total" = "$sum" ] || fail "totals.host_wait_ns $total, the directives' sum $sum"
nt=$("$json_get" "$json" processes.0.totals.host_waits_by_thread.#)
by_thread=0
for ((i = 0; i < nt; i++)); do
  by_thread=$((by_thread + $("$json_get" "$json" "processes.0.totals.host_waits_by_thread.$i.wait_ns")))
done
[ "$by_thread" = "$total" ] && [ "$nt" = 1 ] ||
  fail "host_waits_by_thread: $nt threads, $by_thread ns; expected 1 thread, $total ns"
grep -q '^  host waits .* in [0-9]* synchronous constructs$' run/summary.txt ||
  fail "summary.txt shows no host waits"
grep -q '| Host wait |' run/report.md && grep -q '^Host threads waited' run/report.md ||
  fail "report.md shows no host waits"
grep -q '>Host wait<' run/report.html || fail "report.html's profile has no Host wait column"

[ "$failed" = 0 ] && echo "waits: synchronous regions wait their duration, nowait ones not at all"
exit "$failed"
