#!/usr/bin/env bash
# Bad input around sources: the report must still be written, say what is
# wrong in one note, and never crash:
#   - libclang that cannot be loaded;
#   - a source file deleted after the build (fixes named by the runtime's
#     names of their items);
#   - a source file edited after the build (lines inserted above the directive).
# usage: source_changes.sh OMPLENS CLANG SOURCE WORKDIR
set -euo pipefail
omplens=$1 cc=$2 src=$3 work=$4
rm -rf "$work" && mkdir -p "$work/src"
cp "$src" "$work/src/prog.c"
"$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -Wl,-rpath,/usr/lib/llvm-19/lib \
  "$work/src/prog.c" -o "$work/prog"

check() { # name, jq-like grep pattern that must appear in findings.json
  if ! grep -q "$2" "$work/$1/findings.json"; then
    echo "FAIL: $1: findings.json lacks $2"; grep -m3 '"directive"' -A8 "$work/$1/findings.json"; exit 1
  fi
}

# No libclang (OMPLENS_LIBCLANG names a library that is not there): the
# directives are read as text, marked partial, and the fixes say why.
OMPLENS_LIBCLANG="$work/no-such-libclang.so" "$omplens" run -q -o "$work/nolibclang" -- "$work/prog" \
  >/dev/null 2>"$work/nolibclang.err" || {
  echo "FAIL: omplens run failed without libclang"; cat "$work/nolibclang.err"; exit 1; }
check nolibclang '"partial_parse": true'
check nolibclang "libclang could not be loaded ($work/no-such-libclang.so: cannot open shared object file"

# Edited: two lines inserted at the top move every directive down.
sed -i '1i /* edited after the build */\n/* second line */' "$work/src/prog.c"
"$omplens" run -q -o "$work/edited" -- "$work/prog" >/dev/null 2>"$work/edited.err" || {
  echo "FAIL: omplens run failed on an edited source"; cat "$work/edited.err"; exit 1; }
check edited '"stale": true'

# Missing: the source is gone; the runtime's location still names file:line.
rm "$work/src/prog.c"
"$omplens" run -q -o "$work/missing" -- "$work/prog" >/dev/null 2>"$work/missing.err" || {
  echo "FAIL: omplens run failed on a missing source"; cat "$work/missing.err"; exit 1; }
check missing '"note": "the source file is missing"'
check missing '"line": '
# ... and its fixes name the item as the runtime does, not "the buffer".
check missing '"summary": "Duplicate transfer of coef\[0:(1 << 20)\]: no safe diff'
[ -s "$work/missing/report.html" ] || { echo "FAIL: no report.html with a missing source"; exit 1; }
grep -q "missing" "$work/missing/report.html" || { echo "FAIL: report.html does not say the source is missing"; exit 1; }
echo "ok: no libclang read as text, edited source flagged stale, missing source noted, reports written"
