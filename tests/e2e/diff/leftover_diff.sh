#!/usr/bin/env bash
# `omplens diff` after a fix that ends a mapping the program never deleted:
# SOURCE is profiled, its fixes.patch applied to a copy, which is profiled
# too; the diff must show the mappings still present at exit go from N to
# N - 1 (a patch that changes no finding is not a patch that did nothing).
# usage: leftover_diff.sh OMPLENS CC LLVM_DIR SOURCE WORKDIR
set -euo pipefail
omplens=$1 cc=$2 llvm=$3 src=$4 work=$5
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
grep -E '^  mappings at exit +1 +0 ' "$work/diff.txt" >/dev/null ||
  fail "the mapping the patch ends is not counted"
echo "ok: $name: $(grep 'mappings at exit' "$work/diff.txt")"
