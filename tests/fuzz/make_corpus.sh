#!/usr/bin/env bash
# Rebuilds the seed corpus tests/fuzz/corpus/trace/ from a configured and
# built tree: real traces of an example and of the hardening programs,
# compacted to a few pages each, damaged variants of one of them, a
# synthetic trace of every record type, and a few non-traces.
# usage: tests/fuzz/make_corpus.sh BUILD_DIR
# (file names carry no .trace: .gitignore drops *.trace)
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
out=$here/corpus/trace
omplens=$build/bin/omplens tool=$build/tests/fuzz/fuzz_make_corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ulimit -c 0

# record NAME PROGRAM ARGS...: the program's trace, compacted, as corpus/NAME
record() {
  local name=$1; shift
  "$omplens" run -q -o "$work/$name" -- "$@" >/dev/null 2>&1 || true
  "$tool" compact "$(find "$work/$name/traces" -name '*.trace' | head -1)" "$out/$name"
}

rm -rf "$out" && mkdir -p "$out"
record jacobi-O2 "$build/examples/jacobi-O2"
record threads "$build/tests/hardening/threads"
record devices "$build/tests/hardening/devices"
record crash-abort "$build/tests/hardening/crash" abort
"$tool" damage "$out/devices" "$out/devices"
"$tool" synth "$out/synthetic"
: >"$out/empty"
printf 'OMPLTRC\0' >"$out/magic-only"
printf 'not a trace at all\n' >"$out/text"
too_big=$(find "$out" -size +64k)
[ -z "$too_big" ] || { echo "make_corpus: over 64 KiB: $too_big" >&2; exit 1; }
ls -l "$out"
