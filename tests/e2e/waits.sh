#!/usr/bin/env bash
# Host waits: waits.c runs, 4 times each, a synchronous target, a `target
# nowait` (OVERLAP) whose task is done long before its taskwait, and a
# `target nowait` (WAITED) whose taskwait follows at once. In findings.json
# the synchronous directive's host wait is the sum of its regions' own
# durations in the trace; OVERLAP's is zero; WAITED's is a deferred wait
# per taskwait that blocked (4, fewer on a loaded machine), each from the
# taskwait's begin to the end of a WAITED region, together at least half
# those regions' time. timeline.json draws each wait once, on
# its host thread's waits lane, with the same durations; the totals and
# the per-thread sums add up; summary, report.md and report.html show them.
# usage: waits.sh OMPLENS JSON_GET CC SOURCE WORKDIR
set -uo pipefail
. "$(dirname "$0")/offload_case.sh"
offload_case waits "$@"
"$omplens" run -q -o run -- ./waits >/dev/null 2>run.err || { cat run.err; exit 1; }
sync_line=$(grep -n '/\* SYNC \*/' "$src" | cut -d: -f1)
overlap_line=$(grep -n '/\* OVERLAP \*/' "$src" | cut -d: -f1)
waited_line=$(grep -n '/\* WAITED \*/' "$src" | cut -d: -f1)
json=run/findings.json tl=run/timeline.json

# Per directive line: "LINE WAITS WAIT_NS KERNEL_NS DEFERRED DEFERRED_NS"; and the waits' sum.
n=$("$json_get" "$json" processes.0.directives.#) || n=0
sum=0
for ((i = 0; i < n; i++)); do
  d=processes.0.directives.$i
  w=$("$json_get" "$json" "$d.profile.host_waits.ns")
  sum=$((sum + w))
  echo "$("$json_get" "$json" "$d.location.line")" "$("$json_get" "$json" "$d.profile.host_waits.count")" \
    "$w" "$("$json_get" "$json" "$d.profile.kernels.ns")" \
    "$("$json_get" "$json" "$d.profile.host_waits.deferred.count")" \
    "$("$json_get" "$json" "$d.profile.host_waits.deferred.ns")"
done >profile.txt
# Per region slice of the timeline: "region LINE DUR_NS HOST_WAIT_NS|- BEGIN_NS END_NS"; per
# wait slice: "wait LINE DUR_NS HOST_WAIT_NS CAT TID BEGIN_NS END_NS" (ts and dur are in
# microseconds with three decimals: exact nanoseconds).
m=$("$json_get" "$tl" traceEvents.#)
ns() { awk -v d="$1" 'BEGIN { printf "%.0f", d * 1000 }'; }
for ((i = 0; i < m; i++)); do
  e=traceEvents.$i
  cat=$("$json_get" "$tl" "$e.cat" 2>/dev/null) || continue
  case $cat in region | wait | wait,nowait) ;; *) continue ;; esac
  dir=$("$json_get" "$tl" "$e.args.directive")
  ts=$(ns "$("$json_get" "$tl" "$e.ts")") dur=$(ns "$("$json_get" "$tl" "$e.dur")")
  wait=$("$json_get" "$tl" "$e.args.host_wait_ns" 2>/dev/null) || wait=-
  if [ "$cat" = region ]; then
    echo region "${dir##*:}" "$dur" "$wait" "$ts" $((ts + dur))
  else
    echo wait "${dir##*:}" "$dur" "$wait" "$cat" "$("$json_get" "$tl" "$e.tid")" "$ts" $((ts + dur))
  fi
done >slices.txt

read -r _ s_count s_wait s_kernel s_deferred _ < <(grep "^$sync_line " profile.txt)
read -r _ o_count o_wait o_kernel _ < <(grep "^$overlap_line " profile.txt)
read -r _ w_count w_wait w_kernel w_deferred w_deferred_ns < <(grep "^$waited_line " profile.txt)
s_dur=$(awk -v l="$sync_line" '$1 == "region" && $2 == l { s += $3 } END { print s + 0 }' slices.txt)
w_dur=$(awk -v l="$waited_line" '$1 == "region" && $2 == l { s += $3 } END { print s + 0 }' slices.txt)
[ "${s_count:-}" = 4 ] && [ "${s_deferred:-}" = 0 ] || fail "synchronous directive: ${s_count:-no} waits, expected 4"
[ "${s_wait:-0}" = "$s_dur" ] && [ "$s_dur" -gt 0 ] ||
  fail "synchronous directive waited ${s_wait:-?} ns; its regions last $s_dur ns"
[ "${s_wait:-0}" -ge "${s_kernel:-1}" ] ||
  fail "synchronous directive waited ${s_wait:-?} ns, less than its kernels' ${s_kernel:-?} ns"
