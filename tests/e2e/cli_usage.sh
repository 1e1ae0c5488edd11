#!/usr/bin/env bash
# Bad command lines: each gets exactly one line on stderr starting with
# "omplens: " (plus at most a "Try 'omplens --help'." hint) and the documented
# exit code; --help and --version succeed on stdout.
# usage: cli_usage.sh OMPLENS WORKDIR
set -uo pipefail
omplens=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
failed=0

expect() { # expected-status description -- args...
  local want=$1 what=$2; shift 3
  "$omplens" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  local lines
  lines=$(grep -vc "^Try 'omplens --help'.$" "$work/err")
  if [ "$got" != "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"; failed=1
  elif [ "$want" != 0 ] && { [ "$lines" != 1 ] || ! grep -q '^omplens: ' "$work/err"; }; then
    echo "FAIL: $what: expected one 'omplens: ' line on stderr, got:"; sed 's/^/  | /' "$work/err"; failed=1
  fi
}

expect 0 "--help" -- --help
expect 0 "--version" -- --version
expect 64 "no command" --
expect 64 "unknown command" -- frobnicate
expect 64 "report without traces" -- report
expect 64 "run without a program" -- run
expect 64 "unknown output" -- report --outputs json,bogus x
expect 64 "bad --top" -- report --top lots x
expect 64 "--window without a colon" -- report --window 5 x
expect 64 "--window not a number" -- report --window a:b x
expect 64 "--window with a unit" -- report --window 2s:5 x
expect 64 "--window negative" -- report --window -1:5 x
expect 64 "--window start after end" -- report --window 5:2 x
expect 64 "--window empty" -- report --window 2:2 x
expect 64 "--window for run" -- run --window 1: -- true
expect 64 "unknown option" -- report --no-such-option x
expect 64 "option without its value" -- report --top
expect 64 "missing compile_commands" -- report --compile-commands "$work/none.json" x
expect 66 "missing trace" -- report "$work/none.trace"
expect 66 "program not found" -- run -o "$work/o" -- "$work/no-such-program"
[ ! -e "$work/o" ] || { echo "FAIL: a program not found left $work/o behind"; failed=1; }
# An output directory whose parents are missing is made with them (mkdir -p);
# a run that did not start removes all it made, and nothing else.
expect 66 "program not found, output in missing parents" -- run -o "$work/p/q/o" -- "$work/no-such-program"
[ ! -e "$work/p" ] || { echo "FAIL: a program not found left $work/p behind"; failed=1; }
[ -d "$work" ] || { echo "FAIL: $work, which existed, was removed"; failed=1; }
# (true runs, and leaves no trace to report: what counts is the directory)
"$omplens" run -q -o "$work/deep/er/out" -- true 2>"$work/err"
[ -d "$work/deep/er/out/traces" ] ||
  { echo "FAIL: run -o did not make $work/deep/er/out:"; sed 's/^/  | /' "$work/err"; failed=1; }
# The command omplens starts its parse helpers with, typed by hand.
expect 64 "parse helper without its directory" -- __libclang-helper
expect 64 "parse helper on a terminal or file" -- __libclang-helper "$work/cache" </dev/null
[ ! -e "$work/cache" ] || { echo "FAIL: the parse helper by hand made $work/cache"; failed=1; }
expect 64 "dump without a trace" -- dump
expect 64 "diff with an unknown option" -- diff --bogus
expect 64 "diff without runs" -- diff
expect 66 "diff of missing runs" -- diff "$work/a" "$work/b"
mkdir -p "$work/empty"
expect 66 "directory without traces" -- report "$work/empty"
printf 'not a trace at all' >"$work/junk.trace"
expect 65 "not a trace" -- report -o "$work/o" "$work/junk.trace"
# A directory given as a shell's glob gives it ("DIR/"): its traces are
# named with one slash.
mkdir -p "$work/junkdir" && cp "$work/junk.trace" "$work/junkdir/"
expect 65 "not a trace, in a directory given with its slash" -- report -o "$work/o" "$work/junkdir/"
grep -qF "$work/junkdir/junk.trace" "$work/err" ||
  { echo "FAIL: a trace of DIR/ is not named DIR/NAME:"; sed 's/^/  | /' "$work/err"; failed=1; }
: >"$work/empty.trace"
expect 65 "an empty trace" -- report -o "$work/o" "$work/empty.trace"
grep -q "the file is empty" "$work/err" || { echo "FAIL: an empty trace is not called empty"; failed=1; }
# An output directory that cannot be written: one line, exit 73, before any
# work (the trace here is not even read). A user is stopped by mode 555;
# root, who passes permission bits, by a file system that refuses writes.
: >"$work/file"
expect 73 "output is a file" -- report -o "$work/file" "$work/junk.trace"
expect 73 "a file in the output's path" -- report -o "$work/file/sub/o" "$work/junk.trace"
expect 73 "run with a file in the output's path" -- run -o "$work/file/sub/o" -- true
mkdir -p "$work/ro" && chmod 555 "$work/ro"
if [ "$(id -u)" != 0 ]; then
  ro=$work/ro
elif [ -d /sys/kernel ] && ! : 2>/dev/null >/sys/kernel/.omplens-test; then
  ro=/sys/kernel
else
  ro=""
  echo "note: no directory refuses root's writes here: the read-only cases are left out"
fi
if [ -n "$ro" ]; then
  expect 73 "read-only output directory" -- report -o "$ro" "$work/junk.trace"
  expect 73 "run into a read-only output directory" -- run -o "$ro" -- true
  expect 73 "run into missing parents under a read-only directory" -- run -o "$ro/x/y" -- true
fi
[ "$("$omplens" --version)" != "" ] || { echo "FAIL: --version printed nothing"; failed=1; }
grep -q "Usage: omplens run" <("$omplens" --help) || { echo "FAIL: --help lacks the usage"; failed=1; }
expect 0 "run --help" -- run --help
grep -q "^Usage: omplens run" "$work/out" && ! grep -q "omplens report \[" "$work/out" ||
  { echo "FAIL: run --help is not run's own help"; failed=1; }
expect 0 "report --help" -- report --help
grep -q "^Usage: omplens report" "$work/out" && ! grep -q -- "--no-preload" "$work/out" ||
  { echo "FAIL: report --help is not report's own help"; failed=1; }
grep -q "needs a value" <("$omplens" report -o 2>&1) || { echo "FAIL: -o without a value"; failed=1; }
[ "$failed" = 0 ] && echo "ok: every bad command line gets one clear line and its exit code"
exit "$failed"
