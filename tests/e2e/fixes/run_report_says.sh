#!/bin/sh
# Proof test of what the report tells of a finding (docs/fixes.md, "What
# the source shows"; its call path):
#
#   run_report_says.sh OMPLENS CC LLVM_DIR SOURCE TEXT WORKDIR [JSON_TEXT [HTML_TEXT]]
#
# builds SOURCE (C, or C++ for a .cpp), records and reports it with `omplens run` (WORKDIR/rec)
# and requires TEXT in report.md (read without its Markdown escapes),
# JSON_TEXT, when given (and not empty), in findings.json, and HTML_TEXT,
# when given, in report.html.
set -eu

if [ $# -lt 6 ] || [ $# -gt 8 ]; then
  echo "usage: $0 OMPLENS CC LLVM_DIR SOURCE TEXT WORKDIR [JSON_TEXT [HTML_TEXT]]" >&2
  exit 64
fi
omplens=$1 cc=$2 llvm=$3 src=$4 text=$5 work=$6 json_text=${7:-} html_text=${8:-}
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
  "$work/$file" $libs -o "$work/$name" || fail "does not build"
"$omplens" run -q -o "$work/rec" -- "$work/$name" >/dev/null || fail "omplens run failed"
sed 's/\\//g' "$work/rec/report.md" | grep -F -- "$text" >/dev/null ||
  fail "report.md does not say '$text'"
if [ -n "$json_text" ]; then
  grep -F -- "$json_text" "$work/rec/findings.json" >/dev/null ||
    fail "findings.json does not say '$json_text'"
fi
if [ -n "$html_text" ]; then
  grep -F -- "$html_text" "$work/rec/report.html" >/dev/null ||
    fail "report.html does not say '$html_text'"
fi
echo "ok ($name): the report says $text"