# OVERLAP: no wait, unless a loaded machine had not run its task by the
# taskwait; then no more than the program measured that taskwait block.
o_blocked=$(sed -n 's/^overlap taskwait ns //p' run.err)
[ "${o_kernel:-0}" -gt 0 ] && { { [ "${o_count:-x}" = 0 ] && [ "${o_wait:-x}" = 0 ]; } ||
  [ "${o_wait:-0}" -le "${o_blocked:-0}" ]; } ||
  fail "nowait directive overlapping host work: ${o_count:-?} waits of ${o_wait:-?} ns (kernels ${o_kernel:-?} ns, its taskwaits blocked ${o_blocked:-?} ns), expected none"
# WAITED: a deferred wait per step, unless a loaded machine ran the task to
# its end before the thread reached the taskwait (then that one did not
# block); at least one of the four blocks.
[ "${w_count:-0}" -ge 1 ] && [ "${w_count:-0}" -le 4 ] && [ "${w_deferred:-}" = "$w_count" ] &&
  [ "${w_deferred_ns:-0}" = "${w_wait:-x}" ] ||
  fail "waited-for nowait directive: ${w_count:-?} waits (${w_deferred:-?} deferred), expected 1 to 4, all deferred"
[ $((8 * ${w_wait:-0})) -ge $((w_dur * ${w_count:-0})) ] && [ "$w_dur" -gt 0 ] ||
  fail "waited-for nowait directive waited ${w_wait:-?} ns in ${w_count:-?} waits, not close to its regions' $w_dur ns"
awk '$1 == "region" && $4 != "-" && $4 != $3 { bad = 1 } END { exit bad }' slices.txt ||
  fail "a synchronous region's host_wait_ns is not its duration: $(tr '\n' ';' <slices.txt)"
awk -v l1="$overlap_line" -v l2="$waited_line" '$1 == "region" && ($2 == l1 || $2 == l2) && $4 != "-" { bad = 1 }
  END { exit bad }' slices.txt || fail "a nowait region's slice has host_wait_ns"
# The waits lane: a synchronous region's wait is its slice; a deferred wait
# ends where a WAITED region ends; durations as findings.json has them.
awk '$1 == "region" && $4 != "-" { r[$2 " " $5 " " $3]++ } $1 == "wait" && $5 == "wait" { w[$2 " " $7 " " $3]++ }
  END { for (k in r) if (r[k] != w[k]) bad = 1; for (k in w) if (r[k] != w[k]) bad = 1; exit bad }' slices.txt ||
  fail "the waits lane does not hold each synchronous region once: $(tr '\n' ';' <slices.txt)"
awk -v l="$waited_line" '$1 == "region" && $2 == l { e[$6] = 1 } $1 == "wait" && $5 == "wait,nowait" && $2 == l {
    n++; s += $3; if (!($8 in e) || $3 != $4) bad = 1 }
  END { print n + 0, s + 0; exit bad }' slices.txt >deferred.txt ||
  fail "a deferred wait does not end with a WAITED region: $(tr '\n' ';' <slices.txt)"
[ "$(cat deferred.txt)" = "${w_count:-x} ${w_deferred_ns:-x}" ] ||
  fail "timeline.json's deferred waits ($(cat deferred.txt)) are not findings.json's (${w_count:-?} ${w_deferred_ns:-?})"
[ "$(awk '$1 == "wait" { print $6 }' slices.txt | sort -u | wc -l)" = 1 ] ||
  fail "the waits are not on one lane"
total=$("$json_get" "$json" processes.0.totals.host_wait_ns)
[ "$total" = "$sum" ] || fail "totals.host_wait_ns $total, the directives' sum $sum"
deferred_total=$("$json_get" "$json" processes.0.totals.deferred_waits)
[ "$(awk '$1 == "wait" && $5 == "wait,nowait" { n++ } END { print n + 0 }' slices.txt)" = "$deferred_total" ] ||
  fail "timeline.json does not have totals.deferred_waits ($deferred_total) waits for nowait regions"
nt=$("$json_get" "$json" processes.0.totals.host_waits_by_thread.#)
by_thread=0
for ((i = 0; i < nt; i++)); do
  by_thread=$((by_thread + $("$json_get" "$json" "processes.0.totals.host_waits_by_thread.$i.wait_ns")))
done
[ "$by_thread" = "$total" ] && [ "$nt" = 1 ] ||
  fail "host_waits_by_thread: $nt threads, $by_thread ns; expected 1 thread, $total ns"
grep -q "^  host waits .* in [0-9]* synchronous constructs and $deferred_total waits for nowait ones (.*)$" run/summary.txt ||
  fail "summary.txt shows no host waits"
grep -q '| Host wait |' run/report.md && grep -q "^Host threads waited .* of it in $deferred_total waits for \`nowait\` ones" run/report.md ||
  fail "report.md shows no host waits"
grep -q '>Host wait<' run/report.html || fail "report.html's profile has no Host wait column"
grep -q 'class="key k-wait"></span>host wait' run/report.html || fail "report.html's timeline has no host wait in its legend"
"$omplens" dump run/traces/*/*.trace | grep -c '^#wait	.*	taskwait	' | grep -qx "$deferred_total" ||
  fail "omplens dump does not list the $deferred_total waits"

[ "$failed" = 0 ] && echo "waits: synchronous regions wait their duration, a nowait one overlapping host work not at all, one waited for until it ends"
exit "$failed"
