#!/usr/bin/env bash
# What libclang costs a report, the first time and again from the parse
# cache (docs/directives.md, "The parse cache").
# usage: bench/libclang_cache.sh BUILD_DIR [TRACE_DIR [COMPILE_COMMANDS]]
#
# Without TRACE_DIR, examples/jacobi.c is built (clang-19, host offload)
# into a temporary directory and run under omplens. Then
#   OMPLENS_STAGE_TIMES=1 omplens report -q -o TMP/out TRACE_DIR
# runs twice into the same, fresh output directory; the script prints each
# report's wall time and its stage line "parsing N sources (libclang): S s,
# M from the cache" (S: wall time of the parses, summed over threads), and
# whether the two reports wrote the same findings.json and fixes.patch.
# Target: the second report spends at most 0.1 s in libclang.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [TRACE_DIR [COMPILE_COMMANDS]]" >&2
  exit 64
fi
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
llvm=${LLVM_DIR:-/usr/lib/llvm-19}
omplens=$build/bin/omplens
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ $# -ge 2 ]; then
  traces=$2
else
  "$llvm/bin/clang" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g -O0 \
    "$here/../examples/jacobi.c" -o "$tmp/jacobi" -Wl,-rpath,"$llvm/lib"
  (cd "$tmp" && LD_LIBRARY_PATH=$llvm/lib "$omplens" run -q -o "$tmp/run" -- ./jacobi >/dev/null)
  traces=$(ls -d "$tmp"/run/traces/*/)
fi
extra=()
[ $# -ge 3 ] && extra=(--compile-commands "$3")
echo "# $0 $*"
echo "# $(date -u '+%F %T UTC'), $(nproc) cores, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg)"

for pass in first second; do
  start=$(date +%s.%N)
  OMPLENS_STAGE_TIMES=1 LD_LIBRARY_PATH=$llvm/lib "$omplens" report -q -o "$tmp/out" \
    "${extra[@]}" "$traces" 2>"$tmp/$pass.err"
  end=$(date +%s.%N)
  line=$(sed -n 's/.*\(parsing .*\)/\1/p' "$tmp/$pass.err")
  printf '%-6s report: %6.3f s wall; %s\n' "$pass" "$(echo "$end - $start" | bc)" \
    "${line:-no source parsed}"
  cp "$tmp/out/findings.json" "$tmp/$pass.json"
  cp "$tmp/out/fixes.patch" "$tmp/$pass.patch" 2>/dev/null || : >"$tmp/$pass.patch"
done
if cmp -s "$tmp/first.patch" "$tmp/second.patch" &&
   diff -q <(grep -v '"generated\|"date\|_at"' "$tmp/first.json") \
           <(grep -v '"generated\|"date\|_at"' "$tmp/second.json") >/dev/null; then
  echo "same findings.json and fixes.patch"
else
  echo "the two reports differ"
  exit 1
fi
