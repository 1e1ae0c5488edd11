#!/usr/bin/env bash
# Damaged input through the CLI: empty, garbage, truncated, newer-version
# and corrupted traces, and directories without traces. `omplens report`,
# `omplens dump` and (for a directory) `omplens diff` must either fail with
# exactly one line on stderr, starting with "omplens: ", and the documented
# exit code (65 unreadable trace, 66 missing input), or write a report that
# lists the damage. Never a crash.
# usage: check_corrupt.sh OMPLENS JSON_GET BINARY WORKDIR
#   BINARY: an offload program whose complete trace is the material
set -euo pipefail
omplens=$1 json_get=$2 bin=$3 work=$4
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work/in"
cases=0

"$omplens" run -q -o "$work/good" -- "$bin" >/dev/null 2>&1 || fail "the material run failed"
good=$(one_trace "$work/good/traces") || { fail "no material trace"; finish corrupt; }
size=$(stat -c %s "$good")
hdr=$(od -An -t u4 -j 12 -N 4 "$good" | tr -d ' ')

# copy_of NAME: a copy of the good trace to damage, path on stdout
copy_of() { cp "$good" "$work/in/$1.trace" && echo "$work/in/$1.trace"; }
# poke FILE OFFSET BYTE...: overwrite bytes (decimal values) in place
poke() {
  local file=$1 off=$2; shift 2
  # shellcheck disable=SC2059 # the format is the bytes, as octal escapes
  printf "$(printf '\\%03o' "$@")" | dd of="$file" bs=1 seek="$off" conv=notrunc status=none
}
cut_at() { head -c "$2" "$good" >"$work/in/$1.trace" && echo "$work/in/$1.trace"; }

# check_error NAME STATUS WANT_STATUS STDERR: a one-line error with WANT_STATUS
check_error() {
  expect_eq "$1: exit status" "$3" "$2"
  expect_eq "$1: lines on stderr" 1 "$(wc -l <"$4")"
  expect_match "$1: error line" "^omplens: " "$4"
}

# case_diff NAME WANT BEFORE AFTER [PATTERN]: `omplens diff BEFORE AFTER`
# fails with a one-line error and exit status WANT; with PATTERN, the line
# must match it too.
case_diff() {
  local name=$1 want=$2 before=$3 after=$4 out=$work/out/diff-$1 status=0
  cases=$((cases + 1))
  mkdir -p "$work/out"
  "$omplens" diff "$before" "$after" >"$out.stdout" 2>"$out.stderr" || status=$?
  if [ "$status" -ge 128 ]; then
    fail "diff $name: omplens diff crashed (exit status $status)"
    return
  fi
  check_error "diff $name" "$status" "$want" "$out.stderr"
  [ -z "${5:-}" ] || expect_match "diff $name: error names the cause" "$5" "$out.stderr"
}

# case_report NAME WANT INPUT...: `omplens report` on INPUT. WANT is an exit
# status (65, 66: a one-line error), `damaged` (a report whose damage list
# is not empty), `incomplete` (damaged, and marked incomplete) or `any`
# (a report, or a one-line error with status 65).
case_report() {
  local name=$1 want=$2 out=$work/out/$1 status=0
  shift 2
  cases=$((cases + 1))
  mkdir -p "$work/out"
  "$omplens" report -q -o "$out" "$@" >"$out.stdout" 2>"$out.stderr" || status=$?
  if [ "$status" -ge 128 ]; then
    fail "$name: omplens report crashed (exit status $status)"
    sed 's/^/  | /' "$out.stderr" | head -5
    return
  fi
  case $want in
    any)
      if [ "$status" = 0 ]; then
        "$json_get" "$out/findings.json" processes.0.complete >/dev/null || fail "$name: no usable findings.json"
      else
        check_error "$name" "$status" 65 "$out.stderr"
      fi ;;
    damaged | incomplete)
      expect_eq "$name: exit status of a partial report" 0 "$status"
      expect_eq "$name: stderr of a partial report" "" "$(cat "$out.stderr")"
      [ "$status" = 0 ] || return 0
      local lines
      lines=$("$json_get" "$out/findings.json" processes.0.damage.# 2>/dev/null || echo 0)
      [ "$lines" -ge 1 ] || fail "$name: findings.json lists no damage"
      if [ "$want" = incomplete ]; then
        expect_eq "$name: complete" false "$("$json_get" "$out/findings.json" processes.0.complete)"
      fi ;;
    *)
      check_error "$name" "$status" "$want" "$out.stderr" ;;
  esac
}

