#!/usr/bin/env bash
# Set-up findings: setup.c's one-time initialisation sends `mesh` twice
# (the largest saving), its time loop re-sends `coef` every step. The
# initialisation's finding is marked set-up and ranked after the loop's in
# findings.json, report.md, report.html and the terminal summary; the
# loop's are not set-up; the set-up phase ends after the initialisation's
# copies and no later than the loop's first kernel.
# usage: setup.sh OMPLENS JSON_GET CC SOURCE WORKDIR
set -uo pipefail
. "$(dirname "$0")/offload_case.sh"
offload_case setup "$@"
"$omplens" run -q -o run -- ./setup >/dev/null 2>run.err || { cat run.err; exit 1; }
setup_line=$(grep -n '/\* SETUP \*/' "$src" | cut -d: -f1)
loop_line=$(grep -n '/\* LOOP \*/' "$src" | cut -d: -f1)
json=run/findings.json

n=$("$json_get" "$json" processes.0.findings.#)
for ((i = 0; i < n; i++)); do
  f=processes.0.findings.$i
  echo "$("$json_get" "$json" "$f.location.line")" "$("$json_get" "$json" "$f.category")" \
    "$("$json_get" "$json" "$f.setup")" "$("$json_get" "$json" "$f.savings_ns")"
done >findings.txt
last=$(tail -1 findings.txt)
[ "${last% *}" = "$setup_line duplicate-transfer true" ] ||
  fail "the last finding should be the set-up's duplicate: $(tr '\n' ';' <findings.txt)"
[ "$(grep -c ' true ' findings.txt)" = 1 ] || fail "one set-up finding expected: $(tr '\n' ';' <findings.txt)"
grep -q "^$loop_line duplicate-transfer false " findings.txt || fail "the loop's duplicates are missing or set-up"
# It would rank first by its savings alone.
awk -v l="$setup_line" '$1 == l { s = $4 } $1 != l && $4 > m { m = $4 } END { exit !(s > m) }' findings.txt ||
  fail "the set-up finding does not save the most: the test proves nothing"

# The phase's end: after the set-up copies, no later than the loop's first kernel.
end=$("$json_get" "$json" processes.0.totals.setup_end_ns)
trace=$(ls run/traces/*/*.trace)
"$omplens" dump "$trace" | awk -F'\t' -v e="$end" -v s="setup.c;main;$setup_line;" -v l="setup.c;main;$loop_line;" '
  !/^#/ && index($13, s) && $1 >= e { bad = "a set-up copy at " $1 }
  !/^#/ && index($13, l) && $3 == "kernel" && !k++ && $1 < e { bad = "the loop'"'"'s first kernel at " $1 }
  END { if (bad) { print bad " and the phase ends at " e; exit 1 } }' || fail "setup_end_ns is misplaced"

grep -q "^#### Duplicate transfer of .* on device 0 (set-up)$" run/report.md || fail "report.md: no set-up mark"
[ "$(grep -c '(set-up)$' run/report.md)" = 1 ] || fail "report.md: set-up marks on other findings"
grep -q "^| 2 | .*setup.c:$setup_line\` .* (set-up) |$" run/report.md ||
  fail "report.md: the set-up directive is not second and marked in Top directives"
grep -q "^The largest saving outside the program's set-up is at .*setup.c:$loop_line" run/report.md ||
  fail "report.md: the summary does not name the largest saving outside the set-up"
grep -q 'class="chip setup"' run/report.html || fail "report.html: no set-up mark"
grep -q '<span class="tag" title="All its findings ran before[^"]*">set-up</span>' run/report.html ||
  fail "report.html: the set-up directive has no tag in the directive table"
grep -q "setup.c:$setup_line .* set-up$" run/summary.txt || fail "summary.txt: the set-up directive is not marked"
! grep -q "setup.c:$loop_line .* set-up$" run/summary.txt || fail "summary.txt: the loop is marked set-up"
awk '/top directives/ { on = 1; next } on && /^ +[0-9]+\./ { last = $0 } END { exit !(last ~ / set-up$/) }' \
  run/summary.txt || fail "summary.txt: the set-up directive is not ranked last"
grep -q "top directives by predicted savings (the program's set-up last)$" run/summary.txt ||
  fail "summary.txt: the list's title does not say that the set-up comes last"

# findings.sarif: the set-up finding is a note with properties.setup, the
# others warnings without.
sarif=run/findings.sarif
nr=$("$json_get" "$sarif" runs.0.results.#) || nr=0
for ((i = 0; i < nr; i++)); do
  r=runs.0.results.$i
  echo "$("$json_get" "$sarif" "$r.locations.0.physicalLocation.region.startLine")" \
    "$("$json_get" "$sarif" "$r.level")" "$("$json_get" "$sarif" "$r.properties.setup" 2>/dev/null || echo -)"
done >sarif.txt
[ "$nr" = "$n" ] || fail "findings.sarif has $nr results for $n findings"
[ "$(grep -c ' note true$' sarif.txt)" = 1 ] && grep -q "^$setup_line note true$" sarif.txt ||
  fail "findings.sarif: the set-up finding is not one note with properties.setup: $(tr '\n' ';' <sarif.txt)"
[ "$(grep -c ' warning false$' sarif.txt)" = $((nr - 1)) ] ||
  fail "findings.sarif: the other findings are not warnings without setup: $(tr '\n' ';' <sarif.txt)"
"$json_get" "$sarif" "runs.0.results.$((nr - 1)).message.text" | grep -q "one-time set-up" ||
  fail "findings.sarif: the set-up result's message does not say why it is a note"

[ "$failed" = 0 ] && echo "setup: the initialisation's finding is marked set-up and ranked last"
exit "$failed"
