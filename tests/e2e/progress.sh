#!/usr/bin/env bash
# The progress line: on a terminal (a pseudo-terminal from script(1)) a long
# analysis shows "omplens: <stage>  <share>%  (<seconds> s[, about <n> s
# left])" on stderr, within the terminal's width, its share never going
# back, and clears it at the end; with stderr not a terminal, or with -q,
# nothing but the usual output appears. OMPLENS_PROGRESS_AFTER_MS=0 stands
# in for a long analysis.
# Also: an output that cannot be written while timeline.json is written on
# another thread, the stage times of OMPLENS_STAGE_TIMES, and the compile
# units read while a real program's trace is attributed.
# usage: progress.sh OMPLENS GEN_TRACE WORKDIR OFFLOAD_PROGRAM
set -uo pipefail
omplens=$1 gen_trace=$2 work=$3 program=$4
rm -rf "$work" && mkdir -p "$work"
failed=0
fail() { echo "FAIL: $*"; failed=1; }

if ! command -v script >/dev/null; then
  echo "SKIP: script(1) is missing (Debian package bsdutils)"; exit 77
fi
"$gen_trace" -n 200000 "$work/big.trace" >/dev/null || { echo "FAIL: gen_trace"; exit 1; }

# On a terminal: progress text, carriage returns, and a cleared line at the end.
OMPLENS_PROGRESS_AFTER_MS=0 script -qec \
  "'$omplens' report --outputs json,summary -o '$work/tty' '$work/big.trace'" /dev/null \
  >"$work/tty.out" 2>&1
grep -q $'\romplens: [a-z]' "$work/tty.out" || fail "no progress line on a terminal"
grep -q $'\romplens: \\(reading\\|finding wasted\\|attributing\\|building\\|writing\\) ' "$work/tty.out" ||
  fail "progress line names no stage"
grep -q $'\r\033\\[K' "$work/tty.out" || fail "progress line not cleared"
[ -s "$work/tty/findings.json" ] || fail "no findings.json from the terminal run"

# A trace big enough to show the share grow, on a terminal of 60 columns:
# every line has the figures and fits, the share never goes back, and the
# last thing on stderr clears the line.
"$gen_trace" -n 2000000 "$work/huge.trace" >/dev/null || { echo "FAIL: gen_trace"; exit 1; }
OMPLENS_PROGRESS_AFTER_MS=0 script -qec \
  "stty cols 60; '$omplens' report --outputs json,summary -o '$work/share' '$work/huge.trace' >/dev/null" \
  /dev/null >"$work/share.out" 2>&1
tr '\r' '\n' <"$work/share.out" | sed 's/\x1b\[K$//' | grep '^omplens: ' >"$work/share.lines"
[ -s "$work/share.lines" ] || fail "no progress line for the big trace"
figures='  [0-9]+%  \([0-9]+\.[0-9] s(, about [0-9]+ (s|min) left|, almost done)?\)$'
grep -Evq "$figures" "$work/share.lines" &&
  { fail "progress lines without the share and time:"; grep -Ev "$figures" "$work/share.lines"; }
awk 'length($0) > 59 { print; bad = 1 } END { exit bad }' "$work/share.lines" >"$work/share.wide" ||
  { fail "progress lines wider than 59 columns:"; cat "$work/share.wide"; }
grep -Eo '  [0-9]+%  \(' "$work/share.lines" | tr -dc '0-9\n' >"$work/share.percent"
[ "$(sort -un "$work/share.percent" | wc -l)" -ge 3 ] ||
  { fail "the share hardly moved:"; cat "$work/share.percent"; }
awk '$1 + 0 < last { bad = 1 } { last = $1 + 0 } END { exit bad }' "$work/share.percent" ||
  { fail "the share went back:"; tr '\n' ' ' <"$work/share.percent"; echo; }
[ "$(tail -c 4 "$work/share.out" | od -An -tx1 | tr -d ' \n')" = 0d1b5b4b ] ||
  { fail "the last progress line was not cleared:"; tail -c 80 "$work/share.out" | cat -v; echo; }

# Not a terminal: stderr stays empty.
OMPLENS_PROGRESS_AFTER_MS=0 "$omplens" report -o "$work/pipe" "$work/big.trace" \
  >"$work/pipe.out" 2>"$work/pipe.err"
[ $? = 0 ] || fail "report into a pipe failed"
[ -s "$work/pipe.err" ] && { fail "stderr not empty without a terminal:"; cat -v "$work/pipe.err"; }

# -q on a terminal: nothing at all.
OMPLENS_PROGRESS_AFTER_MS=0 script -qec \
  "'$omplens' report -q --outputs json -o '$work/quiet' '$work/big.trace'" /dev/null \
  >"$work/quiet.out" 2>&1
