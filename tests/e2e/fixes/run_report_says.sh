#!/bin/sh
# Proof test of what the report tells a finding (docs/fixes.md, "What the
# source shows"):
#
#   run_report_says.sh OMPLENS CC LLVM_DIR SOURCE TEXT WORKDIR
#
# builds SOURCE, records and reports it with `omplens run` (WORKDIR/rec)
# and requires TEXT in findings.json and in report.md (read without its
# Markdown escapes).
set -eu

if [ $# -ne 6 ]; then
  echo "usage: $0 OMPLENS CC LLVM_DIR SOURCE TEXT WORKDIR" >&2
  exit 64
fi
omplens=$1 cc=$2 llvm=$3 src=$4 text=$5 work=$6
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
grep -F -- "$text" "$work/rec/findings.json" >/dev/null || fail "findings.json does not say '$text'"
sed 's/\\//g' "$work/rec/report.md" | grep -F -- "$text" >/dev/null ||
  fail "report.md does not say '$text'"
echo "ok ($name): the report says $text"
