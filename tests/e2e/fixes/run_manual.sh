#!/bin/sh
# Proof test of a fix that must stay manual (docs/fixes.md):
#
#   run_manual.sh OMPLENS FIX_DRIVER CC LLVM_DIR SOURCE REASON WORKDIR
#
# builds SOURCE, records it, and requires findings whose fixes all have no
# diff, a manual recipe whose reason contains REASON, and an empty patch.
set -eu

if [ $# -ne 7 ]; then
  echo "usage: $0 OMPLENS FIX_DRIVER CC LLVM_DIR SOURCE REASON WORKDIR" >&2
  exit 64
fi
omplens=$1 driver=$2 cc=$3 llvm=$4 src=$5 reason=$6 work=$7
name=$(basename "$src" .c)
fail() {
  echo "FAIL ($name): $*" >&2
  exit 1
}

rm -rf "$work"
mkdir -p "$work"
cp "$src" "$work/$name.c"
"$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O0 -Wl,-rpath,"$llvm/lib" \
  "$work/$name.c" -o "$work/$name" || fail "does not build"
"$omplens" run -q -o "$work/rec" -- "$work/$name" >/dev/null || fail "omplens run failed"
trace_dir=$(ls -d "$work"/rec/traces/*/)
"$driver" --findings "$trace_dir" >"$work/findings.txt" || fail "fix_driver --findings failed"
cat "$work/findings.txt"
[ -s "$work/findings.txt" ] || fail "no findings"
if grep -v ' manual$' "$work/findings.txt" >/dev/null; then
  fail "a finding got a diff"
fi
"$driver" --base "$work" --list "$trace_dir" >"$work/fixes.txt" || fail "fix_driver --list failed"
cat "$work/fixes.txt"
grep -F "No diff:" "$work/fixes.txt" | grep -F "$reason" >/dev/null ||
  fail "the manual recipe does not give the reason '$reason'"
"$driver" --base "$work" --patch "$trace_dir" >"$work/fix.patch" || fail "fix_driver --patch failed"
[ ! -s "$work/fix.patch" ] || fail "the patch is not empty"
echo "ok ($name): manual, because of $reason"
