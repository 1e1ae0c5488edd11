#!/usr/bin/env bash
# Regions of interest: pause.c pauses the tool with omp_control_tool around
# a set-up loop and starts it again for a measured loop. Under omplens only
# the measured loop is analysed: its copies and kernels per directive equal
# what LIBOMPTARGET_INFO=33 prints after the program's marker line, the
# set-up's duplicates are not found, and the trace, the summary,
# report.md, report.html and findings.json say that the program paused
# omplens. The program's output and exit status are those of a run without
# omplens; omp_control_tool answers 0 (success) with omplens, -2 (no tool)
# without.
# usage: pause.sh OMPLENS JSON_GET CC SOURCE WORKDIR
set -uo pipefail
. "$(dirname "$0")/offload_case.sh"
offload_case pause "$@"
setup_line=$(grep -n '/\* SETUP \*/' "$src" | cut -d: -f1)
measured_line=$(grep -n '/\* MEASURED \*/' "$src" | cut -d: -f1)

LD_LIBRARY_PATH=/usr/lib/llvm-19/lib ./pause >plain.out 2>plain.err
plain_rc=$?
LIBOMPTARGET_INFO=33 "$omplens" run -q -o run -- ./pause >run.out 2>run.err
run_rc=$?
[ "$plain_rc" = "$run_rc" ] || fail "exit status $run_rc under omplens, $plain_rc without"
cmp -s plain.out run.out || fail "the program's output differs under omplens: $(cat run.out) / $(cat plain.out)"
grep -qx 'control_tool pause=-2 start=-2 flush=-2 procs>0=1' plain.err ||
  fail "without a tool omp_control_tool should answer -2: $(grep control_tool plain.err)"
grep -qx 'control_tool pause=0 start=0 flush=0 procs>0=1' run.err ||
  fail "under omplens omp_control_tool should answer 0: $(grep control_tool run.err)"

# The runtime's account of the measured loop: "LINE kernels N",
# "LINE h2d N BYTES", "LINE d2h N BYTES" after the marker line.
awk '
  /^pause.c: measured loop$/ { on = 1; next }
  !on { next }
  / at [^ ]*:[0-9]+:[0-9]+ with / {
    match($0, / at [^ ]*:[0-9]+:[0-9]+ with /)
    where = substr($0, RSTART + 4, RLENGTH - 10)
    sub(/:[0-9]+$/, "", where); sub(/.*:/, "", where)
    if ($0 ~ /Entering OpenMP kernel at/) kernels[where]++
  }
  /Copying data from host to device/ || /Copying data from device to host/ {
    dir = $0 ~ /from host to device/ ? "h2d" : "d2h"
    size = $0; sub(/.*Size=/, "", size); sub(/,.*/, "", size)
    count[where " " dir]++; bytes[where " " dir] += size
  }
  END {
    for (w in kernels) print w, "kernels", kernels[w]
    for (k in count) print k, count[k], bytes[k]
  }' run.err | LC_ALL=C sort >runtime.txt
json=run/findings.json
n=$("$json_get" "$json" processes.0.directives.#) || n=0
for ((i = 0; i < n; i++)); do
  d=processes.0.directives.$i
  line=$("$json_get" "$json" "$d.location.line")
  k=$("$json_get" "$json" "$d.profile.kernels.count")
  [ "$k" != 0 ] && echo "$line kernels $k"
  for dir in h2d d2h; do
    c=$("$json_get" "$json" "$d.profile.$dir.count")
    [ "$c" != 0 ] && echo "$line $dir $c $("$json_get" "$json" "$d.profile.$dir.bytes")"
  done
done | LC_ALL=C sort >profile.txt
[ -s runtime.txt ] || fail "no copies or kernels after the marker in LIBOMPTARGET_INFO's output"
diff runtime.txt profile.txt >profile.diff ||
  fail "the profile is not the measured loop's (< runtime, > omplens): $(tr '\n' ';' <profile.diff)"

# The findings: the measured loop's duplicates, none of the set-up's.
nf=$("$json_get" "$json" processes.0.findings.#)
findings=$(for ((i = 0; i < nf; i++)); do
  echo "$("$json_get" "$json" "processes.0.findings.$i.location.line")" \
       "$("$json_get" "$json" "processes.0.findings.$i.category")" \
       "$("$json_get" "$json" "processes.0.findings.$i.count")"
done)
[ "$findings" = "$measured_line duplicate-transfer 2" ] ||
  fail "expected the measured loop's 2 duplicates alone (line $measured_line), got: $findings"
echo "$findings" | grep -q "^$setup_line " && fail "a finding of the paused set-up loop"

# Everyone says that the program paused omplens.
trace=$(ls run/traces/*/*.trace)
[ "$("$json_get" "$json" processes.0.paused.#)" = 1 ] || fail "findings.json: no paused stretch"
b=$("$json_get" "$json" processes.0.paused.0.begin_ns)
e=$("$json_get" "$json" processes.0.paused.0.end_ns)
p=$("$json_get" "$json" processes.0.paused_ns)
[ -n "$b" ] && [ -n "$e" ] && [ "$((e - b))" = "$p" ] && [ "$p" -gt 0 ] ||
  fail "findings.json: paused $b-$e, paused_ns $p"
dump_pause=$("$omplens" dump "$trace" | grep '^#paused')
[ "$dump_pause" = "$(printf '#paused\t%s\t%s' "$b" "$e")" ] || fail "omplens dump: '$dump_pause'"
first=$("$omplens" dump "$trace" | awk -F'\t' '!/^#/ { print $1; exit }')
[ -n "$first" ] && [ "$first" -ge "$e" ] || fail "an event at $first ns, before the start at $e ns"
grep -q '^  the program paused omplens from .* to .*: not analysed$' run/summary.txt ||
  fail "summary.txt does not say the program paused omplens"
grep -q 'The program paused omplens.*not analysed' run/report.md || fail "report.md does not say it"
grep -q 'The program paused omplens.*not analysed' run/report.html || fail "report.html does not say it"
# The trace alone holds the pauses: a report made from it says the same.
"$omplens" report -q -o again "$trace" || fail "report on the trace failed"
[ "$("$json_get" again/findings.json processes.0.paused_ns)" = "$p" ] ||
  fail "a report on the recorded trace does not say the program paused omplens"

[ "$failed" = 0 ] && echo "pause: only the measured loop is analysed, and every output says so"
exit "$failed"
