#!/usr/bin/env bash
# Parses in helper processes (docs/directives.md, "Parses in helper
# processes"): a report's libclang runs in helpers, never in the report's
# own process, which the dynamic loader's log of each process shows; the
# stage times say how many helpers ran; a second report needs none; a
# libclang that crashes ends the helpers, not the report.
# usage: parse_helpers.sh OMPLENS CC WORKDIR
set -uo pipefail
omplens=$1 cc=$2 work=$3
rm -rf "$work" && mkdir -p "$work/src" "$work/ld"
failed=0
fail() { echo "FAIL: $*"; failed=1; }
cd "$work/src" || exit 1

cat >main.c <<'EOF'
#include <stdlib.h>
#define N (1 << 16)

/* unused is mapped and never read: a finding, and a fix to check. */
static void step(double *x, double *unused) {
#pragma omp target teams distribute parallel for map(to: unused[0:N]) map(tofrom: x[0:N])
  for (int i = 0; i < N; i++)
    x[i] = x[i] * 0.5 + 1.0;
}

int main(void) {
  double *x = calloc(N, sizeof *x), *unused = calloc(N, sizeof *unused);
  for (int s = 0; s < 3; s++)
    step(x, unused);
  free(x);
  free(unused);
  return 0;
}
EOF
"$cc" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -g main.c -o prog \
  -Wl,-rpath,/usr/lib/llvm-19/lib || exit 1
"$omplens" run -q -o "$work/run" --outputs summary -- ./prog >/dev/null 2>"$work/run.err" || {
  cat "$work/run.err"
  exit 1
}
traces=$(ls -d "$work"/run/traces/*/)

# report DIR: a report into DIR with the loader's log of each process in
# $work/ld/DIR's name.PID; prints the report's own PID.
report() {
  local name
  name=$(basename "$1")
  OMPLENS_STAGE_TIMES=1 LD_DEBUG=files LD_DEBUG_OUTPUT="$work/ld/$name" \
    "$omplens" report -q -o "$1" "$traces" 2>"$1.err" &
  local pid=$!
  wait "$pid" || fail "$name: omplens report failed: $(tail -3 "$1.err")"
  echo "$pid"
}
loaded_libclang() { grep -l 'file=libclang' "$@" 2>/dev/null | wc -l; }

pid=$(report "$work/out")
line=$(grep 'parsing .* sources (libclang)' "$work/out.err")
case $line in
  *"from the cache, in 1 helper process"* | *"from the cache, in "[2-4]" helper processes"*) ;;
  *) fail "first report: no helper in the stage line: '$line'" ;;
esac
[ -s "$work/out/fixes.patch" ] || fail "first report: no fix (the fixer's parses failed?)"
grep -q 'libclang' "$work/out/findings.json" && fail "first report: a libclang diagnostic in findings.json"
others=$(ls "$work"/ld/out.* | grep -v "\.$pid\$")
[ "$(loaded_libclang $others)" -ge 1 ] || fail "no helper loaded libclang"
if readelf -d "$omplens" | grep -q 'NEEDED.*libclang'; then
  echo "note: this omplens links libclang (a sanitizer build): its own process is not checked"
elif [ "$(loaded_libclang "$work/ld/out.$pid")" != 0 ]; then
  fail "the report's own process loaded libclang"
fi

# A second report into the same directory: every parse from the cache, no
# helper started.
report "$work/out" >/dev/null
line2=$(grep 'parsing .* sources (libclang)' "$work/out.err")
case $line2 in
  *"helper"*) fail "second report: helpers started though the cache answers: '$line2'" ;;
  *" from the cache  ["*) ;;
  *) fail "second report: unexpected stage line '$line2'" ;;
esac

# libclang crashing (a library in its place whose loading raises SIGSEGV,
# as a libclang that crashes on a source would): the helpers die, the
# report does not. It attributes from the text, says why, and leaves the
# fixes manual.
printf '#include <signal.h>\n__attribute__((constructor)) static void die(void) { raise(SIGSEGV); }\n' \
  >"$work/crash.c"
"$cc" -shared -fPIC "$work/crash.c" -o "$work/libcrash.so" || exit 1
OMPLENS_LIBCLANG="$work/libcrash.so" "$omplens" report -q -o "$work/crashed" "$traces" \
  2>"$work/crashed.err"
rc=$?
[ "$rc" = 0 ] || fail "libclang crashing: the report exited $rc: $(tail -3 "$work/crashed.err")"
grep -q '"category"' "$work/crashed/findings.json" 2>/dev/null ||
  fail "libclang crashing: no findings"
grep -Eq "libclang crashed parsing it \(signal [0-9]+\)|libclang's process ended while parsing it" \
  "$work/crashed/findings.json" 2>/dev/null || fail "libclang crashing: the report does not say so"
[ -s "$work/crashed/fixes.patch" ] && fail "libclang crashing: a diff made without the parse"

# A first report whose sources are gone: the helper started before the
# trace was read gets no parse, and ends with the report.
mv main.c main.c.away
pid3=$(report "$work/nosrc")
mv main.c.away main.c
grep -q 'parsing .* sources (libclang)' "$work/nosrc.err" &&
  fail "no sources: a parse ran: $(grep 'parsing' "$work/nosrc.err")"
early=$(ls "$work"/ld/nosrc.* 2>/dev/null | grep -v "\.$pid3\$")
[ -n "$early" ] || fail "no sources: no helper was started before the trace was read"
for f in $early; do
  kill -0 "${f##*.}" 2>/dev/null && fail "no sources: helper ${f##*.} outlived the report"
done

echo "first report: $line; second: $line2"
[ "$failed" = 0 ] && echo "ok: libclang ran in helpers only, and its crash ended none but them"
exit "$failed"
