#!/bin/sh
# Proof test of a fix to a directive in a header (docs/fixes.md, "Headers"):
#
#   run_fix_header.sh OMPLENS FIX_DRIVER CC LLVM_DIR FIXTURE_DIR inside|outside|unit WORKDIR
#
# FIXTURE_DIR holds main.c, relax.c and smooth.h, which both sources
# include. They are built as one program with a compile_commands.json of
# the two units, and recorded with `omplens run`.
# inside: the header sits next to the sources (WORKDIR/proj), under the
#   directory of compile_commands.json: every finding must get a diff whose
#   note names both units; the command the summary prints must apply
#   fixes.patch from /; the patched program must build (no new warnings),
#   print the same, and record no finding.
# outside: the header sits in WORKDIR/vendor (-I../vendor), outside the
#   program's source tree: every fix must be manual, with that reason, and
#   fixes.patch empty; reported again without compile_commands.json, the
#   reason names the units' directory and no compile database.
# unit: as inside, but relax.c defines `data` as a macro before it includes
#   the header: the header with a `target data` added compiles in main.c,
#   not in relax.c (OpenMP pragmas expand macros). Every fix must be
#   manual, saying that the header would not compile in relax.c.
set -eu

if [ $# -ne 7 ]; then
  echo "usage: $0 OMPLENS FIX_DRIVER CC LLVM_DIR FIXTURE_DIR inside|outside|unit WORKDIR" >&2
  exit 64
fi
omplens=$1 driver=$2 cc=$3 llvm=$4 fixture=$5 where=$6 work=$7
name=header_$where
cflags="-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O0 -Wall -Wl,-rpath,$llvm/lib"

fail() {
  echo "FAIL ($name): $*" >&2
  exit 1
}

rm -rf "$work"
proj=$work/proj
mkdir -p "$proj" "$work/vendor"
cp "$fixture/main.c" "$fixture/relax.c" "$proj/"
include=
if [ "$where" = outside ]; then
  cp "$fixture/smooth.h" "$work/vendor/"
  include=-I../vendor
else
  cp "$fixture/smooth.h" "$proj/"
fi
if [ "$where" = unit ]; then
  sed 's/^#include "smooth.h"$/#define data data_of_relax\n&/' "$fixture/relax.c" >"$proj/relax.c"
  grep -q '^#define data' "$proj/relax.c" || fail "relax.c has no #include \"smooth.h\" line"
fi

build() { # build OUTPUT WARNINGS
  # shellcheck disable=SC2086 # flag lists are meant to be split
  (cd "$proj" && "$cc" $cflags $include main.c relax.c -o "$1") 2>"$2"
}
build "$work/prog" "$work/orig.warnings" || fail "the original does not build"
entries=
for unit in main.c relax.c; do
  args=$(printf '"%s",' "$cc" -fopenmp $include -g -c "$proj/$unit")
  entries="$entries{\"directory\": \"$proj\", \"file\": \"$proj/$unit\", \"arguments\": [${args%,}]},"
done
printf '[%s]\n' "${entries%,}" >"$proj/compile_commands.json"
"$work/prog" >"$work/orig.out" || fail "the original exits with $?"

(cd "$proj" && "$omplens" run -o "$work/out" --compile-commands="$proj" -- "$work/prog" \
  >/dev/null 2>"$work/run.err") || fail "omplens run failed"
trace_dir=$(ls -d "$work"/out/traces/*/)
grep -c '"category"' "$work/out/findings.json" >/dev/null || fail "the original has no findings"

if [ "$where" = outside ]; then
  ! grep -F '"kind": "keep-resident' "$work/out/findings.json" >/dev/null ||
    fail "a directive in a header outside the source tree got a diff"
  grep -F "outside the program's source tree ($proj," "$work/out/findings.json" >/dev/null ||
    { cat "$work/out/report.md" >&2; fail "no manual fix gives the reason"; }
  [ ! -s "$work/out/fixes.patch" ] || fail "fixes.patch is not empty"
  # Without the compile database, the source tree is the units' directory,
  # and the reason does not claim that it holds one.
  rm "$proj/compile_commands.json"
  "$omplens" report -q -o "$work/out-nodb" "$trace_dir" >/dev/null 2>&1 ||
    fail "omplens report without the compile database failed"
  grep -E "outside the program's source tree \\($proj, which holds the units? that includes? it\\)" \
    "$work/out-nodb/findings.json" >/dev/null ||
    { grep -o "outside the program's source tree ([^)]*)" "$work/out-nodb/findings.json" | head -1 >&2;
      fail "without compile_commands.json, the reason is not the units' directory"; }
  echo "ok ($name): manual, the header is outside the program's source tree"
  exit 0
fi
if [ "$where" = unit ]; then
  ! grep -F '"kind": "keep-resident' "$work/out/findings.json" >/dev/null ||
    fail "a change that does not compile in relax.c got a diff"
  grep -F "the changed header would not compile in relax.c" "$work/out/findings.json" >/dev/null ||
    { cat "$work/out/report.md" >&2; fail "no manual fix says the header would not compile in relax.c"; }
  [ ! -s "$work/out/fixes.patch" ] || fail "fixes.patch is not empty"
  echo "ok ($name): manual, the changed header would not compile in relax.c"
  exit 0
fi

# Every finding has a diff (the driver finds compile_commands.json next to
# the header), and the note names the units the change reaches.
"$driver" --findings "$trace_dir" >"$work/findings.txt" || fail "fix_driver --findings failed"
cat "$work/findings.txt"
[ -s "$work/findings.txt" ] || fail "the original has no findings to fix"
! grep -E ' (manual|none)$' "$work/findings.txt" >/dev/null ||
  { "$driver" --list "$trace_dir" >&2 || true; fail "a finding has no diff"; }
grep -F "the change reaches every unit that includes it (main.c, relax.c)" \
  "$work/out/findings.json" >/dev/null || fail "the fix does not name the units that include the header"

cmd=$(sed -n 's/^  apply the suggested changes: //p' "$work/run.err")
[ -n "$cmd" ] || { cat "$work/run.err" >&2; fail "the summary does not say how to apply fixes.patch"; }
echo "advertised: $cmd"
cat "$work/out/fixes.patch"
grep -q '^+++ b/smooth.h$' "$work/out/fixes.patch" || fail "the patch does not change smooth.h"
(cd / && sh -c "$cmd --fuzz=0 --no-backup-if-mismatch") >/dev/null || fail "'$cmd' does not apply from /"

build "$work/prog-patched" "$work/patched.warnings" ||
  { cat "$work/patched.warnings" >&2; fail "the patched program does not build"; }
before=$(grep -c 'warning:' "$work/orig.warnings" || true)
after=$(grep -c 'warning:' "$work/patched.warnings" || true)
[ "$after" -le "$before" ] || { cat "$work/patched.warnings" >&2; fail "the patch adds warnings"; }
"$work/prog-patched" >"$work/patched.out" || fail "the patched program exits with $?"
cmp -s "$work/orig.out" "$work/patched.out" ||
  { diff "$work/orig.out" "$work/patched.out" >&2 || true; fail "the output changed"; }

"$omplens" run -q -o "$work/out-patched" -- "$work/prog-patched" >/dev/null ||
  fail "omplens run on the patched program failed"
"$driver" --findings "$(ls -d "$work"/out-patched/traces/*/)" >"$work/findings-patched.txt" ||
  fail "fix_driver --findings failed on the patched program"
if [ -s "$work/findings-patched.txt" ]; then
  cat "$work/findings-patched.txt" >&2
  fail "findings remain after the patch"
fi
echo "ok ($name): the header's fix applied with the printed command, both units build, same output, no finding left"
