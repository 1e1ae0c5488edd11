#!/bin/sh
# Proof test of fixes.patch as a user gets it from `omplens run`
# (docs/fixes.md):
#
#   run_fix_cli.sh OMPLENS FIX_DRIVER CC LLVM_DIR SOURCE patch|none|noflags WORKDIR [CFLAG...]
#
# SOURCE is copied to WORKDIR/src and built with CFLAGs (say -DOMP_OFFLOAD)
# into WORKDIR/bin; WORKDIR/build/compile_commands.json records that
# command, and omplens gets it with --compile-commands, as a user of a CMake
# build would give it.
#
# patch: `omplens run`, started in WORKDIR, must print the command that
#   applies fixes.patch. `omplens report` on the same trace, started in
#   WORKDIR/run (the sources are not under it), must write the same patch
#   (paths from the sources' root) and print the same `patch -d`; it is
#   tried with --dry-run from /. The first command, run from /, must apply;
#   the patched program must build (no new warnings) and print the same, and
#   record no finding.
# none: every fix is manual: the summary must not mention fixes.patch, and
#   fixes.patch must be empty.
# noflags: as none, but omplens gets no compile database (none is written):
#   the code under CFLAGs' #ifdef is not what libclang parses, and the
#   manual reasons must say to give the build's flags.
set -eu

if [ $# -lt 7 ]; then
  echo "usage: $0 OMPLENS FIX_DRIVER CC LLVM_DIR SOURCE patch|none|noflags WORKDIR [CFLAG...]" >&2
  exit 64
fi
omplens=$1 driver=$2 cc=$3 llvm=$4 src=$5 expect=$6 work=$7
shift 7
name=$(basename "$src" .c)
cflags="-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O0 -Wall -Wl,-rpath,$llvm/lib $*"

fail() {
  echo "FAIL ($name): $*" >&2
  exit 1
}

rm -rf "$work"
mkdir -p "$work/src" "$work/bin" "$work/build" "$work/run"
cp "$src" "$work/src/$name.c"
# shellcheck disable=SC2086 # flag lists are meant to be split
"$cc" $cflags "$work/src/$name.c" -o "$work/bin/$name" 2>"$work/orig.warnings" ||
  fail "the original does not build"
args=$(printf '"%s",' "$cc" "$@" -fopenmp -g -c "$work/src/$name.c")
compdb=
if [ "$expect" != noflags ]; then
  compdb=--compile-commands=$work/build
  printf '[{"directory": "%s", "file": "%s", "arguments": [%s]}]\n' \
    "$work/src" "$work/src/$name.c" "${args%,}" >"$work/build/compile_commands.json"
fi
"$work/bin/$name" >"$work/orig.out" || fail "the original exits with $?"

# The command the summary prints (stderr for run, stdout for report).
advertised() { sed -n 's/^  apply the suggested changes: //p' "$1"; }

(cd "$work" && "$omplens" run -o "$work/out" ${compdb:+"$compdb"} -- \
  "$work/bin/$name" >/dev/null 2>"$work/run.err") || fail "omplens run failed"
trace_dir=$(ls -d "$work"/out/traces/*/)
cmd=$(advertised "$work/run.err")

if [ "$expect" != patch ]; then
  ! grep -F fixes.patch "$work/run.err" >/dev/null || fail "the summary advertises an empty patch"
  ! grep -F fixes.patch "$work/out/summary.txt" >/dev/null ||
    fail "summary.txt advertises an empty patch"
  [ ! -s "$work/out/fixes.patch" ] || fail "fixes.patch is not empty"
  if [ "$expect" = noflags ]; then
    "$driver" --list "$trace_dir" >"$work/fixes.txt" || fail "fix_driver --list failed"
    grep -F "No diff:" "$work/fixes.txt" | grep -F "give the build's flags with --compile-commands" \
      >/dev/null || { cat "$work/fixes.txt" >&2; fail "no reason says to give the build's flags"; }
  fi
  echo "ok ($name): no diff, and no patch advertised"
  exit 0
fi

[ -n "$cmd" ] || { cat "$work/run.err" >&2; fail "the summary does not say how to apply fixes.patch"; }
echo "advertised: $cmd"
# summary.txt, read after the terminal's lines are gone, says it too, for
# its own directory (the file is the same wherever it is written).
in_dir=$(sed -n 's/^  apply the suggested changes, from this directory: //p' "$work/out/summary.txt")
[ "$in_dir" = "${cmd%% < *} < fixes.patch" ] ||
  fail "summary.txt does not say how to apply fixes.patch ('$in_dir')"
[ -s "$work/out/fixes.patch" ] || fail "fixes.patch is empty"

(cd "$work/run" && "$omplens" report -o "$work/out-elsewhere" "$compdb" \
  "$trace_dir" >"$work/report.out" 2>&1) || fail "omplens report failed"
cmd2=$(advertised "$work/report.out")
# Paths start at the sources' root wherever omplens ran: the same patch,
# applied from the same directory.
cmp -s "$work/out/fixes.patch" "$work/out-elsewhere/fixes.patch" ||
  { diff "$work/out/fixes.patch" "$work/out-elsewhere/fixes.patch" >&2 || true
    fail "a report made in another directory writes another patch"; }
# So do the pages' and SARIF's paths (SARIF's invocation differs: `run`
# knows the program's exit code).
for page in report.md report.html; do
  cmp -s "$work/out/$page" "$work/out-elsewhere/$page" ||
    { diff "$work/out/$page" "$work/out-elsewhere/$page" | head -20 >&2 || true
      fail "a report made in another directory writes another $page"; }
done
uris() { grep -o '"uri": *"[^"]*"' "$1"; }
[ "$(uris "$work/out/findings.sarif")" = "$(uris "$work/out-elsewhere/findings.sarif")" ] ||
  fail "a report made in another directory gives SARIF other paths"
[ "${cmd2%% < *}" = "${cmd%% < *}" ] ||
  fail "a report made in another directory prints '$cmd2', not '$cmd'"
(cd / && sh -c "$cmd2 --dry-run --fuzz=0") >/dev/null || fail "'$cmd2' does not apply from /"

(cd / && sh -c "$cmd --fuzz=0 --no-backup-if-mismatch") >/dev/null || fail "'$cmd' does not apply from /"
cat "$work/out/fixes.patch"

# shellcheck disable=SC2086
"$cc" $cflags "$work/src/$name.c" -o "$work/bin/$name-patched" 2>"$work/patched.warnings" ||
  { cat "$work/patched.warnings" >&2; fail "the patched program does not build"; }
before=$(grep -c 'warning:' "$work/orig.warnings" || true)
after=$(grep -c 'warning:' "$work/patched.warnings" || true)
[ "$after" -le "$before" ] || { cat "$work/patched.warnings" >&2; fail "the patch adds warnings"; }
"$work/bin/$name-patched" >"$work/patched.out" || fail "the patched program exits with $?"
cmp -s "$work/orig.out" "$work/patched.out" ||
  { diff "$work/orig.out" "$work/patched.out" >&2 || true; fail "the output changed"; }

"$omplens" run -q -o "$work/out-patched" -- "$work/bin/$name-patched" >/dev/null ||
  fail "omplens run on the patched program failed"
"$driver" --findings "$(ls -d "$work"/out-patched/traces/*/)" >"$work/findings-patched.txt" ||
  fail "fix_driver --findings failed on the patched program"
if [ -s "$work/findings-patched.txt" ]; then
  cat "$work/findings-patched.txt" >&2
  fail "findings remain after the patch"
fi
echo "ok ($name): fixes.patch applied from / with the printed command, same output, no finding left"
