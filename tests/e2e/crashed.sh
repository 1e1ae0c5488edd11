#!/usr/bin/env bash
# An incomplete trace proves less: crashed.c aborts inside a target data
# region before its kernel. The region that ended without a kernel is an
# unused allocation; the one the program died in is no finding of the
# unused kinds, and fixes.patch leaves its directive alone
# (docs/detectors.md, "Unseen stretches"). And as run saw the program
# die, it makes no diff at all (docs/fixes.md, "When there is no diff").
# usage: crashed.sh OMPLENS JSON_GET CC SOURCE WORKDIR
set -uo pipefail
. "$(dirname "$0")/offload_case.sh"
offload_case crashed "$@"
ulimit -c 0
unused_line=$(grep -n 'UNUSED:' "$src" | cut -d: -f1)
crashed_line=$(grep -n 'CRASHED:' "$src" | cut -d: -f1)

"$omplens" run -q -o run -- ./crashed >run.out 2>run.err
rc=$?
[ "$rc" = 134 ] || fail "omplens run exited $rc, not the program's 134 (SIGABRT)"
json=run/findings.json
[ "$("$json_get" "$json" processes.0.complete)" = false ] || fail "the trace is not marked incomplete"
n=$("$json_get" "$json" processes.0.findings.#) || n=0
unused_at_first=0
for ((i = 0; i < n; i++)); do
  f=processes.0.findings.$i
  cat=$("$json_get" "$json" "$f.category")
  line=$("$json_get" "$json" "$f.location.line")
  case "$cat" in unused-alloc | unused-transfer) ;; *) continue ;; esac
  [ "$line" = "$crashed_line" ] && fail "$cat at line $line, where the program died before its kernel"
  [ "$cat" = unused-alloc ] && [ "$line" = "$unused_line" ] && unused_at_first=1
done
[ "$unused_at_first" = 1 ] || fail "no unused-alloc at line $unused_line, the region with no kernel"
if grep -q "CRASHED" run/fixes.patch; then
  fail "fixes.patch changes the directive the program died in: $(cat run/fixes.patch)"
fi
# What the run did is not what the program does: run, which saw the
# program die, makes no diff at all, and says why.
[ -s run/fixes.patch ] && fail "fixes.patch of a killed program is not empty: $(cat run/fixes.patch)"
grep -q "killed by signal 6 (Aborted), so the run may not show what its code does: no diff is made from it" \
  "$json" || fail "no fix says that the killed program's run gives no diff"
[ "$failed" = 0 ] && echo "ok: an incomplete trace proves no unused allocation or transfer after its end, and a killed program gets no diff"
exit "$failed"
