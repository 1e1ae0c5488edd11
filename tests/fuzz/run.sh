#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-19 (ASan + UBSan) in BUILD_DIR and
# runs each one for SECONDS over a copy of the seed corpus. Inputs it finds
# stay in BUILD_DIR/fuzz/corpus-TARGET/, crashes go to
# BUILD_DIR/fuzz/artifacts-TARGET/ (replay one: TARGET FILE). Exit 1 when
# a target crashed.
# usage: tests/fuzz/run.sh BUILD_DIR SECONDS
# Needs the Debian packages clang-19 and libclang-rt-19-dev.
# OMPLENS_FUZZ_EXTRA_FLAGS (environment) adds compiler flags, e.g.
# -fno-sanitize=nonnull-attribute to fuzz on past a reported finding.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 64
fi
build=$1 seconds=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
cc=${OMPLENS_FUZZ_CC:-clang-19}
targets="fuzz_trace_reader fuzz_trace_detect fuzz_directives fuzz_report_source fuzz_line_table
  fuzz_producer fuzz_report_part"

command -v "$cc" >/dev/null || { echo "run.sh: $cc not found (Debian: clang-19)" >&2; exit 69; }
probe='int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }'
if ! echo "$probe" | "$cc" -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
  echo "run.sh: libFuzzer is missing (Debian: libclang-rt-19-dev)" >&2
  exit 69
fi
cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER="$cc" -DOMPLENS_FUZZ=ON \
  -DOMPLENS_FUZZ_EXTRA_FLAGS="${OMPLENS_FUZZ_EXTRA_FLAGS:-}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target omplens_fuzzers >/dev/null

mkdir -p "$build/fuzz"
crashed=0
for t in $targets; do
  corpus=$build/fuzz/corpus-$t artifacts=$build/fuzz/artifacts-$t log=$build/fuzz/$t.log
  rm -rf "$corpus" "$artifacts" && mkdir -p "$corpus" "$artifacts"
  dict=()
  if [ "$t" = fuzz_directives ] || [ "$t" = fuzz_report_source ]; then # seeds: source files
    cp "$src"/tests/unit/directives_fixture/*.[ch] "$src"/tests/unit/directives_fixture/*.cpp "$corpus"/
  elif [ "$t" = fuzz_producer ]; then # seeds: DW_AT_producer strings
    cp "$src"/tests/fuzz/corpus/producer/* "$corpus"/
  elif [ "$t" = fuzz_report_part ]; then # seeds: parts and a plan
    cp "$src"/tests/fuzz/corpus/part/* "$corpus"/
  elif [ "$t" = fuzz_line_table ]; then # no seeds: a header is a few dozen bytes
    :
  else
    cp "$src"/tests/fuzz/corpus/trace/* "$corpus"/
    dict=(-dict="$src/tests/fuzz/trace.dict")
  fi
  status=0
  "$build/tests/fuzz/$t" "$corpus" -max_total_time="$seconds" "${dict[@]}" \
    -artifact_prefix="$artifacts/" -print_final_stats=1 -max_len=65536 >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  if [ "$status" -ne 0 ]; then
    crashed=1
    echo "FAIL: $t crashed after ${runs:-?} runs; reproducer: $(ls "$artifacts"/* 2>/dev/null | head -1)"
    grep -E 'ERROR|runtime error|broken promise' "$log" | head -5 | sed 's/^/  /' || true
  else
    echo "ok: $t: ${runs:-?} runs in ${seconds}s, ${cov:-cov ?}, corpus $(ls "$corpus" | wc -l) inputs, no crash"
  fi
done
exit "$crashed"