# case_dump NAME WANT TRACE: `omplens dump`; WANT is an exit status, where 0
# means events on stdout (damage lines may follow on stderr).
case_dump() {
  local name=$1 want=$2 out=$work/out/dump-$1 status=0
  cases=$((cases + 1))
  mkdir -p "$work/out"
  "$omplens" dump "$3" >"$out.stdout" 2>"$out.stderr" || status=$?
  if [ "$status" -ge 128 ]; then
    fail "dump $name: omplens dump crashed (exit status $status)"
    return
  fi
  if [ "$want" = 0 ]; then
    expect_eq "dump $name: exit status" 0 "$status"
    expect_match "dump $name: header line" "^#begin_ns" "$out.stdout"
  else
    check_error "dump $name" "$status" "$want" "$out.stderr"
  fi
}

# -- not traces at all
: >"$work/in/empty.trace"
case_report empty 65 "$work/in/empty.trace"
case_dump empty 65 "$work/in/empty.trace"
printf 'this is not a trace\n' >"$work/in/text.trace"
case_report text 65 "$work/in/text.trace"
awk 'BEGIN { srand(7); for (i = 0; i < 20000; i++) printf "%c", int(rand() * 255) + 1 }' \
  >"$work/in/noise.trace" 2>/dev/null
case_report noise 65 "$work/in/noise.trace"
case_report magic-only 65 "$(cut_at magic-only 8)"

# -- a newer format
t=$(copy_of newer); poke "$t" 8 99 # a version far past the current one
case_report newer 65 "$t"
expect_match "newer: the error names the cause" "newer" "$work/out/newer.stderr"
case_dump newer 65 "$t"

# -- truncated: in the header a clean error or a report, after it a report
for n in 1 7 12 16 64 1000 $((hdr - 1)); do
  case_report "cut-$n" any "$(cut_at "cut-$n" "$n")"
done
for n in "$hdr" $((hdr + 1)) $((hdr + 63)) $((hdr + 64)) $((hdr + 200)) $((hdr + 2000)) \
         $((size / 2)) $((size - 88)) $((size - 1)); do
  case_report "cut-$n" incomplete "$(cut_at "cut-$n" "$n")"
done
case_dump "cut-$((hdr + 200))" 0 "$work/in/cut-$((hdr + 200)).trace"

# -- damaged chunks of a complete trace
t=$(copy_of bad-magic); poke "$t" "$hdr" 0 0 0 0
case_report bad-magic damaged "$t"
t=$(copy_of used-beyond-capacity); poke "$t" $((hdr + 16)) 255 255 255 255
case_report used-beyond-capacity damaged "$t"
# A chunk claims thread 256, far beyond the chunks present: its events are
# lost, and the reader must say so.
t=$(copy_of thread-index); poke "$t" $((hdr + 9)) 1
case_report thread-index damaged "$t"

# -- random damage to the header and the first records (fixed seeds)
for seed in $(seq 1 30); do
  t=$(copy_of "random-$seed")
  awk -v seed="$seed" -v span=$((hdr + 4096)) 'BEGIN {
        srand(seed); for (k = 0; k < 6; k++) print int(rand() * span), int(rand() * 256) }' |
    while read -r off byte; do poke "$t" "$off" "$byte"; done
  case_report "random-$seed" any "$t"
done

# -- inputs that are not there
mkdir -p "$work/in/no-traces" "$work/in/with-dir/sub.trace"
echo notes >"$work/in/no-traces/readme.txt"
case_report no-traces 66 "$work/in/no-traces"
case_report missing 66 "$work/in/does-not-exist.trace"
case_report dir-named-trace 65 "$work/in/with-dir"
case_diff dir-named-trace 65 "$work/in/with-dir" "$good" 'sub\.trace: Is a directory'
case_dump directory 65 "$work/in/no-traces"
case_report good-then-bad 65 "$good" "$work/in/empty.trace"

finish "corrupt input: $cases cases, each a one-line error or a report with its damage"