[ -s "$work/quiet.out" ] && { fail "-q printed on a terminal:"; cat -v "$work/quiet.out"; }

# timeline.json is written on a thread of its own: when it fails, the error
# still comes out as one line, the exit code is 73, and every other output
# is written.
mkdir -p "$work/taken/timeline.json"
"$omplens" report -q -o "$work/taken" "$work/big.trace" >/dev/null 2>"$work/taken.err"
status=$?
[ $status = 73 ] || fail "unwritable timeline.json: exit $status, expected 73"
[ "$(wc -l <"$work/taken.err")" = 1 ] && grep -q '^omplens: cannot write .*timeline.json' "$work/taken.err" ||
  { fail "unwritable timeline.json: expected one line naming it:"; cat "$work/taken.err"; }
for f in findings.json summary.txt findings.sarif report.md report.html; do
  [ -s "$work/taken/$f" ] || fail "unwritable timeline.json: $f not written"
done

# OMPLENS_STAGE_TIMES: each stage and each output's start and end, from
# both threads, as lines "omplens: SECONDS s  TEXT  [resident R MB, peak P
# MB]" on stderr, even with -q; the times never go back, nor the peak, and
# the peak is at least the resident memory.
OMPLENS_STAGE_TIMES=1 "$omplens" report -q -o "$work/times" "$work/big.trace" \
  >/dev/null 2>"$work/times.err" || fail "report with OMPLENS_STAGE_TIMES failed"
for text in 'reading big.trace' 'finding wasted data movement' 'building the report' \
  'writing findings.json' 'wrote findings.json' 'wrote timeline.json' 'outputs written'; do
  grep -Eq "^omplens: +[0-9]+\.[0-9]{3} s  $text" "$work/times.err" ||
    { fail "OMPLENS_STAGE_TIMES: no line for '$text':"; cat "$work/times.err"; }
done
awk '{ t = $2 + 0; if (t < last) bad = 1; last = t } END { exit bad }' "$work/times.err" ||
  fail "OMPLENS_STAGE_TIMES: times go back"
awk '{ if (!match($0, /\[resident [0-9]+ MB, peak [0-9]+ MB\]$/)) { bad = 1; next }
       split(substr($0, RSTART), m, /[^0-9]+/); if (m[3] + 0 < m[2] + 0 || m[3] + 0 < peak) bad = 1
       peak = m[3] + 0 } END { exit bad || peak == 0 }' "$work/times.err" ||
  { fail "OMPLENS_STAGE_TIMES: a line without its growing memory figures:"; cat "$work/times.err"; }
[ "$(grep -vc '^omplens: ' "$work/times.err")" = 0 ] ||
  { fail "OMPLENS_STAGE_TIMES: other text on stderr:"; cat "$work/times.err"; }
# With a second CPU, timeline.json is begun while the fixes are worked out:
# its operations need only which findings mark them, its instants' texts
# wait for the document.
if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
  awk '/  writing timeline.json \(another thread\)/ && !built { early = 1 }
       /  building the report/ { built = 1 } END { exit !early }' "$work/times.err" ||
    { fail "timeline.json not begun before the report is built:"; cat "$work/times.err"; }
fi

# A real program's first report: while its sources are parsed, the line
# counts the compile units read (from 0, before the first parse ends); the
# stage times keep one line for the stage, not one per unit.
"$omplens" run -q -o "$work/rec" --outputs summary -- "$program" >/dev/null 2>&1 ||
  fail "omplens run of $program failed"
OMPLENS_PROGRESS_AFTER_MS=0 script -qec \
  "'$omplens' report --outputs summary -o '$work/units' '$work'/rec/traces/*/ >/dev/null" \
  /dev/null >"$work/units.out" 2>&1
tr '\r' '\n' <"$work/units.out" | grep -Eq '^omplens: reading sources: [01] of 1 compile units \(' ||
  { fail "no count of compile units read while attributing:"; tr '\r' '\n' <"$work/units.out" | cat -v; }
OMPLENS_STAGE_TIMES=1 "$omplens" report -q --outputs summary -o "$work/units2" "$work"/rec/traces/*/ \
  >/dev/null 2>"$work/units2.err"
grep -q 'compile units' "$work/units2.err" &&
  { fail "OMPLENS_STAGE_TIMES: a line per compile unit:"; cat "$work/units2.err"; }
# One trace is attributed (libclang loaded, its units parsed) before the
# detectors run, while the process holds the least; the fixes are worked
# out after them.
grep -o 'attributing\|finding wasted\|working out the fixes\|building the report' "$work/units2.err" |
  tr '\n' ',' | grep -qx 'attributing,finding wasted,working out the fixes,building the report,' ||
  { fail "OMPLENS_STAGE_TIMES: stages out of order:"; cat "$work/units2.err"; }

[ $failed = 0 ] && echo "progress: all checks passed"
exit $failed
