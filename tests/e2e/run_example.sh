#!/usr/bin/env bash
# End-to-end golden test of one example: the program behaves the same with and
# without omplens, its findings match examples/NAME.expected exactly, and the
# figures of its findings.json agree with each other (consistency_check, built
# next to DIGEST by precision/CMakeLists.txt).
# usage: run_example.sh OMPLENS DIGEST BINARY EXPECTED WORKDIR [RUN-OPTIONS]
set -euo pipefail
omplens=$1 digest=$2 bin=$3 expected=$4 work=$5 run_options=${6:-}
rm -rf "$work" && mkdir -p "$work"

set +e
"$bin" >"$work/plain.out" 2>"$work/plain.err"; plain_status=$?
# shellcheck disable=SC2086 # the options are words
"$omplens" run -q $run_options -o "$work/report" -- "$bin" >"$work/profiled.out" 2>"$work/profiled.err"; profiled_status=$?
set -e

if [ "$plain_status" != "$profiled_status" ]; then
  echo "FAIL: exit status $plain_status without omplens, $profiled_status with it"; cat "$work/profiled.err"; exit 1
fi
if ! cmp -s "$work/plain.out" "$work/profiled.out"; then
  echo "FAIL: stdout differs with omplens"; diff "$work/plain.out" "$work/profiled.out" | head -20; exit 1
fi

# One line per finding (category, directive file:line, device, instances, variable),
# compared as a multiset: comments and blank lines dropped, columns normalized.
# Lines "directive FILE:LINE KIND | TEXT", "called FILE:LINE < CALLER:LINE
# ..." (a directive's call path) and "storage FILE:LINE VAR = OBJECT at
# CALLER:LINE" are compared with spaces squeezed.
awk '/^(directive|called|storage) / { $1 = $1; print; next }
     { sub(/#.*/, "") } NF >= 5 { printf "%-24s %-24s %6s %6d %s\n", $1, $2, $3, $4, $5 }' "$expected" \
  | LC_ALL=C sort >"$work/expected.txt"
# A golden without call paths (one shared by -O0 and -O2 builds, where
# inlining leaves the line of the call unknown) does not check them; nor
# storage names without "storage" lines.
paths=1 storage=1
grep -q '^called ' "$expected" || paths=0
grep -q '^storage ' "$expected" || storage=0
"$digest" "$work/report/findings.json" |
  awk -v paths=$paths -v storage=$storage '/^called / && !paths { next }
    /^storage / && !storage { next }
    /^(directive|called|storage) / { $1 = $1 } { print }' \
  | LC_ALL=C sort >"$work/actual.txt"
failed=0
if ! diff -u "$work/expected.txt" "$work/actual.txt"; then
  echo "FAIL: findings differ from $(basename "$expected") (- expected, + actual)"; failed=1
fi
check=$(dirname "$digest")/consistency_check
if ! "$check" "$work/report/findings.json"; then
  echo "FAIL: the figures of findings.json disagree ($check)"; failed=1
fi
[ "$failed" = 0 ] || exit 1
echo "ok: $(basename "$bin"): $(wc -l <"$work/actual.txt") finding rows as expected, output unchanged, figures consistent"
