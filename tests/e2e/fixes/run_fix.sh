#!/bin/sh
# Proof test of the suggested fixes for one program (docs/fixes.md):
#
#   run_fix.sh OMPLENS FIX_DRIVER CC LLVM_DIR SOURCE BINARY|- WORKDIR
#
# 1. records BINARY (built from SOURCE; "-" builds SOURCE into WORKDIR first)
#    with `omplens run`, and requires every finding to have a fix with a diff;
# 2. takes the merged patch of the fixes (fix_driver --patch, paths relative
#    to SOURCE's directory), checks it with `git apply --check` and
#    `patch --dry-run` (and that it adds no pragma line twice in a row),
#    and applies it to a copy of SOURCE;
# 3. builds the copy with CC (clang-19 host offload, -g -O0; a .cpp SOURCE as
#    C++, linked with its library), no new warnings;
# 4. runs both programs: the patched one's stdout must equal the original's;
# 5. records the patched program: no finding and no leftover mapping may
#    remain.
# Everything is kept in WORKDIR for a look after a failure.
set -eu

if [ $# -ne 7 ]; then
  echo "usage: $0 OMPLENS FIX_DRIVER CC LLVM_DIR SOURCE BINARY|- WORKDIR" >&2
  exit 64
fi
omplens=$1 driver=$2 cc=$3 llvm=$4 src=$5 bin=$6 work=$7
file=$(basename "$src")
name=${file%.*}
lang= libs= # a .cpp source is C++, linked with its library
case $file in *.cpp) lang="-x c++" libs=-lstdc++ ;; esac
cflags="-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O0 -Wall -Wl,-rpath,$llvm/lib"

fail() {
  echo "FAIL ($name): $*" >&2
  exit 1
}

rm -rf "$work"
mkdir -p "$work/orig" "$work/patched"
srcdir=$(cd "$(dirname "$src")" && pwd)
if [ "$bin" = - ]; then # a fixture: build it where its source is copied
  cp "$src" "$work/orig/$file"
  srcdir=$work/orig
  bin=$work/orig/$name
  # shellcheck disable=SC2086 # flag lists are meant to be split
  "$cc" $cflags $lang "$srcdir/$file" -o "$bin" $libs -lm 2>"$work/orig.warnings" ||
    fail "the original does not build"
else
  # shellcheck disable=SC2086
  "$cc" $cflags -fsyntax-only "$src" 2>"$work/orig.warnings" || fail "the original does not compile"
fi

# 1. record the original
"$bin" >"$work/orig.out" || fail "the original exits with $?"
"$omplens" run -q -o "$work/rec" -- "$bin" >/dev/null || fail "omplens run failed"
trace_dir=$(ls -d "$work"/rec/traces/*/)
"$driver" --findings "$trace_dir" >"$work/findings.txt" || fail "fix_driver --findings failed"
cat "$work/findings.txt"
[ -s "$work/findings.txt" ] || fail "the original has no findings to fix"
if grep -E ' (manual|none)$' "$work/findings.txt" >/dev/null; then
  "$driver" --list "$trace_dir" >&2 || true
  fail "a finding has no diff"
fi

# 2. the patch
"$driver" --base "$srcdir" --patch "$trace_dir" >"$work/fix.patch" ||
  fail "fix_driver --patch failed (or left a fix out)"
"$driver" --base "$srcdir" --list "$trace_dir" >"$work/fixes.txt" || true
[ -s "$work/fix.patch" ] || fail "empty patch"
cat "$work/fix.patch"
twice=$(awk '/^\+#pragma/ && $0 == prev { print; exit } { prev = $0 }' "$work/fix.patch")
[ -z "$twice" ] || fail "the patch adds a line twice in a row: $twice"
cp "$srcdir/$file" "$work/patched/$file"
if command -v git >/dev/null 2>&1; then
  (cd "$work/patched" && git apply --check "$work/fix.patch") || fail "git apply --check rejects the patch"
fi
patch -d "$work/patched" -p1 --dry-run --fuzz=0 <"$work/fix.patch" >/dev/null ||
  fail "patch --dry-run rejects the patch"
patch -d "$work/patched" -p1 --fuzz=0 --no-backup-if-mismatch <"$work/fix.patch" >/dev/null ||
  fail "patch failed"

# 3. build the patched copy
# shellcheck disable=SC2086
"$cc" $cflags $lang "$work/patched/$file" -o "$work/patched/$name" $libs -lm 2>"$work/patched.warnings" ||
  { cat "$work/patched.warnings" >&2; fail "the patched program does not build"; }
before=$(grep -c 'warning:' "$work/orig.warnings" || true)
after=$(grep -c 'warning:' "$work/patched.warnings" || true)
[ "$after" -le "$before" ] || { cat "$work/patched.warnings" >&2; fail "the patch adds warnings"; }

# 4. same output
"$work/patched/$name" >"$work/patched.out" || fail "the patched program exits with $?"
cmp -s "$work/orig.out" "$work/patched.out" ||
  { diff "$work/orig.out" "$work/patched.out" >&2 || true; fail "the output changed"; }

# 5. the findings are gone
"$omplens" run -q -o "$work/rec-patched" -- "$work/patched/$name" >/dev/null ||
  fail "omplens run on the patched program failed"
"$driver" --findings "$(ls -d "$work"/rec-patched/traces/*/)" >"$work/findings-patched.txt" ||
  fail "fix_driver --findings failed on the patched program"
if [ -s "$work/findings-patched.txt" ]; then
  cat "$work/findings-patched.txt" >&2
  fail "findings remain after the patch"
fi
echo "ok ($name): $(wc -l <"$work/findings.txt") findings fixed, same output, none left"
