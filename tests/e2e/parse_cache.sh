#!/usr/bin/env bash
# The parse cache (docs/directives.md, "The parse cache"): a first report
# parses each unit plainly once (the fixer takes the directive index's
# parse through the cache); a second report
# into the same output directory parses nothing and writes the same
# outputs; a changed header, or a changed flag, misses, and the report then
# equals one made without a cache; a damaged cache entry is ignored.
# usage: parse_cache.sh OMPLENS CC WORKDIR
set -uo pipefail
omplens=$1 cc=$2 work=$3
rm -rf "$work" && mkdir -p "$work/src"
failed=0
fail() { echo "FAIL: $*"; failed=1; }
cd "$work/src" || exit 1

cat >kern.h <<'EOF'
#ifndef KERN_H
#define KERN_H
#ifndef SCALE
#define SCALE 0.5
#endif
#define N (1 << 18)
/* scratch is mapped and never used: a finding with a fix in this header. */
static inline void step(double *x, double *scratch) {
#pragma omp target teams distribute parallel for map(to: scratch[0:N]) map(tofrom: x[0:N])
  for (int i = 0; i < N; i++)
    x[i] = x[i] * SCALE + 1.0;
}
#endif
EOF
cat >main.c <<'EOF'
#include <stdlib.h>
#include "kern.h"

int main(void) {
  double *x = calloc(N, sizeof *x), *scratch = calloc(N, sizeof *scratch);
#pragma omp target enter data map(to: x[0:N])
  for (int s = 0; s < 4; s++)
    step(x, scratch);
#pragma omp target exit data map(from: x[0:N])
  free(x);
  free(scratch);
  return 0;
}
EOF
"$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g main.c -o prog \
  -Wl,-rpath,/usr/lib/llvm-19/lib || exit 1
"$omplens" run -q -o "$work/run" -- ./prog >/dev/null 2>"$work/run.err" || {
  cat "$work/run.err"
  exit 1
}
traces=$(ls -d "$work"/run/traces/*/)
# The build's flags, so that the fixer may change the header.
compdb() {
  printf '[{"directory": "%s", "file": "main.c", "command": "%s -fopenmp %s -c main.c"}]\n' \
    "$work/src" "$cc" "$1" >"$work/src/compile_commands.json"
}
compdb ""

# report DIR: the stage line "parsing N sources (libclang): S s,
# M from the cache" of a report into DIR, as "N M".
report() {
  local dir=$1
  OMPLENS_STAGE_TIMES=1 "$omplens" report -q -o "$dir" \
    --compile-commands "$work/src/compile_commands.json" "$traces" 2>"$dir.err"
  sed -n 's/.*parsing \([0-9]*\) sources (libclang): [0-9.]* s, \([0-9]*\) from the cache.*/\1 \2/p' \
    "$dir.err"
}
# The outputs, timestamps left out.
same_outputs() {
  cmp -s "$1/fixes.patch" "$2/fixes.patch" || fail "$3: fixes.patch differs"
  diff <(grep -v '"generated\|"date\|_at"' "$1/findings.json") \
       <(grep -v '"generated\|"date\|_at"' "$2/findings.json") >/dev/null ||
    fail "$3: findings.json differs"
}

first=$(report "$work/out")
read -r n hits <<<"$first"
[ -n "$first" ] && [ "$n" -gt 0 ] || fail "first report: no parse line ($first)"
[ -s "$work/out/fixes.patch" ] || fail "first report: no fix to compare"
ls "$work"/out/.omplens-cache/*.lcc >/dev/null 2>&1 || fail "first report: nothing cached"
cp -r "$work/out" "$work/out1"

second=$(report "$work/out")
read -r n2 hits2 <<<"$second"
[ "$n2" = "$n" ] && [ "$hits2" = "$n" ] ||
  fail "second report: expected $n parses all from the cache, got '$second'"
same_outputs "$work/out1" "$work/out" "second report"

# A changed header misses; the result is a fresh report's.
sed -i 's/map(to: scratch\[0:N\])/map(to: scratch[0:N \/ 2])/' kern.h
third=$(report "$work/out")
read -r n3 hits3 <<<"$third"
[ "$hits3" -lt "$n3" ] || fail "changed header: the cache still answered every parse ($third)"
report "$work/fresh3" >/dev/null
same_outputs "$work/fresh3" "$work/out" "changed header"
grep -q 'scratch\[0:N / 2\]' "$work/out/findings.json" || fail "changed header: new clause not reported"

# A changed flag misses too.
compdb -DSCALE=3.0
fourth=$(report "$work/out")
read -r n4 hits4 <<<"$fourth"
[ "$hits4" -lt "$n4" ] || fail "changed flag: the cache still answered every parse ($fourth)"
# One unit was parsed: the fixer took the directive index's plain parse of
# main.c (for main.c and the header it changes) through the cache.
[ $((n4 - hits4)) = 1 ] || fail "changed flag: $((n4 - hits4)) parses ran, not 1 ($fourth)"
fresh4=$(report "$work/fresh4")
same_outputs "$work/fresh4" "$work/out" "changed flag"

# Damaged entries (truncated, a flipped byte) are ignored and parsed again:
# the cache answers what it answers a report with none (the fixer's
# parses, which the index's stored a moment before).
for f in "$work"/out/.omplens-cache/*.lcc; do
  size=$(stat -c %s "$f")
  if [ $((RANDOM % 2)) = 0 ]; then
    truncate -s $((size / 2)) "$f"
  else
    printf '\xff' | dd of="$f" bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null
  fi
done
fifth=$(report "$work/out")
read -r n5 hits5 <<<"$fifth"
[ "$fifth" = "$fresh4" ] ||
  fail "damaged cache: $hits5 parses answered from it ($fifth; with no cache: $fresh4)"
same_outputs "$work/fresh4" "$work/out" "damaged cache"

echo "parses (all, from the cache): first $first, second $second, changed header $third," \
  "changed flag $fourth, damaged cache $fifth"
[ "$failed" = 0 ] && echo "ok: the parse cache hits, misses on change, survives damage"
exit "$failed"
