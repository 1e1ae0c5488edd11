#!/usr/bin/env bash
# `omplens diff` across a moved checkout: the same program built from two
# copies of its sources in different directories (a git work tree moved or
# cloned elsewhere) is profiled twice; every finding must match (none gone,
# none new), because files are compared from each run's sources root.
# usage: moved_checkout.sh OMPLENS CC LLVM_DIR SOURCE WORKDIR
set -euo pipefail
omplens=$1 cc=$2 llvm=$3 src=$4 work=$5
rm -rf "$work" && mkdir -p "$work"
name=$(basename "$src" .c)
export LD_LIBRARY_PATH=$llvm/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

for side in first elsewhere/deeper/second; do
  mkdir -p "$work/$side/src" "$work/$side/.git" # a work tree's top, as git marks it
  cp "$src" "$work/$side/src/"
  "$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O0 "$work/$side/src/$name.c" \
    -o "$work/$side/$name"
  "$omplens" run -q -o "$work/$side/out" -- "$work/$side/$name" >/dev/null
done
"$omplens" diff --json "$work/diff.json" "$work/first/out" "$work/elsewhere/deeper/second/out" \
  >"$work/diff.txt"
line=$(sed -n '/^Findings: /p' "$work/diff.txt")
case $line in
*" 0 gone"*" 0 new"* | *" 0 new"*" 0 gone"*) ;;
*)
  echo "FAIL: the same program from a moved checkout: '$line'"
  cat "$work/diff.txt"
  exit 1
  ;;
esac
echo "ok: $name from a moved checkout: $line"
