#!/bin/sh
# Proof test of a fix's text (docs/fixes.md):
#
#   run_fix_says.sh OMPLENS FIX_DRIVER CC LLVM_DIR SOURCE TEXT WORKDIR [SUMMARY]
#
# builds SOURCE (C, or C++ for a .cpp), records it (WORKDIR/rec), lists its fixes
# (WORKDIR/fixes.txt) and requires TEXT in what `fix_driver --list` prints
# (a summary, a reason or a recipe), whether the fix has a diff or not, and
# SUMMARY, when given, in the run's summary.txt.
# run_manual.sh starts with it.
set -eu

if [ $# -ne 7 ] && [ $# -ne 8 ]; then
  echo "usage: $0 OMPLENS FIX_DRIVER CC LLVM_DIR SOURCE TEXT WORKDIR [SUMMARY]" >&2
  exit 64
fi
omplens=$1 driver=$2 cc=$3 llvm=$4 src=$5 text=$6 work=$7 summary=${8-}
file=$(basename "$src")
name=${file%.*}
lang= libs= # a .cpp source is C++, linked with its library
case $file in *.cpp) lang="-x c++" libs=-lstdc++ ;; esac
fail() {
  echo "FAIL ($name): $*" >&2
  exit 1
}

rm -rf "$work"
mkdir -p "$work"
cp "$src" "$work/$file"
# shellcheck disable=SC2086 # $lang and $libs are empty or words
"$cc" $lang -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O0 -Wl,-rpath,"$llvm/lib" \
  "$work/$file" $libs -lm -o "$work/$name" || fail "does not build"
"$omplens" run -q -o "$work/rec" -- "$work/$name" >/dev/null || fail "omplens run failed"
trace_dir=$(ls -d "$work"/rec/traces/*/)
"$driver" --base "$work" --list "$trace_dir" >"$work/fixes.txt" || fail "fix_driver --list failed"
cat "$work/fixes.txt"
grep -F -- "$text" "$work/fixes.txt" >/dev/null || fail "no fix says '$text'"
if [ -n "$summary" ]; then
  grep -F -- "$summary" "$work/rec/summary.txt" >/dev/null || fail "summary.txt does not say '$summary'"
fi
echo "ok ($name): a fix says $text"
