#!/usr/bin/env bash
# When no target construct reaches a device, omplens says why in one
# warning line: a program built without -fopenmp-targets, offloading
# disabled at run time, and a program that crashes before its first target
# construct. `run` keeps the program's exit status; `report`
# exits with 69.
# usage: nothing_measured.sh OMPLENS CC SOURCE OFFLOAD_BINARY WORKDIR
set -uo pipefail
omplens=$1 cc=$2 src=$3 offload=$4 work=$5
rm -rf "$work" && mkdir -p "$work"
failed=0
fail() { echo "FAIL: $*"; failed=1; }

"$cc" -fopenmp -g "$src" -o "$work/host-only" -Wl,-rpath,/usr/lib/llvm-19/lib || exit 1
"$omplens" run -q -o "$work/run" -- "$work/host-only" >/dev/null 2>"$work/run.err"
[ $? = 0 ] || fail "run: not the program's exit status 0"
grep -q "built without offloading" "$work/run.err" || fail "run: no warning on a host-only build"
"$omplens" report -q -o "$work/report" "$work"/run/traces/*/ 2>"$work/report.err"
[ $? = 69 ] || fail "report of a host-only build: exit status not 69"
[ "$(grep -c '^omplens: warning: nothing reached a device' "$work/report.err")" = 1 ] ||
  fail "report: expected one warning line, got: $(cat "$work/report.err")"

OMP_TARGET_OFFLOAD=disabled "$omplens" run -q -o "$work/disabled" -- "$offload" >/dev/null \
  2>"$work/disabled.err"
grep -q "OMP_TARGET_OFFLOAD=disabled" "$work/disabled.err" ||
  fail "offloading disabled: the warning does not name it"

# A program that aborts before its first target construct: its trace is
# incomplete and empty, and `run`, which saw it die, says it was killed
# before any ran.
cat >"$work/early.c" <<'EOF'
#include <stdlib.h>
int main(void) {
  double a[8] = {0};
  abort();
#pragma omp target map(tofrom: a)
  a[0] = 1;
  return (int)a[0];
}
EOF
"$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g "$work/early.c" -o "$work/early" \
  -Wl,-rpath,/usr/lib/llvm-19/lib || exit 1
(ulimit -c 0; "$omplens" run -q -o "$work/early-run" -- "$work/early" >/dev/null 2>"$work/early.err")
[ $? = 134 ] || fail "run of a program that aborts: not its exit status 134"
grep -q "nothing reached a device.*killed before any target construct ran" "$work/early.err" ||
  fail "a crash before any target construct: no warning ($(cat "$work/early.err"))"

"$omplens" run -q -o "$work/ok" -- "$offload" >/dev/null 2>"$work/ok.err"
! grep -q "nothing reached a device" "$work/ok.err" || fail "a warning for a program that offloads"
[ "$failed" = 0 ] && echo "ok: nothing measured is said, with its cause"
exit "$failed"
