#!/usr/bin/env bash
# `omplens diff` after a fix that removes a line: SOURCE (three round trips
# of one variable in one function) and its copy without the line marked
# DROP, each in a work tree of its own, are profiled; the first round trip
# must be gone and the other two, one line up, unchanged (paired with their
# own lines, not with their neighbours').
# usage: moved_directive.sh OMPLENS CC LLVM_DIR SOURCE WORKDIR
set -euo pipefail
omplens=$1 cc=$2 llvm=$3 src=$4 work=$5
rm -rf "$work" && mkdir -p "$work"
name=$(basename "$src" .c)
export LD_LIBRARY_PATH=$llvm/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fail() {
  echo "FAIL: $*"
  cat "$work/diff.txt"
  exit 1
}

drop=$(grep -n '/\* DROP \*/' "$src" | cut -d: -f1)
for side in before after; do
  mkdir -p "$work/$side/.git" # a work tree's top, as git marks it
  if [ $side = before ]; then
    cp "$src" "$work/$side/$name.c"
  else
    sed '/\/\* DROP \*\//d' "$src" >"$work/$side/$name.c"
  fi
  "$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O0 "$work/$side/$name.c" \
    -o "$work/$side/$name"
  "$omplens" run -q -o "$work/$side/out" -- "$work/$side/$name" >/dev/null
done
"$omplens" diff "$work/before/out" "$work/after/out" >"$work/diff.txt"
lines=($(grep -n 'update from' "$src" | cut -d: -f1))
[ ${#lines[@]} -eq 3 ] || fail "the fixture has ${#lines[@]} copies back, not 3"
grep -E "^  gone +round-trip .*$name\.c:${lines[0]} " "$work/diff.txt" >/dev/null ||
  fail "the dropped copy back (line ${lines[0]}) is not gone"
for k in 1 2; do
  grep -E "^  unchanged +round-trip .*$name\.c:${lines[$k]} .*\(line ${lines[$k]} -> $((lines[k] - 1))\)" \
    "$work/diff.txt" >/dev/null ||
    fail "line ${lines[$k]} did not pair with line $((lines[k] - 1))"
done
grep -E '^Findings: 1 gone, 0 new, 2 unchanged' "$work/diff.txt" >/dev/null ||
  fail "the counts are wrong"
echo "ok: $name, line $drop dropped: $(sed -n '/^Findings: /p' "$work/diff.txt")"
