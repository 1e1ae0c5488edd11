#!/bin/sh
# Proof test of a fix that must stay manual (docs/fixes.md):
#
#   run_manual.sh OMPLENS FIX_DRIVER CC LLVM_DIR SOURCE REASON WORKDIR
#
# builds SOURCE, records it and lists its fixes (run_fix_says.sh, which
# requires REASON in them), then requires findings whose fixes all have no
# diff, a manual recipe whose reason contains REASON, and an empty patch.
set -eu

if [ $# -ne 7 ]; then
  echo "usage: $0 OMPLENS FIX_DRIVER CC LLVM_DIR SOURCE REASON WORKDIR" >&2
  exit 64
fi
driver=$2 src=$5 reason=$6 work=$7
name=$(basename "$src" .c)
fail() {
  echo "FAIL ($name): $*" >&2
  exit 1
}

"$(dirname "$0")/run_fix_says.sh" "$@"
trace_dir=$(ls -d "$work"/rec/traces/*/)
"$driver" --findings "$trace_dir" >"$work/findings.txt" || fail "fix_driver --findings failed"
cat "$work/findings.txt"
[ -s "$work/findings.txt" ] || fail "no findings"
if grep -v ' manual$' "$work/findings.txt" >/dev/null; then
  fail "a finding got a diff"
fi
grep -F "No diff:" "$work/fixes.txt" | grep -F "$reason" >/dev/null ||
  fail "the manual recipe does not give the reason '$reason'"
"$driver" --base "$work" --patch "$trace_dir" >"$work/fix.patch" || fail "fix_driver --patch failed"
[ ! -s "$work/fix.patch" ] || fail "the patch is not empty"
echo "ok ($name): manual, because of $reason"
