#!/usr/bin/env bash
# --compile-commands: a source whose header is found only through the build's
# -I flag is parsed partially without them, fully with compile_commands.json.
# usage: compile_commands.sh OMPLENS CLANG SRCDIR WORKDIR
set -euo pipefail
omplens=$1 cc=$2 src=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
cp -r "$src" "$work/src"
cd "$work/src"
"$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -Iinc -Wl,-rpath,/usr/lib/llvm-19/lib \
  resend.c -o "$work/resend"
# Kept away from the source's directories, where omplens would find it alone.
mkdir -p "$work/elsewhere"
cat >"$work/elsewhere/compile_commands.json" <<JSON
[{"directory": "$work/src", "file": "resend.c",
  "command": "clang-19 -fopenmp -g -Iinc -c resend.c"}]
JSON
cd "$work"
"$omplens" run -q -o without -- ./resend >/dev/null
"$omplens" report -q -o with --compile-commands "$work/elsewhere/compile_commands.json" without/traces/*/
grep -q '"partial_parse": true' without/findings.json ||
  { echo "FAIL: without the flags the parse should be partial"; exit 1; }
grep -q '"partial_parse": false' with/findings.json && ! grep -q '"partial_parse": true' with/findings.json ||
  { echo "FAIL: with compile_commands.json the parse should be complete"; exit 1; }
grep -q '"kind": "target teams distribute parallel for"' with/findings.json ||
  { echo "FAIL: the directive was not found"; exit 1; }
if "$omplens" report -q -o bad --compile-commands "$work/no-such.json" without/traces/*/ 2>err.txt; then
  echo "FAIL: a missing compile_commands.json was accepted"; exit 1
fi
grep -q '^omplens: cannot read' err.txt || { echo "FAIL: no one-line error"; cat err.txt; exit 1; }
echo "ok: partial parse without the build's flags, complete with --compile-commands"
