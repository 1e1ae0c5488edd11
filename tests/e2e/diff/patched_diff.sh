#!/usr/bin/env bash
# `omplens diff` of a program and the same with its own fixes.patch:
# SOURCE is profiled, the patch applied to a copy, which is profiled too;
# the diff's output must match PATTERN (an extended regular expression).
# usage: patched_diff.sh OMPLENS CC LLVM_DIR SOURCE WORKDIR PATTERN
set -euo pipefail
omplens=$1 cc=$2 llvm=$3 src=$4 work=$5 pattern=$6
rm -rf "$work" && mkdir -p "$work/before" "$work/after"
name=$(basename "$src" .c)
export LD_LIBRARY_PATH=$llvm/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fail() {
  echo "FAIL: $*"
  cat "$work/diff.txt" 2>/dev/null || true
  exit 1
}

cp "$src" "$work/before/$name.c"
cp "$src" "$work/after/$name.c"
build() {
  "$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O0 "$work/$1/$name.c" \
    -o "$work/$1/$name"
}
build before
"$omplens" run -q -o "$work/before/out" -- "$work/before/$name" >/dev/null
patch -s -p1 -d "$work/after" <"$work/before/out/fixes.patch" || fail "the patch does not apply"
build after
"$omplens" run -q -o "$work/after/out" -- "$work/after/$name" >/dev/null
"$omplens" diff "$work/before/out" "$work/after/out" >"$work/diff.txt"
grep -E -- "$pattern" "$work/diff.txt" >/dev/null || fail "the diff does not say /$pattern/"
echo "ok: $name: $(grep -E -- "$pattern" "$work/diff.txt")"
